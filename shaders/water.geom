#version 330 core
// Emit each grid quad as two triangles, split along the diagonal that follows the crest:
// (i,j)-(i+1,j+1) when eta(i,j) + eta(i+1,j+1) > eta(i+1,j) + eta(i,j+1), else (i+1,j)-(i,j+1).
// In a 4-vertex strip the shared edge is vertex 1 - vertex 2. A quad spans `stride` cells
// (quad.z; 1: every cell, the exact surface; more where cells are small on screen or the surface
// is flat: engine/render/water_lod.py). Only the position is passed on: the fragment shader
// reads the normal (height-field gradient), depth and foam from the water textures at its own
// point, so shading keeps every cell at any stride.
// No cracks between tiles of different strides: a tile's stride is at most twice or half its
// neighbours', and a vertex on a tile's edge that the coarser neighbour skips is moved onto that
// neighbour's edge (linear between its two vertices there), so the two meshes share the edge.
// A dry corner of a quad that has water takes the lowest wet corner's height: a dry cell's eta
// is its bed, which at a wall, an obstacle or a shore can stand far above the water, and joining
// the two would raise a vertical sheet ("curtain") of water there. The flat edge it gives instead
// ends under the obstacle or in the sand.
layout(points) in;
layout(triangle_strip, max_vertices = 4) out;

flat in ivec3 quad[];                // i, k, stride
out vec3 world_position;

uniform sampler2D water;          // r: eta, g: depth h, b: d(eta)/dx, a: d(eta)/dz
uniform int grid_nx;
uniform int grid_nz;
uniform float cell;
uniform vec2 pool_size;
uniform mat4 view_projection;
uniform float dry_depth;
uniform int lod_tile;                // quads a tile side (0: one stride everywhere, no tiles)
uniform sampler2D water_lod;         // r * 255: log2 of each tile's stride

vec4 corner(ivec2 c, out float h) {
    c = min(c, ivec2(grid_nx - 1, grid_nz - 1));
    vec2 t = texelFetch(water, c, 0).rg;
    h = t.g;
    // cell centres, with the outermost ones pulled onto the walls so the surface meets them
    vec2 xz = (vec2(c) + 0.5) * cell;
    if (c.x == 0) xz.x = 0.0;
    if (c.x == grid_nx - 1) xz.x = pool_size.x;
    if (c.y == 0) xz.y = 0.0;
    if (c.y == grid_nz - 1) xz.y = pool_size.y;
    return vec4(xz.x, t.r, xz.y, 1.0);
}

int tile_stride(ivec2 t) {
    ivec2 n = textureSize(water_lod, 0);
    if (any(lessThan(t, ivec2(0))) || any(greaterThanEqual(t, n))) return 0;
    return 1 << int(texelFetch(water_lod, t, 0).r * 255.0 + 0.5);
}

// The height on the edge of a neighbour whose stride is S at vertex v, grid point c on that edge
// (along grid axis a: 0 x, 1 z): linear, in world position, between the neighbour's vertices
// either side of c (the outermost vertices stand on the walls, not at cell centres).
float on_coarse_edge(ivec2 c, int a, int S, vec4 v) {
    int r = c[a] % S;
    if (r == 0) return v.y;
    ivec2 lo = c, hi = c;
    lo[a] -= r;
    hi[a] += S - r;
    float h;
    vec4 p0 = corner(lo, h);
    vec4 p1 = corner(hi, h);
    int w = a == 0 ? 0 : 2;           // the world axis (x or z) of grid axis a
    float t = (v[w] - p0[w]) / max(p1[w] - p0[w], 1e-9);
    return mix(p0.y, p1.y, t);
}

void put(vec4 p) {
    world_position = p.xyz;
    gl_Position = view_projection * p;
    EmitVertex();
}

void main() {
    ivec2 q = quad[0].xy;
    int s = quad[0].z;
    float h00, h10, h01, h11;
    vec4 c00 = corner(q, h00);
    vec4 c10 = corner(q + ivec2(s, 0), h10);
    vec4 c01 = corner(q + ivec2(0, s), h01);
    vec4 c11 = corner(q + ivec2(s, s), h11);
    if (lod_tile > 0) {   // meet a coarser neighbouring tile on its edge
        ivec2 t = q / lod_tile;
        ivec2 lo = t * lod_tile, hi = lo + lod_tile;
        int S;
        if (q.x == lo.x && (S = tile_stride(t - ivec2(1, 0))) > s) {
            c00.y = on_coarse_edge(q, 1, S, c00);
            c01.y = on_coarse_edge(q + ivec2(0, s), 1, S, c01);
        }
        if (q.x + s == hi.x && (S = tile_stride(t + ivec2(1, 0))) > s) {
            c10.y = on_coarse_edge(q + ivec2(s, 0), 1, S, c10);
            c11.y = on_coarse_edge(q + ivec2(s, s), 1, S, c11);
        }
        if (q.y == lo.y && (S = tile_stride(t - ivec2(0, 1))) > s) {
            c00.y = on_coarse_edge(q, 0, S, c00);
            c10.y = on_coarse_edge(q + ivec2(s, 0), 0, S, c10);
        }
        if (q.y + s == hi.y && (S = tile_stride(t + ivec2(0, 1))) > s) {
            c01.y = on_coarse_edge(q + ivec2(0, s), 0, S, c01);
            c11.y = on_coarse_edge(q + ivec2(s, s), 0, S, c11);
        }
    }
    bvec4 wet = bvec4(h00 >= dry_depth, h10 >= dry_depth, h01 >= dry_depth, h11 >= dry_depth);
    if (!any(wet)) return;   // dry: no surface
    if (!all(wet)) {
        float low = 1e9;
        if (wet.x) low = min(low, c00.y);
        if (wet.y) low = min(low, c10.y);
        if (wet.z) low = min(low, c01.y);
        if (wet.w) low = min(low, c11.y);
        if (!wet.x) c00.y = min(c00.y, low);
        if (!wet.y) c10.y = min(c10.y, low);
        if (!wet.z) c01.y = min(c01.y, low);
        if (!wet.w) c11.y = min(c11.y, low);
    }
    if (c00.y + c11.y > c10.y + c01.y) {
        put(c10); put(c00); put(c11); put(c01);
    } else {
        put(c00); put(c10); put(c01); put(c11);
    }
    EndPrimitive();
}
