#version 330 core
// Tiled basin: diffuse + specular maps, Blinn-Phong with the sun and up to 4 point lights, and
// under water, caustics focused by the surface curvature and light absorbed on its way down.
in vec3 world_position;
in vec3 world_normal;
in vec2 tile_uv;
flat in int surface;
out vec4 frag_color;

uniform sampler2D tile_diffuse;   // rgb: glazed tile colour, a: specular (gloss) map
uniform sampler2D water;          // r: surface height eta
uniform sampler2D water_extra;    // g: caustic focus / 3, computed from the surface curvature
uniform vec2 pool_size;           // nx * dx, nz * dx
uniform vec3 camera_position;
uniform vec3 sun_direction;
uniform vec3 sun_color;
uniform vec3 sky_zenith;
uniform vec3 sky_horizon;
#ifndef LIGHTS
#define LIGHTS 4                  // the renderer compiles with the level's number of point lights
#endif
uniform vec3 light_position[4];
uniform vec3 light_color[4];
uniform float light_radius[4];
uniform float caustic_strength;
uniform vec3 absorption;          // per metre, r g b
uniform vec3 deck_tint;

float eta_at(vec2 xz) { return texture(water, xz / pool_size).r; }

// x^64 by six squarings: llvmpipe's pow() (exp2 of log2) cost more than all the rest of this shader
float pow64(float x) { x *= x; x *= x; x *= x; x *= x; x *= x; return x * x; }

vec3 blinn_phong(vec3 n, vec3 v, vec3 l, vec3 light, vec3 albedo, float spec) {
    float nl = max(dot(n, l), 0.0);
    vec3 h = normalize(l + v);
    float s = nl > 0.0 ? pow64(max(dot(n, h), 0.0)) : 0.0;
    return light * (albedo * nl + spec * s);
}

void main() {
    vec3 n = normalize(world_normal);
    vec3 v = normalize(camera_position - world_position);
    vec4 tile = texture(tile_diffuse, tile_uv);
    vec3 albedo = tile.rgb;
    float spec = tile.a;
    if (surface == 1) { albedo *= deck_tint; spec *= 0.25; }
    if (surface == 2) { albedo *= deck_tint * 0.7; spec = 0.05; }
    vec3 sun = normalize(sun_direction);
    vec3 sun_light = sun_color;

    bool inside = surface == 0 && all(greaterThan(world_position.xz, vec2(0.0))) &&
                  all(lessThan(world_position.xz, pool_size));
    float depth = inside ? eta_at(world_position.xz) - world_position.y : -1.0;
    if (depth > 0.0) {
        // Follow the refracted sun ray back up to where it entered the water (n_water = 1.33);
        // the focus there (CPU: 1 / (1 + depth (1 - 1/1.33) lap(eta))) scales the light.
        vec2 entry = world_position.xz + sun.xz / sun.y * depth * 0.75;
        float focus = mix(1.0, 3.0 * texture(water_extra, entry / pool_size).g, caustic_strength);
        sun_light *= focus * exp(-absorption * depth);
    }
    vec3 ambient = albedo * mix(sky_horizon, sky_zenith, 0.5 + 0.5 * n.y) * 0.45;
    vec3 col = ambient + blinn_phong(n, v, sun, sun_light, albedo, spec);
    for (int i = 0; i < LIGHTS; ++i) {   // a constant bound: no lights, no loop
        vec3 d = light_position[i] - world_position;
        float r = length(d);
        float fall = clamp(1.0 - r / light_radius[i], 0.0, 1.0);
        col += blinn_phong(n, v, d / max(r, 1e-4), light_color[i] * fall * fall, albedo, spec);
    }
    // aerial haze towards the horizon colour
    float haze = 1.0 - exp(-0.035 * length(camera_position - world_position));
    frag_color = vec4(mix(col, sky_horizon, haze), 1.0);
}
