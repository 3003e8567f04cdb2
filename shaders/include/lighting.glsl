// Shared lighting: the sun, the sky's ambient light and up to LIGHTS point lamps (a compile-time
// constant, so llvmpipe runs no masked loop body for lamps that do not exist). Blinn-Phong.
// Integer powers are taken by squaring: llvmpipe's pow() is exp2(log2) and cost more than the
// rest of a shader.
#ifndef LIGHTS
#define LIGHTS 4
#endif
uniform vec3 camera_position;
uniform vec3 sun_direction;
uniform vec3 sun_color;
uniform vec3 sky_zenith;
uniform vec3 sky_horizon;
uniform vec3 light_position[4];
uniform vec3 light_color[4];
uniform float light_radius[4];

float pow5(float x) { float x2 = x * x; return x2 * x2 * x; }
float pow16(float x) { x *= x; x *= x; x *= x; return x * x; }
float pow64(float x) { x *= x; x *= x; x *= x; x *= x; x *= x; return x * x; }
float pow256(float x) { x = pow64(x); x *= x; return x * x; }

// a lamp's reach: (1 - r / radius)^2, zero beyond its radius
float lamp_falloff(float r, float radius) {
    float f = clamp(1.0 - r / radius, 0.0, 1.0);
    return f * f;
}

// diffuse + specular (n.h)^64 of one light of colour `light` from direction l
vec3 blinn_phong(vec3 n, vec3 v, vec3 l, vec3 light, vec3 albedo, float spec) {
    float nl = max(dot(n, l), 0.0);
    float s = nl > 0.0 ? pow64(max(dot(n, normalize(l + v)), 0.0)) : 0.0;
    return light * (albedo * nl + spec * s);
}

// the sky's light on a surface facing n: horizon colour sideways, zenith colour up
vec3 sky_ambient(vec3 n) { return mix(sky_horizon, sky_zenith, 0.5 + 0.5 * n.y); }

// every lamp's Blinn-Phong light at point p
vec3 lamps(vec3 p, vec3 n, vec3 v, vec3 albedo, float spec) {
    vec3 col = vec3(0.0);
    for (int i = 0; i < LIGHTS; ++i) {
        vec3 d = light_position[i] - p;
        float r = length(d);
        col += blinn_phong(n, v, d / max(r, 1e-4), light_color[i] * lamp_falloff(r, light_radius[i]), albedo, spec);
    }
    return col;
}

// sharp lamp highlights (n.h)^256 on a mirror-like surface (water, glass)
vec3 lamp_glints(vec3 p, vec3 n, vec3 v) {
    vec3 col = vec3(0.0);
    for (int i = 0; i < LIGHTS; ++i) {
        vec3 d = light_position[i] - p;
        float r = length(d);
        vec3 h = normalize(d / max(r, 1e-4) + v);
        col += light_color[i] * lamp_falloff(r, light_radius[i]) * pow256(max(dot(n, h), 0.0)) * 2.5;
    }
    return col;
}

// sun highlight on a mirror-like surface: a tight core (n.h)^800 and a soft sheen (n.h)^80
vec3 sun_glint(vec3 n, vec3 v, float core, float sheen) {
    float nh = max(dot(n, normalize(normalize(sun_direction) + v)), 0.0);
    float n80 = pow5(pow16(nh));
    return sun_color * (pow5(n80 * n80) * core + n80 * sheen);
}

// aerial haze towards the horizon colour with distance from the camera
vec3 haze(vec3 col, vec3 p) {
    return mix(col, sky_horizon, 1.0 - exp(-0.035 * length(camera_position - p)));
}
