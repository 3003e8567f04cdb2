#version 330 core
// Spray droplets as round point sprites sized by distance.
layout(location = 0) in vec3 position;
layout(location = 1) in vec2 life_size;   // x: remaining life 0..1, y: droplet size, m

uniform mat4 view_projection;
uniform float viewport_height;
uniform float focal;                      // projection[1][1]

out float fade;

void main() {
    vec4 clip = view_projection * vec4(position, 1.0);
    gl_Position = clip;
    gl_PointSize = clamp(life_size.y * focal * viewport_height * 0.5 / max(clip.w, 1e-3), 1.5, 24.0);
    fade = life_size.x;
}
