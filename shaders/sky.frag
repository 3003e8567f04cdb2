#version 330 core
in vec2 ndc;
out vec4 frag_color;

uniform mat4 inverse_view_projection;
uniform samplerCube sky;
uniform vec3 sun_direction;
uniform vec3 sun_color;

void main() {
    vec4 a = inverse_view_projection * vec4(ndc, -1.0, 1.0);
    vec4 b = inverse_view_projection * vec4(ndc, 1.0, 1.0);
    vec3 d = normalize(b.xyz / b.w - a.xyz / a.w);
    vec3 col = texture(sky, d).rgb;
    float c = max(dot(d, normalize(sun_direction)), 0.0);
    col += sun_color * smoothstep(0.9995, 0.9998, c);   // the sun's disc, sharper than the cube map
    frag_color = vec4(col, 1.0);
}
