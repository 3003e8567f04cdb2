#version 330 core
// Debug lines: velocity arrows, bounding boxes, contact crosses.
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 color;

uniform mat4 view_projection;
out vec3 line_color;

void main() {
    line_color = color;
    gl_Position = view_projection * vec4(position, 1.0);
}
