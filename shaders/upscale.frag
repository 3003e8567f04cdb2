#version 330 core
// Scale the frame up to the output size: one bilinear tap per output pixel (a plain texture copy,
// which llvmpipe runs on its fast linear path; glBlitFramebuffer with GL_LINEAR was slower).
in vec2 ndc;
out vec4 frag_color;

uniform sampler2D frame_color;

void main() {
    frag_color = vec4(texture(frame_color, ndc * 0.5 + 0.5).rgb, 1.0);
}
