#version 330 core
in float fade;
out vec4 frag_color;

uniform vec3 sun_color;

void main() {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0) discard;
    float shade = 0.75 + 0.25 * (1.0 - r2) - 0.15 * p.y;
    vec3 col = mix(vec3(0.70, 0.85, 0.90), vec3(1.0), shade - 0.5) * (0.6 + 0.4 * sun_color);
    frag_color = vec4(col, clamp(fade * 1.5, 0.0, 1.0) * (1.0 - r2 * 0.5) * 0.85);
}
