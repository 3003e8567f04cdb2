#version 330 core
// Water held in a bottle: the inner surface below the fill level. The level is a horizontal plane
// in the world, so it tilts against the bottle. Back faces below the plane stand in for the liquid's
// flat top (the classic single-pass bottle-liquid trick).
in vec3 world_position;
in vec3 world_normal;
in vec3 bary;
in vec4 tint;
in float level;
out vec4 frag_color;

uniform sampler2D water;
uniform vec2 pool_size;
uniform vec3 camera_position;
uniform vec3 sun_direction;
uniform vec3 sun_color;
uniform int clip_side;
uniform vec3 deep_color;

float surface_at(vec2 xz) {
    if (any(lessThan(xz, vec2(0.0))) || any(greaterThan(xz, pool_size))) return -1e9;
    return texture(water, xz / pool_size).r;
}

void main() {
    if (world_position.y > level) discard;
    if (clip_side != 0) {
        float s = world_position.y - surface_at(world_position.xz);
        if (clip_side < 0 && s > 0.0) discard;
        if (clip_side > 0 && s <= 0.0) discard;
    }
    vec3 n = gl_FrontFacing ? normalize(world_normal) : vec3(0.0, 1.0, 0.0);
    vec3 v = normalize(camera_position - world_position);
    vec3 sun = normalize(sun_direction);
    float f = 0.02 + 0.98 * pow(1.0 - max(dot(n, v), 0.0), 5.0);
    float spec = pow(max(dot(n, normalize(sun + v)), 0.0), 200.0) * 2.0;
    vec3 col = mix(deep_color * 1.6 + vec3(0.05, 0.12, 0.12), vec3(0.75, 0.85, 0.9), f) + sun_color * spec;
    if (!gl_FrontFacing) col += vec3(0.08, 0.1, 0.1);
    frag_color = vec4(col, 0.55 + 0.3 * f);
}
