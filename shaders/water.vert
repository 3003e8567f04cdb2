#version 330 core
// One point per quad of the height grid, made from gl_VertexID: no vertex buffer at all. With a
// stride above 1 (far away, cells smaller than a pixel or two) each point stands for a block of
// stride x stride cells, drawn as one quad; shading still comes from every cell (per pixel).
uniform int grid_nx;
uniform int grid_stride;
flat out ivec2 quad;

void main() {
    int bx = (grid_nx - 1 + grid_stride - 1) / grid_stride;    // blocks per row
    quad = ivec2(gl_VertexID % bx, gl_VertexID / bx) * grid_stride;
    gl_Position = vec4(0.0);
}
