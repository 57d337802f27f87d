// Planes: a large quad centred under the camera target; its corners come from gl_VertexID.
#version 450 core

uniform mat4 u_view_proj;
uniform vec3 u_center;
uniform vec3 u_axis_u;  // u x v = plane normal, so the strip below faces along the normal
uniform vec3 u_axis_v;
uniform float u_half_size;

out vec3 v_world;

const vec2 kCorners[4] = vec2[](vec2(-1.0, -1.0), vec2(1.0, -1.0), vec2(-1.0, 1.0), vec2(1.0, 1.0));

void main() {
  vec2 c = kCorners[gl_VertexID];
  v_world = u_center + (c.x * u_axis_u + c.y * u_axis_v) * u_half_size;
  gl_Position = u_view_proj * vec4(v_world, 1.0);
}
