#version 330 core
// Instanced bodies: glass bottles, shards and the water they hold.
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec3 barycentric;
layout(location = 3) in vec4 model_c0;
layout(location = 4) in vec4 model_c1;
layout(location = 5) in vec4 model_c2;
layout(location = 6) in vec4 model_c3;
layout(location = 7) in vec4 instance_tint;   // rgb tint, alpha
layout(location = 8) in float fill_level;     // world height of the held water's surface
layout(location = 9) in float instance_fade;  // 1 drawn whole .. 0 gone (a shard past the cap fading out)

uniform mat4 view_projection;

out vec3 world_position;
out vec3 world_normal;
out vec3 bary;
out vec4 tint;
out float level;
out float fade;

void main() {
    mat4 model = mat4(model_c0, model_c1, model_c2, model_c3);
    vec4 p = model * vec4(position, 1.0);
    world_position = p.xyz;
    world_normal = mat3(model) * normal;
    bary = barycentric;
    tint = instance_tint;
    level = fill_level;
    fade = instance_fade;
    gl_Position = view_projection * p;
}
