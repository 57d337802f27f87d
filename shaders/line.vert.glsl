// Debug overlay: coloured lines and points in world space (contacts, normals, impulses, drag spring,
// contact graph, joint frames, script paths).
#version 450 core

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_color;

uniform mat4 u_view_proj;
uniform float u_point_size;
uniform float u_depth_bias;  // clip-space depth (times w) towards the eye: marks on a surface win against it

out vec4 v_color;

void main() {
  v_color = a_color;
  gl_Position = u_view_proj * vec4(a_position, 1.0);
  gl_Position.z -= u_depth_bias * gl_Position.w;
  gl_PointSize = u_point_size;
}
