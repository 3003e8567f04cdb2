#version 330 core
// The water surface. Looking down through it: the scene behind (screen texture looked up with an
// offset from the surface normal, scaled by the water depth: refraction), seen through the path
// the refracted ray travels in the water, depth / cos(refracted angle), with Beer-Lambert
// absorption and in-scattering (water_optics.glsl): an island, a beach and the deep end differ at
// a glance. Looking at it: the sky cube map by Fresnel (Schlick), sun and lamp glints. On top:
// splash foam, shoreline foam, and streaks carried along by the velocity (a two-phase flow map).
// Debug views 1-3 colour the depth, the divergence or the vorticity by the legend's palette; they
// are a program of their own (DEBUG_VIEW defined): llvmpipe runs every branch for every pixel, so
// a branch on debug_mode would cost the picture the debug view's reads. Likewise the foam is left
// out (NO_FOAM defined) of the program that draws the tiles with no foam and no flow fast enough
// to streak (Renderer._pass_water picks the tiles).
in vec3 world_position;
out vec4 frag_color;

#include "lighting.glsl"
#include "water_optics.glsl"

uniform sampler2D water;             // r: eta, g: depth h, b: d(eta)/dx, a: d(eta)/dz
uniform sampler2D water_extra;       // r: foam (splashes and shoreline), g: caustic focus / 3,
                                     // b, a: cell-centred velocity (u, w) as 0.5 + v / (2 velocity_range)
uniform float velocity_range;        // m/s
uniform sampler2D streaks;           // r: tiling foam pattern
uniform sampler2D debug_field;       // r: the field a debug view shows
uniform sampler2D palette;           // row 0: sequential (depth), row 1: diverging (signed fields)
uniform vec2 pool_size;
uniform sampler2D scene_color;
uniform sampler2D scene_depth;
uniform samplerCube sky;
uniform mat4 view;
uniform vec2 viewport;
uniform float near;
uniform float far;
uniform float refraction_strength;   // screen-space offset per unit normal tilt per metre of water
uniform vec4 scene_box;              // the part of scene_color / scene_depth resolved this frame (uv min, max)
uniform float foam_strength;
uniform float time;
uniform vec3 water_light;            // the light in the water that scattering sends back (sun + sky)
uniform vec2 field_range;            // debug view: the field values at the palette's two ends
uniform int debug_mode;              // 0 picture, 1 depth, 2 divergence, 3 vorticity

float linear_depth(float d) {
    float z = d * 2.0 - 1.0;
    return 2.0 * near * far / (far + near - z * (far - near));
}

#ifdef DEBUG_VIEW
vec4 debug_view(vec4 wt) {
    bool signed_field = debug_mode != 1;
    float value = debug_mode == 1 ? wt.g : texture(debug_field, world_position.xz / pool_size).r;
    float t = clamp((value - field_range.x) / (field_range.y - field_range.x), 0.0, 1.0);
    vec3 c = texture(palette, vec2(t, signed_field ? 0.75 : 0.25)).rgb;
    // depth: a contour every 5 cm; every view: a faint 25 cm grid to read distances by
    float lines = 0.0;
    if (!signed_field) {   // one pixel wide, whatever the slope: distance to the contour in pixels
        float q = value / 0.05;
        lines = (1.0 - clamp(abs(fract(q + 0.5) - 0.5) / max(fwidth(q), 1e-5), 0.0, 1.0)) * 0.45;
    }
    float grid = step(0.96, max(fract(world_position.x / 0.25), fract(world_position.z / 0.25)));
    return vec4(c * (1.0 - lines) * (1.0 - 0.2 * grid), 1.0);
}
#endif

void main() {
    vec2 wuv = world_position.xz / pool_size;
    vec4 wt = texture(water, wuv);
#ifdef DEBUG_VIEW
    frag_color = debug_view(wt);
    return;
#endif
    vec4 extra = texture(water_extra, wuv);
    vec3 n = normalize(vec3(-wt.b, 1.0, -wt.a));
    vec3 v = normalize(camera_position - world_position);
    if (dot(v, n) < 0.0) n = -n;     // seen from below the surface

    // refraction: where the ray through this pixel meets the scene behind the surface
    vec2 suv = gl_FragCoord.xy / viewport;
    float zw = linear_depth(gl_FragCoord.z);
    float thick = max(linear_depth(texture(scene_depth, suv).r) - zw, 0.0);
    vec3 nv = mat3(view) * vec3(n.x, 0.0, n.z);   // the tilt away from flat: still water bends nothing
    vec2 ruv = clamp(suv + nv.xy * refraction_strength * min(thick, 1.5), scene_box.xy, scene_box.zw);
    float thick2 = linear_depth(texture(scene_depth, ruv).r) - zw;
    if (thick2 < 0.0) { ruv = suv; } else { thick = thick2; }   // never pull in what is above water
    // the refracted ray's path to the bed, depth / cos(theta_t) (Snell, n = 1.33), no longer than
    // the distance to whatever it meets first (a wall, an obstacle, a bottle)
    vec3 rr = refract(-v, n, 1.0 / 1.33);
    float path = min(wt.g / max(-rr.y, 0.15), thick * 1.2);
    vec3 refracted = through_water(texture(scene_color, ruv).rgb, path, water_light);

    // reflection of the sky, Fresnel (Schlick, water n = 1.33: F0 = 0.02)
    vec3 r = reflect(-v, n);
    r.y = abs(r.y);
    float f = 0.02 + 0.98 * pow5(1.0 - max(dot(n, v), 0.0));
    vec3 col = mix(refracted, texture(sky, r).rgb, f);
    col += sun_glint(n, v, 6.0, 0.10) + lamp_glints(world_position, n, v);

    // foam: splashes and the shoreline (CPU field), and streaks advected by the flow. The streak
    // pattern is read at two offsets along -velocity that grow with time and restart half a period
    // apart, cross-faded so the restart never shows (a flow map): it visibly drifts downstream.
    // (The test spares nothing on llvmpipe, which runs both sides of a branch; NO_FOAM does.)
    float foam = 0.0;
#ifndef NO_FOAM
    vec2 vel = (extra.ba * (255.0 / 127.0) - 128.0 / 127.0) * velocity_range;
    float speed = length(vel);
    if (speed > 0.06 || extra.r > 0.004) {
        const float period = 2.0;
        float p0 = fract(time / period), p1 = fract(time / period + 0.5);
        float s0 = texture(streaks, (world_position.xz - vel * p0 * period) * 1.3).r;
        float s1 = texture(streaks, (world_position.xz - vel * p1 * period) * 1.3 + 0.37).r;
        float pattern = mix(s0, s1, abs(2.0 * p0 - 1.0));
        float flow = smoothstep(0.06, 0.45, speed) * smoothstep(0.45, 0.8, pattern);
        float still = extra.r * smoothstep(0.2, 0.7, pattern + 0.3 * extra.r);   // broken into patches
        foam = clamp((still + flow * 0.7) * foam_strength, 0.0, 0.92);
    }
#endif
    vec3 froth = vec3(0.93, 0.96, 0.97) * (0.55 + 0.45 * max(normalize(sun_direction).y, 0.0)) + 0.1;
    col = mix(col, froth, foam);
    frag_color = vec4(col, 1.0);
}
