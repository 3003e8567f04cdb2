#version 330 core
// The basin and what stands in it: floor (the level's bed material), walls and deck, obstacles
// and wave-maker paddles, each from its own geometry. Blinn-Phong with the sun and the lamps;
// under water the sunlight is focused by the surface curvature (caustics) and attenuated on its
// way down by the water's absorption and scattering (Beer-Lambert).
// Each draw binds its surfaces' material to `surface_diffuse` (one texture read a pixel: llvmpipe
// runs every branch of a shader for every pixel, so a chain of per-surface texture reads costs
// them all). With DRY defined (the deck and its skirt, outside the water's footprint) the
// under-water light is left out of the program.
in vec3 world_position;
in vec3 world_normal;
in vec2 tile_uv;
flat in int surface;
out vec4 frag_color;

#include "lighting.glsl"
#include "water_optics.glsl"

// surface ids (pool_mesh, bed_mesh, obstacle meshes): 0 floor, 1 deck, 2 outer skirt,
// 3 inner walls, 4 obstacles, 5 paddles and pipes
uniform sampler2D surface_diffuse;   // this draw's material: rgb colour, a gloss
uniform sampler2D water;             // r: surface height eta
uniform sampler2D water_extra;       // g: caustic focus / 3, computed from the surface curvature
uniform vec2 pool_size;              // nx * dx, nz * dx
uniform float caustic_strength;
uniform vec3 deck_tint;
uniform int wet_darkens;             // 1: porous beds (sand, stone) darken where wet

void main() {
    vec3 n = normalize(world_normal);
    vec3 v = normalize(camera_position - world_position);
    vec4 tex = texture(surface_diffuse, tile_uv);
    vec3 albedo = tex.rgb;
    float spec = tex.a;
    if (surface == 1) { albedo *= deck_tint; spec *= 0.25; }
    if (surface == 2) { albedo *= deck_tint * 0.7; spec = 0.05; }
    if (surface == 5) { albedo = vec3(0.85, 0.62, 0.12); spec = 0.4; }   // painted machinery
    vec3 sun = normalize(sun_direction);
    vec3 sun_light = sun_color;

#ifndef DRY
    // under water: anything inside the pool's footprint below the surface over it
    vec2 xz = clamp(world_position.xz, vec2(1e-3), pool_size - 1e-3);
    bool in_pool = surface != 1 && surface != 2 && all(greaterThan(world_position.xz, vec2(-0.01))) &&
                   all(lessThan(world_position.xz, pool_size + 0.01));
    float depth = in_pool ? texture(water, xz / pool_size).r - world_position.y : -1.0;
    if (wet_darkens == 1 && surface == 0 && depth > -0.03) albedo *= 0.72;    // wet sand and stone
    if (depth > 0.0) {
        // Follow the refracted sun ray back up to where it entered the water (n_water = 1.33);
        // the focus there (CPU: 1 / (1 + depth (1 - 1/1.33) lap(eta))) scales the light, and the
        // path down, depth / cos(refracted angle), attenuates it.
        vec2 entry = xz + sun.xz / sun.y * depth * 0.75;
        float focus = mix(1.0, 3.0 * texture(water_extra, entry / pool_size).g, caustic_strength);
        float cos_t = sqrt(1.0 - (1.0 - sun.y * sun.y) / (1.33 * 1.33));
        sun_light *= focus * transmittance(depth / cos_t);
    }
#endif
    vec3 col = albedo * sky_ambient(n) * 0.45 + blinn_phong(n, v, sun, sun_light, albedo, spec);
    col += lamps(world_position, n, v, albedo, spec);
    frag_color = vec4(haze(col, world_position), 1.0);
}
