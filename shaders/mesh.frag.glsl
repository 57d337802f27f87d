// Bodies: a key light, a weak fill from the opposite side, sky/ground ambient and a small highlight.
#version 450 core

in vec3 v_world;
in vec3 v_normal;
in vec3 v_local;
in vec3 v_local_normal;
in vec4 v_color;
in vec4 v_params;

uniform vec3 u_eye;
uniform vec3 u_light_dir;  // unit, towards the light

out vec4 frag_color;

void main() {
  vec3 n = normalize(v_normal);
  if (!gl_FrontFacing) n = -n;  // wireframe mode draws back faces too
  vec3 to_eye = normalize(u_eye - v_world);

  vec3 base = v_color.rgb;
  // Mesh bodies in "normals" colouring: the body-frame normal as a colour (+x red, +y green, +z blue).
  if (v_params.w > 0.5) base = 0.5 + 0.5 * normalize(v_local_normal);
  // Alternate octants of the body frame are darker, so that spinning spheres and capsules show it.
  float octant = sign(v_local.x) * sign(v_local.y) * sign(v_local.z);
  base *= 1.0 - v_params.y * step(octant, -0.5);

  float key = max(dot(n, u_light_dir), 0.0);
  float fill = max(dot(n, -u_light_dir * vec3(1.0, 0.0, 1.0)), 0.0) * 0.18;
  vec3 ambient = mix(vec3(0.16, 0.15, 0.14), vec3(0.32, 0.35, 0.42), 0.5 + 0.5 * n.y);
  vec3 half_vector = normalize(u_light_dir + to_eye);
  float specular = pow(max(dot(n, half_vector), 0.0), 40.0) * 0.25 * step(0.0, key);

  vec3 color = base * (ambient + key * vec3(1.0, 0.97, 0.92) * 0.85 + fill) + specular;

  // Sleeping bodies (their colour is already desaturated and cold): faint diagonal bands in screen space,
  // so that "asleep" reads even where the colour alone would be ambiguous (a grey body, a dim layer).
  if (v_params.z > 0.5) {
    float band = step(0.5, fract((gl_FragCoord.x + gl_FragCoord.y) / 9.0));
    color *= 1.0 - 0.16 * band;
  }

  // Selection: tinted warm and lit up at the silhouette, visible from every side and on flat faces.
  float rim = pow(1.0 - max(dot(n, to_eye), 0.0), 2.0);
  color = mix(color, vec3(1.0, 0.88, 0.45), 0.35 * v_params.x);
  color += v_params.x * vec3(1.0, 0.8, 0.3) * rim * 0.9;

  frag_color = vec4(color, v_color.a);  // a < 1 only for the ghosts of other comparison lanes
}
