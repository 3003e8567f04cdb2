#version 330 core
// Anti-aliasing, FXAA (after Lottes 2009): find the luma edge across the pixel and blend along it
// by how far the local contrast says the edge runs. Drawn at the frame's own size; upscale.frag
// (a plain copy, which llvmpipe runs on its fast linear path) scales the result to the output.
in vec2 ndc;
out vec4 frag_color;

uniform sampler2D frame_color;
uniform vec2 source_texel;          // 1 / frame size

float luma(vec3 c) { return dot(c, vec3(0.299, 0.587, 0.114)); }

void main() {
    vec2 uv = ndc * 0.5 + 0.5;
    vec3 c = texture(frame_color, uv).rgb;
    vec2 t = source_texel;
    float lm = luma(c);
    float lnw = luma(texture(frame_color, uv + vec2(-t.x, -t.y)).rgb);
    float lne = luma(texture(frame_color, uv + vec2(t.x, -t.y)).rgb);
    float lsw = luma(texture(frame_color, uv + vec2(-t.x, t.y)).rgb);
    float lse = luma(texture(frame_color, uv + vec2(t.x, t.y)).rgb);
    float lo = min(lm, min(min(lnw, lne), min(lsw, lse)));
    float hi = max(lm, max(max(lnw, lne), max(lsw, lse)));
    if (hi - lo < max(0.0312, hi * 0.125)) { frag_color = vec4(c, 1.0); return; }   // no edge here
    // the direction along the edge (perpendicular to the luma gradient)
    vec2 dir = vec2(-((lnw + lne) - (lsw + lse)), (lnw + lsw) - (lne + lse));
    float reduce = max((lnw + lne + lsw + lse) * 0.25 * 0.125, 1.0 / 128.0);
    float scale = 1.0 / (min(abs(dir.x), abs(dir.y)) + reduce);
    dir = clamp(dir * scale, vec2(-8.0), vec2(8.0)) * t;
    vec3 a = 0.5 * (texture(frame_color, uv + dir * (1.0 / 3.0 - 0.5)).rgb +
                    texture(frame_color, uv + dir * (2.0 / 3.0 - 0.5)).rgb);
    vec3 b = a * 0.5 + 0.25 * (texture(frame_color, uv - dir * 0.5).rgb + texture(frame_color, uv + dir * 0.5).rgb);
    float lb = luma(b);
    frag_color = vec4((lb < lo || lb > hi) ? a : b, 1.0);
}
