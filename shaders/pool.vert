#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec2 uv;
layout(location = 3) in float material;

uniform mat4 view_projection;

out vec3 world_position;
out vec3 world_normal;
out vec2 tile_uv;
flat out int surface;

void main() {
    world_position = position;
    world_normal = normal;
    tile_uv = uv;
    surface = int(material + 0.5);
    gl_Position = view_projection * vec4(position, 1.0);
}
