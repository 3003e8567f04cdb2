#version 330 core
// One point per quad of the height grid. With lod_blocks = 1 each point is a listed block
// (i, k, stride) from engine/render/water_lod.py: one quad over stride x stride cells, the stride
// chosen per tile (coarser far away and where the surface is flat). With lod_blocks = 0 the point
// is made from gl_VertexID on a uniform grid of grid_stride (no vertex buffer at all). Shading
// comes from every cell either way (per pixel).
layout(location = 0) in vec3 block;   // i, k, stride (whole numbers)
uniform int grid_nx;
uniform int grid_stride;
uniform int lod_blocks;
flat out ivec3 quad;

void main() {
    if (lod_blocks == 1) {
        quad = ivec3(block + 0.5);
    } else {
        int bx = (grid_nx - 1 + grid_stride - 1) / grid_stride;    // blocks per row
        quad = ivec3(ivec2(gl_VertexID % bx, gl_VertexID / bx) * grid_stride, grid_stride);
    }
    gl_Position = vec4(0.0);
}
