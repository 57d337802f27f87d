// Draws the world with OpenGL 4.5: lit instanced meshes for the bodies, planes as large quads with a
// ground grid and soft blob shadows, and debug lines/points for contacts, impulses, the drag spring, the
// contact graph, joint frames, script paths and the volume solver's intersection volumes, vertex gradients and
// grid cells. Bodies can be coloured by contact group, stack height or stack layer; sleeping bodies are shaded
// apart. renderer.cpp draws the bodies and the planes, renderer_overlays.cpp the lines and points over them.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <glad/gl.h>
#include <glm/glm.hpp>

#include "viewer/meshes.h"
#include "viewer/viewer_state.h"

namespace cl {
struct MeshShape;
}

namespace cl::viewer {

// The triangles of a mesh shape as the body shader draws them (body frame, scale 1): three vertices per
// triangle, each with the area-weighted average of the normals of the triangles around that vertex that
// bend less than `crease_degrees` from its own (smooth on curved scans, sharp edges stay sharp).
MeshData make_shape_mesh(const MeshShape& shape, double crease_degrees = 50.0);

// Colour of a signed distance for the distance field slice: blue inside (d < 0), red outside, white at
// zero; `scale` is the distance of full saturation.
glm::vec3 distance_color(double d, double scale);

// Display colour of body `index`: a palette for dynamic bodies, greys for fixed and kinematic ones.
glm::vec3 body_color(const Body& body, int index);
// Colour of body `index` under the View panel's colouring (group, height, layer; not the sleep shading).
// `layer_role` holds per body 1 for the highlighted layer's bottom, 2 for its top, 0 otherwise.
glm::vec3 colored_body(const AppState& app, const World& world, int index, int max_height,
                       const std::vector<char>& layer_role);

// The automatic force scale follows a slowly decaying maximum of the reported contact forces, so the arrows
// keep a readable length without flickering from step to step. Call once per frame.
void update_force_reference(ViewState& view, const ContactReport& report);

class Renderer {
 public:
  Renderer() = default;
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;
  ~Renderer();

  // Needs a current GL 4.5 context. Loads the shaders from `shader_dir`; false with *error on failure.
  bool init(const std::string& shader_dir, std::string* error);
  // Clears and draws the scene into the current framebuffer of the given size (pixels): every comparison lane in
  // its own cell of the split layout, or the other lanes' bodies as ghosts over lane 1 in the overlaid one.
  void draw(const AppState& app, int fb_width, int fb_height);

  static constexpr glm::vec3 kBackground{0.19f, 0.21f, 0.25f};

 private:
  struct GpuMesh {
    GLuint vao = 0, vertices = 0, indices = 0, instances = 0;
    GLsizei index_count = 0;
  };
  // One body as the mesh shader sees it (per-instance vertex attributes).
  struct Instance {
    glm::mat4 model;   // rotation and translation only
    glm::vec4 scale;   // xyz: scale of the unit mesh; w: capsule half height
    glm::vec4 color;   // rgb, a unused
    glm::vec4 params;  // x: selection highlight 0..1, y: strength of the octant pattern (shows spin), z: asleep,
                       // w: 1 to colour a mesh body by its body-frame normal
  };
  struct LineVertex {
    glm::vec3 position;
    glm::vec4 color;
  };

  GpuMesh upload_mesh(const MeshData& data);
  void destroy_mesh(GpuMesh& mesh);
  void draw_planes(const AppState& app, const glm::mat4& view_proj);
  // With `ghost`, only the dynamic bodies, in its colour and alpha, without selection or sleep shading.
  void draw_bodies(const AppState& app, const glm::mat4& view_proj, const glm::vec4* ghost);
  void draw_overlays(const AppState& app, const glm::mat4& view_proj, float fb_height);
  void draw_instances(GpuMesh& mesh, const std::vector<Instance>& instances);
  // GPU buffers of the mesh shapes in use, uploaded on first sight; entries no body uses any more (a new
  // scene) are freed at the end of draw_bodies. The cache holds a reference so a pointer cannot be reused
  // by another shape while its entry exists.
  struct CachedMesh {
    std::shared_ptr<const MeshShape> shape;
    GpuMesh gpu;
    std::vector<Instance> instances;  // this frame's bodies
  };
  void add_mesh_overlays(const AppState& app);
  void draw_slice(const glm::mat4& view_proj);
  // Overlay pieces, each appending to the line and point lists below.
  void add_graph_overlay(const AppState& app);
  void add_joint_overlay(const AppState& app);
  void add_script_overlay(const AppState& app);
  // What the lane's solver drew of itself (debug_view.h's recording), on top: arrows get a head facing the camera.
  void add_debug_overlay(const AppState& app);
  // Uploads and draws one batch of lines and points: depth tested in two passes (faint where hidden,
  // solid where visible), or on top of everything.
  // With `visible_only`, depth tested in one pass (nothing where hidden), nudged towards the eye.
  void draw_line_batch(std::vector<LineVertex>& lines, const std::vector<LineVertex>& points, bool on_top,
                       const glm::mat4& view_proj, float point_size, bool visible_only = false);

  const World* world_ = nullptr;  // the lane being drawn (draw() sets it)
  int lane_ = 0;                  // its index
  GLuint mesh_program_ = 0, ground_program_ = 0, line_program_ = 0;
  GpuMesh sphere_, box_, capsule_;
  GLuint empty_vao_ = 0;              // the ground quad's corners come from gl_VertexID
  GLuint line_vao_ = 0, line_vbo_ = 0;
  std::vector<Instance> scratch_[3];  // per mesh, reused every frame to avoid allocations
  std::vector<LineVertex> lines_, points_;          // depth tested, faint where hidden: selection, drag
  std::vector<LineVertex> contact_lines_, contact_points_;  // contacts, normals, impulses (ViewState::contacts_through)
  std::vector<LineVertex> top_lines_, top_points_;  // on top: graph, joints, paths (mostly inside bodies)
  std::vector<char> layer_role_;                    // per body, see colored_body
  std::unordered_map<const MeshShape*, CachedMesh> mesh_cache_;
  std::vector<LineVertex> shell_points_, no_lines_;  // point shells (drawn smaller than the other points)
  std::vector<LineVertex> slice_triangles_;          // distance field slice
};

}  // namespace cl::viewer
