// Light in water (Beer-Lambert): along a path of length L a beam keeps T = exp(-(a + s) L) of
// itself, a = absorption and s = scattering per metre (r, g, b); what the path scatters towards
// the eye is the water's scatter colour lit by the light around it, times (1 - T). Pure water
// takes red first, so deep water turns blue-green and shallow water stays clear.
uniform vec3 absorption;        // 1/m
uniform vec3 scattering;        // 1/m
uniform vec3 scatter_color;

vec3 transmittance(float path) { return exp(-(absorption + scattering) * max(path, 0.0)); }

// what is seen through `path` metres of water of what lies behind it, lit by `light`
vec3 through_water(vec3 behind, float path, vec3 light) {
    vec3 t = transmittance(path);
    return behind * t + scatter_color * light * (1.0 - t);
}
