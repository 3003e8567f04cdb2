#version 330 core
// Shards under the water surface, drawn once more after the water and added to it: the flash of
// their facets and their rims, dimmed by the water on the light's way down and back up. The glass
// pass drew them into the scene before the water, whose refraction, absorption over the whole
// column (the path to the bed: shards write no depth) and sky reflection leave only a faint
// image; this keeps a glint on top of it. Additive, so the order of the shards does not matter.
in vec3 world_position;
in vec3 world_normal;
in vec3 bary;
in vec4 tint;
in float level;
in float fade;
out vec4 frag_color;

#include "lighting.glsl"
#include "water_optics.glsl"

uniform sampler2D water;
uniform sampler2D scene_depth;    // the scene before the water: pool, bed, opaque bodies
uniform vec2 pool_size;
uniform vec2 viewport;

void main() {
    vec2 xz = world_position.xz;
    if (any(lessThan(xz, vec2(0.0))) || any(greaterThan(xz, pool_size))) discard;
    float depth = texture(water, xz / pool_size).r - world_position.y;
    if (depth <= 0.0) discard;                     // above the surface: the glass pass drew it
    // behind a wall, the bed or an opaque body (the water itself writes the depth buffer, so the
    // test is made by hand against the scene's depth)
    if (gl_FragCoord.z > texture(scene_depth, gl_FragCoord.xy / viewport).r + 1e-6) discard;
    vec3 n = normalize(world_normal);
    if (!gl_FrontFacing) n = -n;
    vec3 v = normalize(camera_position - world_position);
    vec3 sun = normalize(sun_direction);
    float flash = pow16(max(dot(n, normalize(sun + v)), 0.0));
    vec3 px = bary / max(fwidth(bary), vec3(1e-6));     // distance to the edges in pixels
    float rim = max(1.0 - smoothstep(0.0, 0.15, min(bary.x, min(bary.y, bary.z))),
                    1.0 - smoothstep(0.5, 1.5, min(px.x, min(px.y, px.z))));
    // Beer-Lambert on the sunlight's path down to the shard and the glint's path up to the eye
    vec3 t = transmittance(depth / max(sun.y, 0.2) + depth / max(v.y, 0.2));
    vec3 light = sun_color * max(sun.y, 0.0) + 0.5 * sky_zenith;
    frag_color = vec4((sun_color * flash * 1.5 + light * rim * 0.35) * t, fade);
}
