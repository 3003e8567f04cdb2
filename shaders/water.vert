#version 330 core
// One point per quad of the height grid, made from gl_VertexID: no vertex buffer at all.
uniform int grid_nx;
flat out ivec2 quad;

void main() {
    quad = ivec2(gl_VertexID % (grid_nx - 1), gl_VertexID / (grid_nx - 1));
    gl_Position = vec4(0.0);
}
