// Bodies: one unit mesh per shape type (and one per triangle-mesh shape, at scale 1), drawn instanced.
// The instance carries the pose and the size.
#version 450 core

layout(location = 0) in vec3 a_position;  // on the unit shape
layout(location = 1) in vec3 a_normal;
layout(location = 2) in float a_side;     // capsule hemispheres: +1 / -1, moved by the half height
layout(location = 3) in mat4 i_model;     // rotation and translation (locations 3..6)
layout(location = 7) in vec4 i_scale;     // xyz: size of the unit mesh, w: capsule half height
layout(location = 8) in vec4 i_color;
layout(location = 9) in vec4 i_params;    // x: selection highlight, y: octant pattern strength, z: asleep,
                                          // w: colour by the body-frame normal (mesh bodies)

uniform mat4 u_view_proj;

out vec3 v_world;
out vec3 v_normal;
out vec3 v_local;
out vec3 v_local_normal;
out vec4 v_color;
out vec4 v_params;

void main() {
  // The scale is per axis, but only boxes use unequal axes and their normals are axis aligned,
  // so rotating the unit normal is enough (no inverse-transpose needed).
  vec3 local = a_position * i_scale.xyz + vec3(0.0, a_side * i_scale.w, 0.0);
  vec4 world = i_model * vec4(local, 1.0);
  v_world = world.xyz;
  v_normal = mat3(i_model) * a_normal;
  v_local = local;
  v_local_normal = a_normal;
  v_color = i_color;
  v_params = i_params;
  gl_Position = u_view_proj * world;
}
