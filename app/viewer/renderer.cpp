#include "viewer/renderer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <utility>

#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "collision/mesh_shape.h"
#include "core/shape.h"
#include "viewer/colors.h"
#include "viewer/convert.h"
#include "viewer/gl_util.h"
#include "viewer/script_edit.h"
#include "viewer/selection.h"
#include "viewer/session.h"
#include "viewer/debug_view.h"

namespace cl::viewer {

namespace {

// Towards the key light: high, slightly in front and to the right of the default view.
const glm::vec3 kLightDir = glm::normalize(glm::vec3(0.45f, 1.0f, 0.35f));
const glm::vec3 kPlaneColor{0.50f, 0.51f, 0.53f};

// Colours of the debug overlays.
const glm::vec4 kContactColor{1.00f, 0.85f, 0.20f, 1.0f};
const glm::vec4 kNormalColor = to_glm(debug_colors::kNormal);  // the methods' drawing uses the same
const glm::vec4 kNormalImpulseColor = to_glm(debug_colors::kNormalImpulse);
const glm::vec4 kFrictionImpulseColor = to_glm(debug_colors::kFrictionImpulse);
const glm::vec4 kDragColor{1.0f, 1.0f, 1.0f, 1.0f};
const glm::vec4 kSelectionColor{1.0f, 0.85f, 0.35f, 1.0f};
const glm::vec4 kEdgeColor{0.95f, 0.95f, 0.95f, 0.85f};
const glm::vec4 kProximityColor{0.75f, 0.75f, 0.80f, 0.30f};
const glm::vec4 kJointLinkColor{0.80f, 0.80f, 0.85f, 0.45f};   // body centre to anchor
const glm::vec4 kJointAnchorColor{1.00f, 1.00f, 1.00f, 1.0f};
const glm::vec4 kJointErrorColor{1.00f, 0.25f, 0.25f, 1.0f};   // anchors pulled apart
const glm::vec4 kAxis1Color{1.00f, 0.55f, 0.20f, 1.0f};
const glm::vec4 kAxis2Color{0.30f, 0.80f, 1.00f, 1.0f};
const glm::vec4 kLimitColor{0.45f, 0.95f, 0.45f, 1.0f};
const glm::vec4 kFreeRangeColor{0.45f, 0.95f, 0.45f, 0.35f};  // no limit: the whole circle, faint
const glm::vec4 kAngleColor{1.00f, 1.00f, 0.55f, 1.0f};
const glm::vec4 kPathColor{0.35f, 0.85f, 1.00f, 0.85f};
const glm::vec4 kSelectedPathColor{0.70f, 0.95f, 1.00f, 1.0f};
const glm::vec4 kDraftColor{0.55f, 1.00f, 0.35f, 1.0f};
const glm::vec4 kHoverColor{0.55f, 1.00f, 0.35f, 0.5f};
const glm::vec3 kDimTarget{0.19f, 0.21f, 0.25f};  // the background: dimmed bodies fade into it
const glm::vec4 kShellColor{0.35f, 1.00f, 0.55f, 1.0f};
const glm::vec4 kSliceEdgeColor{0.95f, 0.95f, 0.95f, 0.7f};
const glm::vec4 kSliceContourColor{0.10f, 0.10f, 0.12f, 0.9f};  // the zero level of the distance field

constexpr int kMaxShadowBlobs = 64;  // must match ground.frag.glsl

// Muted, well separated hues that read well under the key light on a dark background.
const std::array<glm::vec3, 10> kPalette = {{
    {0.90f, 0.45f, 0.35f}, {0.35f, 0.60f, 0.88f}, {0.52f, 0.78f, 0.40f}, {0.95f, 0.75f, 0.32f},
    {0.68f, 0.50f, 0.84f}, {0.33f, 0.76f, 0.74f}, {0.93f, 0.56f, 0.70f}, {0.80f, 0.64f, 0.46f},
    {0.60f, 0.70f, 0.30f}, {0.45f, 0.50f, 0.90f},
}};

enum MeshSlot { kSphere = 0, kBox = 1, kCapsule = 2 };

glm::mat4 body_model(const Body& b) {
  const Quat& q = b.orientation;
  const glm::quat rot(static_cast<float>(q.w()), static_cast<float>(q.x()), static_cast<float>(q.y()),
                      static_cast<float>(q.z()));
  return glm::translate(glm::mat4(1.0f), to_glm(b.position)) * glm::mat4_cast(glm::normalize(rot));
}

// Spacing of the ground grid: a power of ten giving about ten cells across the scene.
float grid_spacing(float scene_radius) {
  return std::pow(10.0f, std::round(std::log10(std::max(scene_radius, 1e-3f) * 0.2f)));
}

// Where a graph edge ends at a body: its centre, or for a fixed or kinematic body: the middle of the pair's contacts (a plane's
// or a shared floor box's centre would turn every edge into a star on one far point).
Vec3 edge_end(const World& world, const GraphEdge& e, int body) {
  const Body& b = world.bodies[body];
  if (b.is_dynamic()) return b.position;
  const ContactList& contacts = world.contacts();
  Vec3 sum = Vec3::Zero();
  int n = 0;
  for (int c = e.first_contact; c < e.first_contact + e.contact_count && c < static_cast<int>(contacts.size()); ++c) {
    if (c < 0 || contacts[c].a != e.a || contacts[c].b != e.b) continue;
    sum += contacts[c].position;
    ++n;
  }
  if (n > 0) return sum / n;
  return b.shape.type == ShapeType::Plane ? world.bodies[e.a + e.b - body].position : b.position;
}

// A point `r` from `center` in direction angle `phi` in the plane perpendicular to `axis` (unit), measured
// right-handedly about the axis from `ref` (unit, perpendicular to the axis).
Vec3 on_circle(const Vec3& center, const Vec3& axis, const Vec3& ref, double r, double phi) {
  return center + r * (std::cos(phi) * ref + std::sin(phi) * axis.cross(ref));
}

}  // namespace

MeshData make_shape_mesh(const MeshShape& shape, double crease_degrees) {
  const TriangleMesh& mesh = shape.mesh;
  const int nv = static_cast<int>(mesh.vertices.size()), nt = static_cast<int>(mesh.triangles.size());
  // Triangles around each vertex (compressed rows).
  std::vector<int> start(static_cast<size_t>(nv) + 1, 0), around(static_cast<size_t>(nt) * 3);
  for (const auto& tri : mesh.triangles) {
    for (int v : tri) if (v >= 0 && v < nv) ++start[static_cast<size_t>(v) + 1];
  }
  for (int v = 0; v < nv; ++v) start[v + 1] += start[v];
  std::vector<int> fill(start.begin(), start.end() - 1);
  std::vector<Vec3> area_normal(static_cast<size_t>(nt)), unit(static_cast<size_t>(nt));
  for (int t = 0; t < nt; ++t) {
    area_normal[t] = mesh.area_normal(t);
    const double len = area_normal[t].norm();
    unit[t] = len > 0.0 ? Vec3(area_normal[t] / len) : Vec3::Zero();
    for (int v : mesh.triangles[t]) if (v >= 0 && v < nv) around[fill[v]++] = t;
  }
  const double min_cos = std::cos(crease_degrees * std::numbers::pi / 180.0);
  MeshData out;
  out.vertices.reserve(static_cast<size_t>(nt) * 3);
  out.indices.reserve(static_cast<size_t>(nt) * 3);
  for (int t = 0; t < nt; ++t) {
    for (int v : mesh.triangles[t]) {
      if (v < 0 || v >= nv) v = 0;
      Vec3 sum = Vec3::Zero();
      for (int k = start[v]; k < start[v + 1]; ++k) {
        const int f = around[k];
        if (unit[f].dot(unit[t]) >= min_cos) sum += area_normal[f];
      }
      const double len = sum.norm();
      const Vec3 n = len > 0.0 ? Vec3(sum / len) : unit[t];
      out.indices.push_back(static_cast<uint32_t>(out.vertices.size()));
      out.vertices.push_back({to_glm(nv > 0 ? mesh.vertices[v] : Vec3::Zero()), to_glm(n), 0.0f});
    }
  }
  return out;
}

glm::vec3 distance_color(double d, double scale) {
  const glm::vec3 white{1.0f, 1.0f, 1.0f}, inside{0.15f, 0.35f, 1.0f}, outside{1.0f, 0.22f, 0.12f};
  if (!std::isfinite(d)) return {0.5f, 0.5f, 0.5f};
  const double t = std::clamp(scale > 0.0 ? d / scale : 0.0, -1.0, 1.0);
  const float w = static_cast<float>(std::sqrt(std::abs(t)));  // leaves the colour quickly: only near zero is white
  return glm::mix(white, t < 0.0 ? inside : outside, w);
}

glm::vec3 colored_body(const AppState& app, const World& world, int index, int max_height,
                       const std::vector<char>& layer_role) {
  const Body& b = world.bodies[index];
  const glm::vec3 own = body_color(b, index);
  const ContactGraph& graph = world.graph();
  const auto i = static_cast<size_t>(index);
  switch (app.view.coloring) {
    case BodyColoring::Body: return own;
    case BodyColoring::Group: {
      if (!b.is_dynamic()) return own;
      const int g = i < graph.group_of_body().size() ? graph.group_of_body()[i] : -1;
      return g >= 0 ? group_color(g) : kNoGroupColor;
    }
    case BodyColoring::Height: {
      if (!b.is_dynamic()) return own;  // height 0: the supports keep their grey
      const int h = i < graph.height_of_body().size() ? graph.height_of_body()[i] : ContactGraph::kUnreached;
      if (h != ContactGraph::kUnreached) return height_color(h, max_height);
      const int g = i < graph.group_of_body().size() ? graph.group_of_body()[i] : -1;
      return g >= 0 ? kFloatingColor : kNoGroupColor;
    }
    case BodyColoring::Layer: {
      const char role = i < layer_role.size() ? layer_role[i] : 0;
      if (role == 1) return kLayerBottomColor;
      if (role == 2) return kLayerTopColor;
      return glm::mix(own, kDimTarget, 0.7f);  // everything else steps back
    }
  }
  return own;
}

glm::vec3 body_color(const Body& body, int index) {
  switch (body.kind) {
    case BodyKind::Fixed: return {0.55f, 0.56f, 0.58f};
    case BodyKind::Kinematic: return {0.62f, 0.68f, 0.76f};
    case BodyKind::Dynamic: break;
  }
  return kPalette[static_cast<size_t>(index) % kPalette.size()];
}

void update_impulse_reference(ViewState& view, const ContactList& contacts) {
  float largest = 0.0f;
  for (const Contact& c : contacts) {
    largest = std::max({largest, static_cast<float>(std::abs(c.normal_impulse)),
                        static_cast<float>(c.friction_impulse.norm())});
  }
  if (!std::isfinite(largest)) return;
  // Rises at once, decays over a second or two at 60 frames per second.
  view.impulse_reference = std::max(largest, view.impulse_reference * 0.98f);
}

Renderer::~Renderer() {
  // Only touch GL if init ran (a context exists then and is still current when the viewer shuts down).
  if (mesh_program_ == 0 && ground_program_ == 0 && line_program_ == 0) return;
  destroy_mesh(sphere_);
  destroy_mesh(box_);
  destroy_mesh(capsule_);
  for (auto& [key, entry] : mesh_cache_) destroy_mesh(entry.gpu);
  glDeleteVertexArrays(1, &empty_vao_);
  glDeleteVertexArrays(1, &line_vao_);
  glDeleteBuffers(1, &line_vbo_);
  glDeleteProgram(mesh_program_);
  glDeleteProgram(ground_program_);
  glDeleteProgram(line_program_);
}

bool Renderer::init(const std::string& shader_dir, std::string* error) {
  mesh_program_ = load_program(shader_dir, "mesh", error);
  if (mesh_program_ == 0) return false;
  ground_program_ = load_program(shader_dir, "ground", error);
  if (ground_program_ == 0) return false;
  line_program_ = load_program(shader_dir, "line", error);
  if (line_program_ == 0) return false;

  sphere_ = upload_mesh(make_sphere_mesh(40, 20));
  box_ = upload_mesh(make_box_mesh());
  capsule_ = upload_mesh(make_capsule_mesh(40, 20));
  glCreateVertexArrays(1, &empty_vao_);

  glCreateVertexArrays(1, &line_vao_);
  glCreateBuffers(1, &line_vbo_);
  glVertexArrayVertexBuffer(line_vao_, 0, line_vbo_, 0, sizeof(LineVertex));
  glEnableVertexArrayAttrib(line_vao_, 0);
  glVertexArrayAttribFormat(line_vao_, 0, 3, GL_FLOAT, GL_FALSE, offsetof(LineVertex, position));
  glVertexArrayAttribBinding(line_vao_, 0, 0);
  glEnableVertexArrayAttrib(line_vao_, 1);
  glVertexArrayAttribFormat(line_vao_, 1, 4, GL_FLOAT, GL_FALSE, offsetof(LineVertex, color));
  glVertexArrayAttribBinding(line_vao_, 1, 0);
  return true;
}

Renderer::GpuMesh Renderer::upload_mesh(const MeshData& data) {
  GpuMesh m;
  m.index_count = static_cast<GLsizei>(data.indices.size());
  glCreateBuffers(1, &m.vertices);
  glNamedBufferStorage(m.vertices, static_cast<GLsizeiptr>(data.vertices.size() * sizeof(MeshVertex)),
                       data.vertices.data(), 0);
  glCreateBuffers(1, &m.indices);
  glNamedBufferStorage(m.indices, static_cast<GLsizeiptr>(data.indices.size() * sizeof(uint32_t)),
                       data.indices.data(), 0);
  glCreateBuffers(1, &m.instances);

  glCreateVertexArrays(1, &m.vao);
  glVertexArrayElementBuffer(m.vao, m.indices);
  // Binding 0: the mesh, per vertex. Binding 1: the bodies, one Instance per drawn copy.
  glVertexArrayVertexBuffer(m.vao, 0, m.vertices, 0, sizeof(MeshVertex));
  glVertexArrayVertexBuffer(m.vao, 1, m.instances, 0, sizeof(Instance));
  glVertexArrayBindingDivisor(m.vao, 1, 1);
  auto attribute = [&m](GLuint location, GLuint binding, GLint size, size_t offset) {
    glEnableVertexArrayAttrib(m.vao, location);
    glVertexArrayAttribFormat(m.vao, location, size, GL_FLOAT, GL_FALSE, static_cast<GLuint>(offset));
    glVertexArrayAttribBinding(m.vao, location, binding);
  };
  attribute(0, 0, 3, offsetof(MeshVertex, position));
  attribute(1, 0, 3, offsetof(MeshVertex, normal));
  attribute(2, 0, 1, offsetof(MeshVertex, side));
  for (GLuint column = 0; column < 4; ++column) {  // a mat4 attribute takes four locations
    attribute(3 + column, 1, 4, offsetof(Instance, model) + column * sizeof(glm::vec4));
  }
  attribute(7, 1, 4, offsetof(Instance, scale));
  attribute(8, 1, 4, offsetof(Instance, color));
  attribute(9, 1, 4, offsetof(Instance, params));
  return m;
}

void Renderer::destroy_mesh(GpuMesh& m) {
  glDeleteVertexArrays(1, &m.vao);
  glDeleteBuffers(1, &m.vertices);
  glDeleteBuffers(1, &m.indices);
  glDeleteBuffers(1, &m.instances);
  m = GpuMesh{};
}

void Renderer::draw(const AppState& app, int fb_width, int fb_height) {
  glViewport(0, 0, fb_width, fb_height);
  glClearColor(kBackground.r, kBackground.g, kBackground.b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);

  if (split_view(app)) {
    // One cell per lane, each seen by the same camera and drawn with that lane's own overlays.
    const float scale = static_cast<float>(fb_width) / std::max(app.viewport_width, 1.0f);
    for (int lane = 0; lane < lane_count(app); ++lane) {
      const LaneCell c = lane_cell(app, lane);
      const int x = static_cast<int>(c.x * scale), w = static_cast<int>(c.width * scale);
      const int h = static_cast<int>(c.height * scale);
      const int y = fb_height - static_cast<int>((c.y + c.height) * scale);
      glViewport(x, y, w, h);
      world_ = &lane_world(app, lane);
      lane_ = lane;
      const glm::mat4 view_proj =
          app.camera.projection(static_cast<float>(w) / static_cast<float>(std::max(h, 1))) * app.camera.view();
      draw_planes(app, view_proj);
      draw_bodies(app, view_proj, nullptr);
      draw_overlays(app, view_proj, static_cast<float>(h));
    }
    glViewport(0, 0, fb_width, fb_height);
  } else {
    world_ = &app.scene.world;
    const float aspect = static_cast<float>(fb_width) / static_cast<float>(std::max(fb_height, 1));
    const glm::mat4 view_proj = app.camera.projection(aspect) * app.camera.view();
    draw_planes(app, view_proj);
    draw_bodies(app, view_proj, nullptr);
    // Overlaid comparison: the other lanes' moving bodies as translucent ghosts in their lane colour.
    for (int lane = 1; lane < lane_count(app); ++lane) {
      world_ = &lane_world(app, lane);
      const std::array<float, 3> c = lane_color(lane);
      const glm::vec4 ghost(c[0], c[1], c[2], 0.38f);
      draw_bodies(app, view_proj, &ghost);
    }
    world_ = &app.scene.world;
    lane_ = 0;
    draw_overlays(app, view_proj, static_cast<float>(fb_height));
  }
  world_ = &app.scene.world;
  lane_ = 0;
  glBindVertexArray(0);
  glUseProgram(0);
}

void Renderer::draw_planes(const AppState& app, const glm::mat4& view_proj) {
  const World& world = *world_;
  const OrbitCamera& cam = app.camera;
  const float radius = cam.scene_radius;
  // Fog hides the far edge of the "infinite" quad by fading it into the background.
  const float fog_start = cam.distance + 3.0f * radius;
  const float fog_end = cam.distance + 25.0f * radius + 10.0f;

  const GLuint p = ground_program_;
  glUseProgram(p);
  set_uniform(p, "u_view_proj", view_proj);
  set_uniform(p, "u_eye", cam.eye());
  set_uniform(p, "u_light_dir", kLightDir);
  set_uniform(p, "u_background", kBackground);
  set_uniform(p, "u_show_grid", app.view.show_grid ? 1.0f : 0.0f);
  set_uniform(p, "u_spacing", grid_spacing(radius));
  set_uniform(p, "u_fog_start", fog_start);
  set_uniform(p, "u_fog_end", fog_end);
  set_uniform(p, "u_half_size", fog_end * 1.5f);
  glBindVertexArray(empty_vao_);
  // Planes are seen only from the open side: a wall between the camera and the scene is culled, so
  // scenes enclosed by planes stay visible from outside like a doll's house.
  glEnable(GL_CULL_FACE);
  glCullFace(GL_BACK);
  glFrontFace(GL_CCW);

  std::array<glm::vec4, kMaxShadowBlobs> blobs{}, blob_params{};
  for (size_t i = 0; i < world.bodies.size(); ++i) {
    const Body& plane = world.bodies[i];
    if (plane.shape.type != ShapeType::Plane) continue;
    const Mat3 rot = plane.rotation();
    const Vec3 n = (rot * plane.shape.normal).normalized();
    const double d = n.dot(plane.position) + plane.shape.offset;  // world plane: n . x = d
    Vec3 u, v;
    tangent_basis(n, u, v);  // u x v = n, so the quad faces along n
    const Vec3 target = to_vec3(cam.target);
    const Vec3 center = target - (n.dot(target) - d) * n;

    // Soft blob shadows of the bodies above this plane (a cheap stand-in for shadow mapping).
    int count = 0;
    if (app.view.show_shadows) {
      for (const Body& b : world.bodies) {
        if (b.shape.type == ShapeType::Plane || count == kMaxShadowBlobs) continue;
        const Aabb box = shape_aabb(b.shape, b.position, b.orientation);
        const Vec3 mid = 0.5 * (box.lo + box.hi), size = box.hi - box.lo;
        const double half_n = 0.5 * n.cwiseAbs().dot(size);
        const double height = n.dot(mid) - d - half_n;  // gap between the body's bottom and the plane
        if (!std::isfinite(height) || height < -half_n) continue;  // behind the plane
        const double r = 0.25 * (u.cwiseAbs().dot(size) + v.cwiseAbs().dot(size));
        const double h = std::max(height, 0.0);
        const double darkness = 0.55 / (1.0 + 1.5 * h / std::max(r, 1e-3));
        if (darkness < 0.05) continue;  // too high up to matter; saves fragment work
        blobs[count] = glm::vec4(to_glm(mid - (n.dot(mid) - d) * n), static_cast<float>(r));
        blob_params[count] = glm::vec4(static_cast<float>(darkness),
                                       static_cast<float>(1.15 * r + 0.6 * h), 0.0f, 0.0f);
        ++count;
      }
    }
    set_uniform(p, "u_blob_count", count);
    glProgramUniform4fv(p, glGetUniformLocation(p, "u_blobs"), kMaxShadowBlobs, glm::value_ptr(blobs[0]));
    glProgramUniform4fv(p, glGetUniformLocation(p, "u_blob_params"), kMaxShadowBlobs,
                        glm::value_ptr(blob_params[0]));
    set_uniform(p, "u_center", to_glm(center));
    set_uniform(p, "u_normal", to_glm(n));
    set_uniform(p, "u_axis_u", to_glm(u));
    set_uniform(p, "u_axis_v", to_glm(v));
    set_uniform(p, "u_color", kPlaneColor);
    set_uniform(p, "u_highlight", static_cast<int>(i) == app.pick.selected ? 1.0f : 0.0f);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
  }
  glDisable(GL_CULL_FACE);
}

void Renderer::draw_bodies(const AppState& app, const glm::mat4& view_proj, const glm::vec4* ghost) {
  for (auto& list : scratch_) list.clear();
  for (auto& [key, entry] : mesh_cache_) entry.instances.clear();
  const World& world = *world_;
  const auto& bodies = world.bodies;
  const int max_height = app.view.coloring == BodyColoring::Height ? max_stack_height(world) : 0;
  layer_role_.assign(bodies.size(), 0);
  if (app.view.coloring == BodyColoring::Layer) {
    const ContactGraph& graph = world.graph();
    for (int g = 0; g < static_cast<int>(graph.groups().size()); ++g) {
      if (app.view.layer >= graph.groups()[g].layer_count) continue;
      const StackLayer& layer = graph.layers(g)[app.view.layer];
      for (int b : layer.bottom) if (b >= 0 && b < static_cast<int>(bodies.size())) layer_role_[b] = 1;
      for (int b : layer.top) if (b >= 0 && b < static_cast<int>(bodies.size())) layer_role_[b] = 2;
    }
  }
  for (size_t i = 0; i < bodies.size(); ++i) {
    const Body& b = bodies[i];
    const Shape& s = b.shape;
    if (s.type == ShapeType::Plane) continue;  // drawn by draw_planes
    if (ghost && !b.is_dynamic()) continue;    // fixed and kinematic bodies move alike in every lane
    Instance inst;
    inst.model = body_model(b);
    glm::vec3 color = ghost ? glm::vec3(*ghost) : colored_body(app, world, static_cast<int>(i), max_height, layer_role_);
    const bool asleep = app.view.show_sleeping && b.sleeping;
    // Under a graph colouring the colour carries the information: sleep only darkens it a little (the
    // shader's stripes still tell); with the bodies' own colours the full cold tint is free to use.
    if (asleep && !ghost) color = app.view.coloring == BodyColoring::Body ? sleeping_tint(color) : color * 0.85f;
    inst.color = glm::vec4(color, ghost ? ghost->a : 1.0f);
    inst.params = glm::vec4(static_cast<int>(i) == app.pick.selected && !ghost ? 1.0f : 0.0f, 0.0f,
                            asleep && !ghost ? 1.0f : 0.0f, 0.0f);
    const float r = static_cast<float>(s.radius);
    switch (s.type) {
      case ShapeType::Plane: continue;  // drawn by draw_planes
      case ShapeType::Sphere:
        inst.scale = glm::vec4(r, r, r, 0.0f);
        inst.params.y = 0.22f;  // without the pattern a rolling ball looks like it slides
        scratch_[kSphere].push_back(inst);
        break;
      case ShapeType::Box:
        inst.scale = glm::vec4(to_glm(s.half_extents), 0.0f);
        scratch_[kBox].push_back(inst);
        break;
      case ShapeType::Capsule:
        inst.scale = glm::vec4(r, r, r, static_cast<float>(s.half_height));
        inst.params.y = 0.22f;
        scratch_[kCapsule].push_back(inst);
        break;
      case ShapeType::Mesh: {
        if (!s.mesh) continue;
        CachedMesh& entry = mesh_cache_[s.mesh.get()];
        if (entry.gpu.vao == 0) {  // first sight of this shape: upload its triangles once
          entry.shape = s.mesh;
          entry.gpu = upload_mesh(make_shape_mesh(*s.mesh));
        }
        inst.scale = glm::vec4(1.0f, 1.0f, 1.0f, 0.0f);
        inst.params.w = app.view.mesh_coloring == MeshColoring::Normals ? 1.0f : 0.0f;
        entry.instances.push_back(inst);
        break;
      }
    }
  }
  // Shapes no body uses any more (a new scene, a removed body): free their buffers (not in a ghost pass, which
  // leaves the fixed bodies out).
  for (auto it = mesh_cache_.begin(); it != mesh_cache_.end() && !ghost;) {
    if (it->second.instances.empty()) {
      destroy_mesh(it->second.gpu);
      it = mesh_cache_.erase(it);
    } else {
      ++it;
    }
  }

  const GLuint p = mesh_program_;
  glUseProgram(p);
  set_uniform(p, "u_view_proj", view_proj);
  set_uniform(p, "u_eye", app.camera.eye());
  set_uniform(p, "u_light_dir", kLightDir);
  if (app.view.wireframe) {
    glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
  } else {
    glEnable(GL_CULL_FACE);  // closed meshes: the back faces are never visible
  }
  if (ghost) {  // translucent over the first lane, which stays visible through them
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDepthMask(GL_FALSE);
  }
  draw_instances(sphere_, scratch_[kSphere]);
  draw_instances(box_, scratch_[kBox]);
  draw_instances(capsule_, scratch_[kCapsule]);
  for (auto& [key, entry] : mesh_cache_) draw_instances(entry.gpu, entry.instances);
  glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);
  glDepthMask(GL_TRUE);
}

void Renderer::draw_instances(GpuMesh& mesh, const std::vector<Instance>& instances) {
  if (instances.empty()) return;
  // Orphan and refill: the driver hands out fresh storage instead of waiting for the last frame.
  glNamedBufferData(mesh.instances, static_cast<GLsizeiptr>(instances.size() * sizeof(Instance)),
                    instances.data(), GL_STREAM_DRAW);
  glBindVertexArray(mesh.vao);
  glDrawElementsInstanced(GL_TRIANGLES, mesh.index_count, GL_UNSIGNED_INT, nullptr,
                          static_cast<GLsizei>(instances.size()));
}

void Renderer::draw_overlays(const AppState& app, const glm::mat4& view_proj, float fb_height) {
  lines_.clear();
  points_.clear();
  top_lines_.clear();
  top_points_.clear();
  const World& world = *world_;
  const ViewState& view = app.view;

  auto line = [this](const Vec3& a, const Vec3& b, const glm::vec4& color) {
    lines_.push_back({to_glm(a), color});
    lines_.push_back({to_glm(b), color});
  };
  // Metres of arrow per N s of impulse.
  const double impulse_scale = view.auto_impulse_scale
                                   ? (view.impulse_reference > 0.0f ? view.impulse_length / view.impulse_reference : 0.0)
                                   : view.impulse_scale;
  const size_t stride = contact_draw_stride(world.contacts().size());
  for (size_t k = 0; k < world.contacts().size(); k += stride) {
    const Contact& c = world.contacts()[k];
    if (!all_finite(c.position) || !all_finite(c.normal)) continue;
    if (view.show_contacts) points_.push_back({to_glm(c.position), kContactColor});
    if (view.show_normals) line(c.position, c.position + view.normal_length * c.normal, kNormalColor);
    if (view.show_impulses) {
      line(c.position, c.position + impulse_scale * c.normal_impulse * c.normal, kNormalImpulseColor);
      line(c.position, c.position + impulse_scale * c.friction_impulse, kFrictionImpulseColor);
    }
  }
  const PickState& pick = app.pick;
  if (pick.selected >= 0 && pick.selected < static_cast<int>(world.bodies.size())) {
    // Flat box faces show no rim highlight, so a selected box also gets its edges outlined.
    const Body& b = world.bodies[pick.selected];
    if (b.shape.type == ShapeType::Box) {
      const Mat3 rot = b.rotation();
      const Vec3& h = b.shape.half_extents;
      auto corner = [&](int i) {
        return Vec3(b.position + rot * Vec3((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z()));
      };
      for (int i = 0; i < 8; ++i) {
        for (int axis = 1; axis < 8; axis <<= 1) {  // an edge joins corners differing in one bit
          if ((i & axis) == 0) line(corner(i), corner(i | axis), kSelectionColor);
        }
      }
    }
  }
  if (pick.dragging && pick.selected >= 0 && pick.selected < static_cast<int>(world.bodies.size())) {
    const Body& b = world.bodies[pick.selected];
    const Vec3 anchor = b.position + b.rotation() * pick.local_anchor;
    line(anchor, pick.target, kDragColor);
    points_.push_back({to_glm(anchor), kDragColor});
    points_.push_back({to_glm(pick.target), kDragColor});
  }
  add_debug_overlay(app);
  add_graph_overlay(app);
  add_joint_overlay(app);
  add_script_overlay(app);
  add_mesh_overlays(app);

  const float point_size = std::max(4.0f, 5.0f * fb_height / 720.0f);
  glEnable(GL_PROGRAM_POINT_SIZE);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDepthMask(GL_FALSE);
  draw_slice(view_proj);
  no_lines_.clear();
  draw_line_batch(no_lines_, shell_points_, false, view_proj, std::max(2.0f, 2.5f * fb_height / 720.0f));
  draw_line_batch(lines_, points_, false, view_proj, point_size);
  draw_line_batch(top_lines_, top_points_, true, view_proj, point_size);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glDisable(GL_PROGRAM_POINT_SIZE);
}

void Renderer::draw_line_batch(std::vector<LineVertex>& lines, const std::vector<LineVertex>& points, bool on_top,
                               const glm::mat4& view_proj, float point_size) {
  if (lines.empty() && points.empty()) return;
  const size_t line_count = lines.size();
  lines.insert(lines.end(), points.begin(), points.end());  // one upload: lines, then points
  glNamedBufferData(line_vbo_, static_cast<GLsizeiptr>(lines.size() * sizeof(LineVertex)), lines.data(),
                    GL_STREAM_DRAW);

  const GLuint p = line_program_;
  glUseProgram(p);
  glBindVertexArray(line_vao_);
  set_uniform(p, "u_view_proj", view_proj);
  set_uniform(p, "u_point_size", point_size);
  // Depth tested: two passes, faint where hidden behind bodies (contacts are mostly inside the contact
  // region), solid where visible. On top: one pass without the depth test (graph edges, joint anchors
  // and paths run through the bodies and would otherwise be hidden).
  const int passes = on_top ? 1 : 2;
  if (on_top) glDisable(GL_DEPTH_TEST);
  for (int pass = 0; pass < passes; ++pass) {
    const bool hidden_pass = !on_top && pass == 0;
    glDepthFunc(hidden_pass ? GL_GREATER : GL_LEQUAL);
    set_uniform(p, "u_alpha", hidden_pass ? 0.3f : 1.0f);
    set_uniform(p, "u_round_points", 0);
    glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(line_count));
    set_uniform(p, "u_round_points", 1);
    glDrawArrays(GL_POINTS, static_cast<GLint>(line_count), static_cast<GLsizei>(lines.size() - line_count));
  }
  if (on_top) glEnable(GL_DEPTH_TEST);
  lines.resize(line_count);
}

void Renderer::add_graph_overlay(const AppState& app) {
  const World& world = *world_;
  const ViewState& view = app.view;
  const bool layer_mode = view.coloring == BodyColoring::Layer;
  if (!view.show_graph && !layer_mode) return;
  const int max_height = view.coloring == BodyColoring::Height ? max_stack_height(world) : 0;
  const int n = static_cast<int>(world.bodies.size());
  for (const GraphEdge& e : world.graph().edges()) {
    if (e.a < 0 || e.b < 0 || e.a >= n || e.b >= n) continue;
    const bool touching = e.touching() && !(e.events & kVanishedTouching);
    const bool in_layer = layer_mode && touching && e.layer == view.layer;
    glm::vec4 color;
    if (in_layer) {
      color = glm::vec4(kLayerEdgeColor, 1.0f);
    } else if (!view.show_graph) {
      continue;  // the layer view without the graph: only the highlighted layer's edges
    } else if (!touching) {
      if (!view.show_proximity) continue;
      color = kProximityColor;
    } else if (layer_mode) {
      color = glm::vec4(kEdgeColor.r, kEdgeColor.g, kEdgeColor.b, 0.25f);  // other layers step back
    } else if (view.coloring == BodyColoring::Height && e.layer >= 0) {
      color = glm::vec4(height_color(e.layer + 1, max_height), 1.0f);  // the colour of the layer's top
    } else {
      color = kEdgeColor;
    }
    const Vec3 a = touching ? edge_end(world, e, e.a) : world.bodies[e.a].position;
    const Vec3 b = touching ? edge_end(world, e, e.b) : world.bodies[e.b].position;
    if (!all_finite(a) || !all_finite(b)) continue;
    if (!touching && (world.bodies[e.a].shape.type == ShapeType::Plane || world.bodies[e.b].shape.type == ShapeType::Plane))
      continue;  // a plane has no centre to draw a proximity edge to
    top_lines_.push_back({to_glm(a), color});
    top_lines_.push_back({to_glm(b), color});
    if (!world.bodies[e.a].is_dynamic()) top_points_.push_back({to_glm(a), color * glm::vec4(1, 1, 1, 0.8f)});
    if (!world.bodies[e.b].is_dynamic()) top_points_.push_back({to_glm(b), color * glm::vec4(1, 1, 1, 0.8f)});
  }
}

void Renderer::add_joint_overlay(const AppState& app) {
  const World& world = *world_;
  if (!app.view.show_joints || world.joints.empty()) return;
  const int n = static_cast<int>(world.bodies.size());
  auto line = [this](const Vec3& a, const Vec3& b, const glm::vec4& color) {
    top_lines_.push_back({to_glm(a), color});
    top_lines_.push_back({to_glm(b), color});
  };
  auto size_of = [&](int body) {  // a body's bounding radius (planes and the world frame: none)
    if (body < 0 || body >= n || world.bodies[body].shape.type == ShapeType::Plane) return 0.0;
    return shape_bounding_radius(world.bodies[body].shape);
  };
  for (int j = 0; j < static_cast<int>(world.joints.size()); ++j) {
    const Joint& joint = world.joints[j];
    const bool selected = j == app.pick.selected_joint;
    const auto emphasis = [selected](glm::vec4 c) { return selected ? c : glm::vec4(glm::vec3(c), c.a * 0.8f); };
    const Vec3 pa = joint_anchor_world(world, joint, 0), pb = joint_anchor_world(world, joint, 1);
    if (!all_finite(pa) || !all_finite(pb)) continue;
    // Axis length: the scale of the smaller body, so chains of small links and doors both read well.
    double length = app.view.joint_axis_length;
    if (!(length > 0.0)) {
      const double ra = size_of(joint.body_a), rb = size_of(joint.body_b);
      const double r = ra > 0 && rb > 0 ? std::min(ra, rb) : std::max(ra, rb);
      length = std::clamp(0.9 * r, 0.05, 3.0);
    }
    for (int side = 0; side < 2; ++side) {  // which body holds the joint, and where
      const int body = side == 0 ? joint.body_a : joint.body_b;
      if (size_of(body) > 0.0) line(world.bodies[body].position, side == 0 ? pa : pb, emphasis(kJointLinkColor));
    }
    const Vec3 axis1 = joint_axis_world(world, joint, false);
    const Vec3 axis2 = joint_axis_world(world, joint, true);
    // The constraint is violated: a red line from where b's anchor should be to where it is (a slider's
    // anchors may part along the axis, only the offset across it is an error).
    if (joint_error_parts(joint, world.bodies).linear > 1e-3 * length) {
      const Vec3 should = joint.type == JointType::Slider ? Vec3(pa + (pb - pa).dot(axis1) * axis1) : pa;
      line(should, pb, kJointErrorColor);
    }
    top_points_.push_back({to_glm(pa), selected ? glm::vec4(kSelectionColor) : kJointAnchorColor});

    switch (joint.type) {
      case JointType::Ball:
      case JointType::Fixed: {  // no axis: a small frame of body a shows the joint's orientation
        Quat q = Quat::Identity();
        if (joint.body_a >= 0 && joint.body_a < n) q = world.bodies[joint.body_a].orientation;
        const glm::vec4 colors[3] = {{0.95f, 0.35f, 0.35f, 1.0f}, {0.40f, 0.90f, 0.40f, 1.0f}, {0.40f, 0.55f, 1.0f, 1.0f}};
        for (int k = 0; k < 3; ++k) line(pa, pa + 0.4 * length * (q * Vec3::Unit(k)), emphasis(colors[k]));
        break;
      }
      case JointType::Slider: {
        line(pa - length * axis1, pa + length * axis1, emphasis(kAxis1Color));
        Vec3 t1, t2;
        tangent_basis(axis1, t1, t2);
        const double tick = 0.25 * length;
        if (joint.limit.enabled) {  // the allowed travel of b's anchor, with end ticks
          const Vec3 lo = pa + joint.limit.lower * axis1, hi = pa + joint.limit.upper * axis1;
          line(lo + 0.05 * tick * t1, hi + 0.05 * tick * t1, emphasis(kLimitColor));
          line(lo - tick * t1, lo + tick * t1, emphasis(kLimitColor));
          line(hi - tick * t1, hi + tick * t1, emphasis(kLimitColor));
        }
        const double c = joint_coordinate(joint, world.bodies);
        if (std::isfinite(c)) {
          const Vec3 at = pa + c * axis1;
          line(at - 0.6 * tick * t2, at + 0.6 * tick * t2, kAngleColor);
          top_points_.push_back({to_glm(at), kAngleColor});
        }
        break;
      }
      case JointType::Hinge:
      case JointType::Hinge2:
      case JointType::Universal: {
        line(pa - length * axis1, pa + length * axis1, emphasis(kAxis1Color));
        if (joint.type != JointType::Hinge) line(pb - length * axis2, pb + length * axis2, emphasis(kAxis2Color));
        // The angle about the first axis: the range from the limits (or the whole circle) measured from
        // the zero direction, and the needle at the current angle.
        Vec3 zero, needle;
        const double angle = joint_coordinate(joint, world.bodies);
        if (!std::isfinite(angle) || !joint_angle_frame(world, joint, &zero, &needle)) break;
        const double r = 0.8 * length;
        const bool limited = joint.limit.enabled && joint.limit.upper >= joint.limit.lower;
        const double lo = limited ? joint.limit.lower : -std::numbers::pi, hi = limited ? joint.limit.upper : std::numbers::pi;
        const int segments = std::clamp(static_cast<int>(std::ceil((hi - lo) / 0.08)), 4, 160);
        const glm::vec4 arc = emphasis(limited ? kLimitColor : kFreeRangeColor);
        for (int k = 0; k < segments; ++k) {
          const double f0 = lo + (hi - lo) * k / segments, f1 = lo + (hi - lo) * (k + 1) / segments;
          line(on_circle(pa, axis1, zero, r, f0), on_circle(pa, axis1, zero, r, f1), arc);
        }
        if (limited) {
          line(pa, on_circle(pa, axis1, zero, r, lo), arc);
          line(pa, on_circle(pa, axis1, zero, r, hi), arc);
        }
        line(pa, pa + 1.15 * r * needle, kAngleColor);
        break;
      }
    }
  }
}

void Renderer::add_mesh_overlays(const AppState& app) {
  shell_points_.clear();
  slice_triangles_.clear();
  const World& world = *world_;
  const ViewState& view = app.view;
  const int n = static_cast<int>(world.bodies.size());
  const int selected = app.pick.selected;
  auto mesh_of = [&](int i) -> const MeshShape* {
    if (i < 0 || i >= n || world.bodies[i].shape.type != ShapeType::Mesh) return nullptr;
    return world.bodies[i].shape.mesh.get();
  };
  if (view.show_point_shells) {
    for (int i = 0; i < n; ++i) {
      const MeshShape* m = mesh_of(i);
      if (!m || (!view.point_shells_all && i != selected)) continue;
      const Body& b = world.bodies[i];
      const Mat3 rot = b.rotation();
      // Lifted a little off the surface along the normal, so that they do not fight with the triangles.
      const double lift = 0.004 * m->properties.bounding_radius;
      const bool have_normals = m->normals.size() == m->points.size();
      for (size_t k = 0; k < m->points.size(); ++k) {
        const Vec3 local = have_normals ? Vec3(m->points[k] + lift * m->normals[k]) : m->points[k];
        shell_points_.push_back({to_glm(Vec3(b.position + rot * local)), kShellColor});
      }
    }
  }
  const MeshShape* m = mesh_of(selected);
  if (!view.show_sdf_slice || !m || m->sdf.empty()) return;
  const Body& b = world.bodies[selected];
  const Mat3 rot = b.rotation();
  const SignedDistanceGrid& sdf = m->sdf;
  const Aabb box = sdf.box();
  const int a = std::clamp(view.sdf_axis, 0, 2), u = (a + 1) % 3, v = (a + 2) % 3;
  const double at = std::clamp(static_cast<double>(view.sdf_offset), box.lo[a], box.hi[a]);
  const double h = std::max(sdf.cell_size(), 1e-9);
  // Two samples per grid cell (the grid interpolates between nodes), at most 160 along a side.
  const int su = std::clamp(static_cast<int>(std::ceil(2.0 * (box.hi[u] - box.lo[u]) / h)), 2, 160);
  const int sv = std::clamp(static_cast<int>(std::ceil(2.0 * (box.hi[v] - box.lo[v]) / h)), 2, 160);
  const double scale = std::max(0.3 * m->properties.bounding_radius, 2.0 * h);
  std::vector<LineVertex> grid(static_cast<size_t>(su + 1) * static_cast<size_t>(sv + 1));
  std::vector<double> value(grid.size());
  auto local_point = [&](double fu, double fv) {
    Vec3 p;
    p[a] = at;
    p[u] = box.lo[u] + fu * (box.hi[u] - box.lo[u]);
    p[v] = box.lo[v] + fv * (box.hi[v] - box.lo[v]);
    return p;
  };
  for (int j = 0; j <= sv; ++j) {
    for (int i = 0; i <= su; ++i) {
      const Vec3 p = local_point(static_cast<double>(i) / su, static_cast<double>(j) / sv);
      const size_t c = static_cast<size_t>(j) * (su + 1) + i;
      value[c] = sdf.value(p);
      grid[c] = {to_glm(Vec3(b.position + rot * p)), glm::vec4(distance_color(value[c], scale), 1.0f)};
    }
  }
  slice_triangles_.reserve(static_cast<size_t>(su) * sv * 6);
  for (int j = 0; j < sv; ++j) {
    for (int i = 0; i < su; ++i) {
      const size_t c00 = static_cast<size_t>(j) * (su + 1) + i, c10 = c00 + 1, c01 = c00 + su + 1, c11 = c01 + 1;
      for (size_t c : {c00, c10, c11, c00, c11, c01}) slice_triangles_.push_back(grid[c]);
    }
  }
  // The zero level (the surface as the grid sees it), by marching squares: where the sign changes along a
  // cell edge, the linearly interpolated crossing; the crossings of a cell joined in pairs.
  for (int j = 0; j < sv; ++j) {
    for (int i = 0; i < su; ++i) {
      const size_t c00 = static_cast<size_t>(j) * (su + 1) + i, c10 = c00 + 1, c01 = c00 + su + 1, c11 = c01 + 1;
      const size_t ring[5] = {c00, c10, c11, c01, c00};
      glm::vec3 cross[4];
      int count = 0;
      for (int k = 0; k < 4; ++k) {
        const double d0 = value[ring[k]], d1 = value[ring[k + 1]];
        if (!std::isfinite(d0) || !std::isfinite(d1) || (d0 < 0.0) == (d1 < 0.0)) continue;
        const float f = static_cast<float>(d0 / (d0 - d1));
        cross[count++] = glm::mix(grid[ring[k]].position, grid[ring[k + 1]].position, f);
      }
      for (int k = 0; k + 1 < count; k += 2) {
        lines_.push_back({cross[k], kSliceContourColor});
        lines_.push_back({cross[k + 1], kSliceContourColor});
      }
    }
  }
  // The outline of the slice, so that its extent reads where it is hidden inside the body.
  const Vec3 corners[4] = {local_point(0, 0), local_point(1, 0), local_point(1, 1), local_point(0, 1)};
  for (int k = 0; k < 4; ++k) {
    lines_.push_back({to_glm(Vec3(b.position + rot * corners[k])), kSliceEdgeColor});
    lines_.push_back({to_glm(Vec3(b.position + rot * corners[(k + 1) % 4])), kSliceEdgeColor});
  }
}

void Renderer::draw_slice(const glm::mat4& view_proj) {
  if (slice_triangles_.empty()) return;
  glNamedBufferData(line_vbo_, static_cast<GLsizeiptr>(slice_triangles_.size() * sizeof(LineVertex)),
                    slice_triangles_.data(), GL_STREAM_DRAW);
  const GLuint p = line_program_;
  glUseProgram(p);
  glBindVertexArray(line_vao_);
  set_uniform(p, "u_view_proj", view_proj);
  set_uniform(p, "u_point_size", 1.0f);
  set_uniform(p, "u_round_points", 0);
  // Faint where the body's surface is in front of it, nearly opaque where it is in the open.
  for (int pass = 0; pass < 2; ++pass) {
    glDepthFunc(pass == 0 ? GL_GREATER : GL_LEQUAL);
    set_uniform(p, "u_alpha", pass == 0 ? 0.55f : 0.92f);
    glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(slice_triangles_.size()));
  }
  glDepthFunc(GL_LEQUAL);
}

void Renderer::add_debug_overlay(const AppState& app) {
  const DebugRecording& rec = debug_recording(app, lane_);
  // The methods draw mostly in the contact region, inside the bodies: on top, so that it is seen at all.
  auto line = [this](const Vec3& a, const Vec3& b, const glm::vec4& color) {
    top_lines_.push_back({to_glm(a), color});
    top_lines_.push_back({to_glm(b), color});
  };
  auto color = [](const DebugColor& c) { return glm::vec4(c[0], c[1], c[2], c[3]); };
  const Vec3 eye = to_vec3(app.camera.eye());
  for (const DebugRecording::Line& l : rec.lines) {
    const glm::vec4 c = color(l.color);
    line(l.a, l.b, c);
    if (!l.arrow) continue;
    // A two-stroke head in the plane facing the camera.
    const Vec3 d = l.b - l.a;
    const double length = d.norm();
    if (!(length > 0.0)) continue;
    const Vec3 dir = d / length;
    Vec3 side = dir.cross(l.b - eye);
    if (!(side.norm() > 1e-12)) continue;
    side.normalize();
    const double head = 0.3 * length;
    line(l.b, l.b - head * dir + 0.5 * head * side, c);
    line(l.b, l.b - head * dir - 0.5 * head * side, c);
  }
  for (const DebugRecording::Point& p : rec.points) top_points_.push_back({to_glm(p.p), color(p.color)});
}

namespace {
// The path of a script as a polyline: sample_script over one pass (one lap when looping).
void sample_path(const Script& s, std::vector<Vec3>& out) {
  out.clear();
  const double length = script_length(s);
  const double duration = s.speed > 0.0 ? length / s.speed : 0.0;
  if (!(duration > 0.0) || !std::isfinite(duration) || s.points.size() < 2) {
    out = s.points;  // degenerate: the control points as they are
    return;
  }
  const int samples = std::clamp(static_cast<int>(s.points.size()) * 24, 48, 600);
  for (int k = 0; k <= samples; ++k) {
    const Vec3 p = sample_script(s, s.start_time + duration * k / samples).position;
    if (all_finite(p)) out.push_back(p);
  }
}
}  // namespace

void Renderer::add_script_overlay(const AppState& app) {
  const World& world = *world_;
  const ScriptEditState& draft = app.script;
  std::vector<Vec3> path;
  auto polyline = [this](const std::vector<Vec3>& pts, const glm::vec4& color) {
    for (size_t k = 1; k < pts.size(); ++k) {
      top_lines_.push_back({to_glm(pts[k - 1]), color});
      top_lines_.push_back({to_glm(pts[k]), color});
    }
  };
  if (app.view.show_scripts) {
    for (const Script& s : world.scripts) {
      const bool selected = s.body == app.pick.selected;
      const glm::vec4 color = selected ? kSelectedPathColor : kPathColor;
      sample_path(s, path);
      polyline(path, color);
      for (const Vec3& p : s.points) top_points_.push_back({to_glm(p), color * glm::vec4(1, 1, 1, 0.7f)});
    }
  }
  // The draft of the selected body while it is being laid or differs from what was applied.
  const bool own = draft.body == app.pick.selected && draft.generation == app.scene.generation && draft.body >= 0;
  if (!own || draft.points.empty()) return;
  const int applied = find_script(world, draft.body);
  if (!draft.laying && applied >= 0 && world.scripts[applied].points == draft.points) return;
  Script s = draft_script(draft, 0.0);
  if (!(s.speed > 0.0)) s.speed = 1.0;
  sample_path(s, path);
  polyline(path, kDraftColor);
  for (const Vec3& p : draft.points) top_points_.push_back({to_glm(p), kDraftColor});
  if (draft.laying && draft.has_hover) {  // where the next click would put a point
    top_lines_.push_back({to_glm(draft.points.back()), kHoverColor});
    top_lines_.push_back({to_glm(draft.hover), kHoverColor});
    top_points_.push_back({to_glm(draft.hover), kHoverColor});
  }
}

}  // namespace cl::viewer
