#version 330 core
// Glass: mostly transparent, tinted, with Fresnel-weighted sky reflection and sharp sun
// highlights; shards brighten their edges. clip_side splits bodies at the water surface so the
// part under water is drawn before the surface (and refracted by it), the rest after it.
in vec3 world_position;
in vec3 world_normal;
in vec3 bary;
in vec4 tint;
in float level;
in float fade;                    // the whole body's opacity scales by it (a shard fading out)
out vec4 frag_color;

#include "lighting.glsl"

uniform sampler2D water;
uniform samplerCube sky;
uniform vec2 pool_size;
uniform int clip_side;            // 0 all, -1 keep below the water surface, +1 keep above it
uniform float edge_strength;
uniform float sparkle;            // 1 for shards: facets flash the light, rims glow (0 bottles, props)

float surface_at(vec2 xz) {
    if (any(lessThan(xz, vec2(0.0))) || any(greaterThan(xz, pool_size))) return -1e9;
    return texture(water, xz / pool_size).r;
}

void main() {
    if (clip_side != 0) {
        float s = world_position.y - surface_at(world_position.xz);
        if (clip_side < 0 && s > 0.0) discard;
        if (clip_side > 0 && s <= 0.0) discard;
    }
    vec3 n = normalize(world_normal);
    if (!gl_FrontFacing) n = -n;
    vec3 v = normalize(camera_position - world_position);
    float nv = max(dot(n, v), 0.0);
    float f = 0.04 + 0.96 * pow5(1.0 - nv);              // Schlick, glass n = 1.5
    vec3 refl = texture(sky, reflect(-v, n)).rgb;
    vec3 sun = normalize(sun_direction);
    vec3 glint = sun_glint(n, v, 8.0, 0.25);
    float spec = dot(glint, vec3(0.333)) / max(dot(sun_color, vec3(0.333)), 1e-3);
    vec3 col = tint.rgb * (0.35 + 0.4 * max(dot(n, sun), 0.0)) + refl * f + glint;
    col += lamp_glints(world_position, n, v) * 1.2;
    float edge = 1.0 - smoothstep(0.0, 0.08, min(bary.x, min(bary.y, bary.z)));
    col += vec3(0.6, 0.8, 0.7) * edge * edge_strength;
    float alpha = clamp(tint.a + f * 0.6 + spec * 0.5 + edge * edge_strength * 0.5, 0.0, 1.0);
    if (sparkle > 0.0) {
        // A shard is a few cm (a few pixels at play distance): each flat facet is a small mirror
        // that must flash over a wide angle, so the sun lobe is broad, (n.h)^16, on top of the
        // sharp glint; the rim (barycentric distance < 0.15) glows white; a facet lit or seen
        // edge-on keeps a floor of sky reflection, f >= 0.3, so an unlit shard still reads as glass.
        float nh = max(dot(n, normalize(sun + v)), 0.0);
        float flash = pow16(nh);
        float b = min(bary.x, min(bary.y, bary.z));
        // the rim is 7% of the facet or at least ~1 pixel (distance to the edge in pixels,
        // bary / fwidth(bary)), so it survives on a shard a few pixels across without MSAA
        vec3 px = bary / max(fwidth(bary), vec3(1e-6));
        float rim = max(1.0 - smoothstep(0.0, 0.07, b), 1.0 - smoothstep(0.5, 1.5, min(px.x, min(px.y, px.z))));
        // inside the bright rim a dark band, the edge seen through the glass's thickness (a long
        // path in green glass): it outlines a shard on a pale floor where white alone would not
        float band = smoothstep(0.05, 0.08, b) * (1.0 - smoothstep(0.14, 0.2, b));
        float fs = max(f, 0.3);
        col += sparkle * (sun_color * flash * 2.5 + refl * (fs - f) + vec3(1.0) * rim * 0.9);
        col = mix(col, vec3(0.05, 0.22, 0.12), sparkle * band * (1.0 - flash) * 0.8);
        alpha = max(alpha, sparkle * clamp(0.55 + 0.45 * flash + 0.4 * (rim + band), 0.0, 1.0));
    }
    frag_color = vec4(col, alpha * fade);
}
