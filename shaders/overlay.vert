#version 330 core
// A screen-space rectangle (a legend, a label): `rect` is (x0, y0, x1, y1) in normalised device
// coordinates; two triangles from gl_VertexID, texture coordinates with v = 0 at the top.
uniform vec4 rect;
out vec2 overlay_uv;

void main() {
    const vec2 corners[6] = vec2[6](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));
    vec2 c = corners[gl_VertexID];
    overlay_uv = vec2(c.x, 1.0 - c.y);
    gl_Position = vec4(mix(rect.xy, rect.zw, c), 0.0, 1.0);
}
