#version 450 core

in vec4 v_color;

uniform float u_alpha;        // fainter for the pass behind bodies
uniform int u_round_points;   // points are drawn as discs rather than squares

out vec4 frag_color;

void main() {
  if (u_round_points == 1) {
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    if (dot(p, p) > 1.0) discard;
  }
  frag_color = vec4(v_color.rgb, v_color.a * u_alpha);
}
