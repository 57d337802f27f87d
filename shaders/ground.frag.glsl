// Planes: a lit surface with an anti-aliased grid (minor and every-tenth major lines), soft blob
// shadows under the bodies and fog into the background towards the horizon.
#version 450 core

const int kMaxBlobs = 64;  // must match Renderer

in vec3 v_world;

uniform vec3 u_eye;
uniform vec3 u_normal;
uniform vec3 u_axis_u;
uniform vec3 u_axis_v;
uniform vec3 u_light_dir;
uniform vec3 u_color;
uniform vec3 u_background;
uniform float u_show_grid;
uniform float u_spacing;   // m between minor lines
uniform float u_fog_start;
uniform float u_fog_end;
uniform float u_highlight;
uniform int u_blob_count;
uniform vec4 u_blobs[kMaxBlobs];        // xyz: centre projected on the plane, w: footprint radius
uniform vec4 u_blob_params[kMaxBlobs];  // x: darkness, y: outer radius of the penumbra

out vec4 frag_color;

// 1 on a grid line, 0 between lines; the line is about one pixel wide at any distance.
float grid_lines(vec2 coord) {
  vec2 width = fwidth(coord);
  vec2 g = abs(fract(coord - 0.5) - 0.5) / max(width, vec2(1e-6));
  float line = 1.0 - min(min(g.x, g.y), 1.0);
  // Fade out where cells shrink below a few pixels, which would otherwise shimmer (moire).
  return line * (1.0 - smoothstep(0.15, 0.5, max(width.x, width.y)));
}

void main() {
  vec2 coord = vec2(dot(v_world, u_axis_u), dot(v_world, u_axis_v)) / u_spacing;
  float diffuse = max(dot(u_normal, u_light_dir), 0.0);
  vec3 color = u_color * (0.45 + 0.5 * diffuse);

  float shadow = 1.0;
  for (int i = 0; i < u_blob_count; ++i) {
    float d = distance(v_world, u_blobs[i].xyz);
    float s = u_blob_params[i].x * (1.0 - smoothstep(0.35 * u_blobs[i].w, u_blob_params[i].y, d));
    shadow *= 1.0 - s;
  }
  color *= shadow;

  float minor = grid_lines(coord);
  float major = grid_lines(coord / 10.0);
  color = mix(color, color * 0.62, u_show_grid * minor * 0.7);
  color = mix(color, color * 0.45, u_show_grid * major);

  color += u_highlight * vec3(0.08, 0.06, 0.02);
  float fog = smoothstep(u_fog_start, u_fog_end, distance(u_eye, v_world));
  frag_color = vec4(mix(color, u_background, fog), 1.0);
}
