#version 330 core
// Draw an RGBA image over the frame (alpha-blended).
in vec2 overlay_uv;
out vec4 frag_color;
uniform sampler2D overlay_image;

void main() {
    frag_color = texture(overlay_image, overlay_uv);
}
