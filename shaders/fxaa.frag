#version 330 core
#extension GL_ARB_gpu_shader5 : require       // textureGather of one channel in GLSL 3.30 (every GL 4 driver)
// Anti-aliasing, FXAA (after Lottes 2009): find the luma edge across the pixel and blend along it
// by how far the local contrast says the edge runs. Drawn at the frame's own size; upscale.frag
// (a plain copy, which llvmpipe runs on its fast linear path) scales the result to the output.
in vec2 ndc;
out vec4 frag_color;

uniform sampler2D frame_color;
uniform vec2 source_texel;          // 1 / frame size

// Green stands in for luma (FXAA's FXAA_GREEN_AS_LUMA): two textureGather reads of the green
// channel give the pixel and its eight neighbours but two (NW, SE), so a pixel with no edge costs
// three texture reads instead of five.
float luma(vec3 c) { return c.g; }

void main() {
    vec2 uv = ndc * 0.5 + 0.5;
    vec3 c = texture(frame_color, uv).rgb;
    vec2 t = source_texel;
    // gather order for the 2x2 texels around the point: (x0,y1), (x1,y1), (x1,y0), (x0,y0)
    vec4 lo4 = textureGather(frame_color, uv - 0.5 * t, 1);   // W, C, S, SW
    vec4 hi4 = textureGather(frame_color, uv + 0.5 * t, 1);   // N, NE, E, C
    float lm = hi4.w, lw = lo4.x, ls = lo4.z, ln = hi4.x, le = hi4.z;
    float lo = min(lm, min(min(lw, le), min(ls, ln)));
    float hi = max(lm, max(max(lw, le), max(ls, ln)));
    if (hi - lo < max(0.0312, hi * 0.125)) { frag_color = vec4(c, 1.0); return; }   // no edge here
    // the direction along the edge: perpendicular to the luma gradient (E - W, N - S)
    vec2 dir = vec2(ln - ls, lw - le);
    float reduce = max((ln + ls + le + lw) * 0.25 * 0.125, 1.0 / 128.0);
    float scale = 1.0 / (min(abs(dir.x), abs(dir.y)) + reduce);
    dir = clamp(dir * scale, vec2(-8.0), vec2(8.0)) * t;
    vec3 a = 0.5 * (texture(frame_color, uv + dir * (1.0 / 3.0 - 0.5)).rgb +
                    texture(frame_color, uv + dir * (2.0 / 3.0 - 0.5)).rgb);
    vec3 b = a * 0.5 + 0.25 * (texture(frame_color, uv - dir * 0.5).rgb + texture(frame_color, uv + dir * 0.5).rgb);
    float lb = luma(b);
    frag_color = vec4((lb < lo || lb > hi) ? a : b, 1.0);
}
