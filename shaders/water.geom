#version 330 core
// Emit each grid quad as two triangles, split along the diagonal that follows the crest:
// (i,j)-(i+1,j+1) when eta(i,j) + eta(i+1,j+1) > eta(i+1,j) + eta(i,j+1), else (i+1,j)-(i,j+1).
// In a 4-vertex strip the shared edge is vertex 1 - vertex 2. Normals come from the height
// field's gradient (central differences, in the texture's b and a channels).
layout(points) in;
layout(triangle_strip, max_vertices = 4) out;

flat in ivec2 quad[];
out vec3 world_position;
out vec3 surface_normal;
out vec2 foam_depth;              // x: foam 0..1, y: water depth h, m

uniform sampler2D water;          // r: eta, g: depth h, b: d(eta)/dx, a: d(eta)/dz
uniform sampler2D water_extra;    // r: foam, g: caustic focus / 3
uniform int grid_nx;
uniform int grid_nz;
uniform float cell;
uniform vec2 pool_size;
uniform mat4 view_projection;
uniform float dry_depth;

struct Corner { vec3 p; vec3 n; vec2 fd; };

Corner corner(ivec2 c) {
    vec4 t = texelFetch(water, c, 0);
    // cell centres, with the outermost ones pulled onto the walls so the surface meets them
    vec2 xz = (vec2(c) + 0.5) * cell;
    if (c.x == 0) xz.x = 0.0;
    if (c.x == grid_nx - 1) xz.x = pool_size.x;
    if (c.y == 0) xz.y = 0.0;
    if (c.y == grid_nz - 1) xz.y = pool_size.y;
    Corner k;
    k.p = vec3(xz.x, t.r, xz.y);
    k.n = vec3(-t.b, 1.0, -t.a);
    k.fd = vec2(texelFetch(water_extra, c, 0).r, t.g);
    return k;
}

void put(Corner k) {
    world_position = k.p;
    surface_normal = k.n;
    foam_depth = k.fd;
    gl_Position = view_projection * vec4(k.p, 1.0);
    EmitVertex();
}

void main() {
    ivec2 q = quad[0];
    Corner c00 = corner(q);
    Corner c10 = corner(q + ivec2(1, 0));
    Corner c01 = corner(q + ivec2(0, 1));
    Corner c11 = corner(q + ivec2(1, 1));
    if (max(max(c00.fd.y, c10.fd.y), max(c01.fd.y, c11.fd.y)) < dry_depth) return;   // dry: no surface
    if (c00.p.y + c11.p.y > c10.p.y + c01.p.y) {
        put(c10); put(c00); put(c11); put(c01);
    } else {
        put(c00); put(c10); put(c01); put(c11);
    }
    EndPrimitive();
}
