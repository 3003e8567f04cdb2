#version 330 core
// The water surface: refraction of the scene below (screen texture looked up with an offset from
// the surface normal, scaled by the water depth), absorption, sky reflection (cube map) with a
// Fresnel term, sun and lamp highlights, foam. Debug mode 1 shows the depth as a colour map.
in vec3 world_position;
out vec4 frag_color;

uniform sampler2D water;             // r: eta, g: depth h, b: d(eta)/dx, a: d(eta)/dz
uniform sampler2D water_extra;       // r: foam
uniform vec2 pool_size;
uniform sampler2D scene_color;
uniform sampler2D scene_depth;
uniform samplerCube sky;
uniform mat4 view;
uniform vec2 viewport;
uniform float near;
uniform float far;
uniform vec3 camera_position;
uniform vec3 sun_direction;
uniform vec3 sun_color;
#ifndef LIGHTS
#define LIGHTS 4                  // the renderer compiles with the level's number of point lights
#endif
uniform vec3 light_position[4];
uniform vec3 light_color[4];
uniform float light_radius[4];
uniform float refraction_strength;   // screen-space offset per unit normal tilt per metre of water
uniform vec3 absorption;             // per metre
uniform vec3 deep_color;
uniform float max_depth;             // colour-map range for the depth view, m
uniform int debug_mode;

// integer powers by squaring: llvmpipe's pow() is exp2(log2) and dominated this shader
float pow5(float x) { float x2 = x * x; return x2 * x2 * x; }
float pow16(float x) { x *= x; x *= x; x *= x; return x * x; }

float linear_depth(float d) {
    float z = d * 2.0 - 1.0;
    return 2.0 * near * far / (far + near - z * (far - near));
}

vec3 ramp(float t) {   // blue -> cyan -> green -> yellow -> red
    t = clamp(t, 0.0, 1.0);
    return clamp(vec3(1.5 - abs(4.0 * t - 3.0), 1.5 - abs(4.0 * t - 2.0), 1.5 - abs(4.0 * t - 1.0)), 0.0, 1.0);
}

void main() {
    // the surface at this pixel, from the height field (bilinear between cell centres)
    vec2 wuv = world_position.xz / pool_size;
    vec4 wt = texture(water, wuv);
    vec2 foam_depth = vec2(texture(water_extra, wuv).r, wt.g);
    vec3 surface_normal = vec3(-wt.b, 1.0, -wt.a);
    if (debug_mode == 1) {
        vec3 c = ramp(foam_depth.y / max_depth);
        float grid = step(0.94, max(fract(world_position.x / 0.25), fract(world_position.z / 0.25)));
        frag_color = vec4(c * (1.0 - 0.25 * grid), 1.0);
        return;
    }
    vec3 n = normalize(surface_normal);
    vec3 v = normalize(camera_position - world_position);
    if (dot(v, n) < 0.0) n = -n;     // seen from below the surface

    // refraction: where the ray through this pixel meets the scene behind the surface
    vec2 suv = gl_FragCoord.xy / viewport;
    float zw = linear_depth(gl_FragCoord.z);
    float thick = max(linear_depth(texture(scene_depth, suv).r) - zw, 0.0);
    vec3 nv = mat3(view) * vec3(n.x, 0.0, n.z);   // the tilt away from flat: still water bends nothing
    vec2 ruv = clamp(suv + nv.xy * refraction_strength * min(thick, 1.5), vec2(0.001), vec2(0.999));
    float thick2 = linear_depth(texture(scene_depth, ruv).r) - zw;
    if (thick2 < 0.0) { ruv = suv; } else { thick = thick2; }   // never pull in what is above water
    vec3 transmit = exp(-absorption * thick);
    vec3 refracted = texture(scene_color, ruv).rgb * transmit + deep_color * (1.0 - transmit);

    // reflection of the sky, Fresnel (Schlick, water n = 1.33: F0 = 0.02)
    vec3 r = reflect(-v, n);
    r.y = abs(r.y);
    float f = 0.02 + 0.98 * pow5(1.0 - max(dot(n, v), 0.0));
    vec3 col = mix(refracted, texture(sky, r).rgb, f);

    vec3 h = normalize(normalize(sun_direction) + v);
    float nh = max(dot(n, h), 0.0);
    float n80 = pow5(pow16(nh)), n800 = pow5(n80 * n80);      // nh^80, nh^800
    col += sun_color * (n800 * 6.0 + n80 * 0.10);
    for (int i = 0; i < LIGHTS; ++i) {
        vec3 d = light_position[i] - world_position;
        float dist = length(d);
        float fall = clamp(1.0 - dist / light_radius[i], 0.0, 1.0);
        vec3 hl = normalize(d / max(dist, 1e-4) + v);
        col += light_color[i] * fall * fall * pow(max(dot(n, hl), 0.0), 300.0) * 2.0;
    }
    float foam = foam_depth.x;
    if (foam > 0.01) {   // froth broken into blobs so it does not read as paint
        vec2 q = world_position.xz * 60.0;
        float blob = fract(sin(dot(floor(q), vec2(12.9898, 78.233))) * 43758.5453);
        col = mix(col, vec3(0.93, 0.96, 0.97), clamp(foam * (0.5 + 0.8 * blob), 0.0, 0.9));
    }
    frag_color = vec4(col, 1.0);
}
