#version 330 core
// Emit each grid quad as two triangles, split along the diagonal that follows the crest:
// (i,j)-(i+1,j+1) when eta(i,j) + eta(i+1,j+1) > eta(i+1,j) + eta(i,j+1), else (i+1,j)-(i,j+1).
// In a 4-vertex strip the shared edge is vertex 1 - vertex 2. A quad spans grid_stride cells
// (1: every cell, the exact surface; 2 or 4 when the renderer sees that cells cover under a
// pixel or two on screen, where llvmpipe pays for triangles nobody can see). Only the position
// is passed on: the fragment shader reads the normal (height-field gradient), depth and foam
// from the water textures at its own point, so shading keeps every cell at any stride.
// A dry corner of a quad that has water takes the lowest wet corner's height: a dry cell's eta
// is its bed, which at a wall, an obstacle or a shore can stand far above the water, and joining
// the two would raise a vertical sheet ("curtain") of water there. The flat edge it gives instead
// ends under the obstacle or in the sand.
layout(points) in;
layout(triangle_strip, max_vertices = 4) out;

flat in ivec2 quad[];
out vec3 world_position;

uniform sampler2D water;          // r: eta, g: depth h, b: d(eta)/dx, a: d(eta)/dz
uniform int grid_nx;
uniform int grid_nz;
uniform int grid_stride;
uniform float cell;
uniform vec2 pool_size;
uniform mat4 view_projection;
uniform float dry_depth;

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

void put(vec4 p) {
    world_position = p.xyz;
    gl_Position = view_projection * p;
    EmitVertex();
}

void main() {
    ivec2 q = quad[0];
    int s = grid_stride;
    float h00, h10, h01, h11;
    vec4 c00 = corner(q, h00);
    vec4 c10 = corner(q + ivec2(s, 0), h10);
    vec4 c01 = corner(q + ivec2(0, s), h01);
    vec4 c11 = corner(q + ivec2(s, s), h11);
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
