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
#include "viewer/selection.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace {

// Towards the key light: high, slightly in front and to the right of the default view.
const glm::vec3 kLightDir = glm::normalize(glm::vec3(0.45f, 1.0f, 0.35f));
const glm::vec3 kPlaneColor{0.50f, 0.51f, 0.53f};
const glm::vec3 kDimTarget{0.19f, 0.21f, 0.25f};  // the background: dimmed bodies fade into it

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

void update_force_reference(ViewState& view, const ContactReport& report) {
  float largest = 0.0f;
  for (const ReportedContact& c : report.contacts) {
    largest = std::max({largest, static_cast<float>(c.normal_force.norm()),
                        static_cast<float>(c.friction_force.norm())});
  }
  if (!std::isfinite(largest)) return;
  // Rises at once, decays over a second or two at 60 frames per second.
  view.force_reference = std::max(largest, view.force_reference * 0.98f);
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

  // The view's part of the window (UiState::scene_area; lane_cell), clipped to it: in the split comparison one cell
  // per lane, each seen by the same camera and drawn with that lane's own overlays; else one view, the other lanes'
  // moving bodies as translucent ghosts in their lane colour over lane 1.
  const float scale = static_cast<float>(fb_width) / std::max(app.viewport_width, 1.0f);
  auto viewport = [&](const LaneCell& c) {
    const int x = static_cast<int>(c.x * scale), w = std::max(static_cast<int>(c.width * scale), 1);
    const int h = std::max(static_cast<int>(c.height * scale), 1);
    const int y = fb_height - static_cast<int>((c.y + c.height) * scale);
    glViewport(x, y, w, h);
    glScissor(x, y, w, h);
    return app.camera.projection(static_cast<float>(w) / static_cast<float>(h)) * app.camera.view();
  };
  glEnable(GL_SCISSOR_TEST);
  if (split_view(app)) {
    for (int lane = 0; lane < lane_count(app); ++lane) {
      world_ = &lane_world(app, lane);
      lane_ = lane;
      const LaneCell c = lane_cell(app, lane);
      const glm::mat4 view_proj = viewport(c);
      draw_planes(app, view_proj);
      draw_bodies(app, view_proj, nullptr);
      draw_overlays(app, view_proj, c.height * scale);
    }
  } else {
    world_ = &app.scene.world;
    const LaneCell c = lane_cell(app, 0);
    const glm::mat4 view_proj = viewport(c);
    draw_planes(app, view_proj);
    draw_bodies(app, view_proj, nullptr);
    for (int lane = 1; lane < lane_count(app); ++lane) {
      world_ = &lane_world(app, lane);
      const std::array<float, 3> color = lane_color(lane);
      const glm::vec4 ghost(color[0], color[1], color[2], 0.38f);
      draw_bodies(app, view_proj, &ghost);
    }
    world_ = &app.scene.world;
    lane_ = 0;
    draw_overlays(app, view_proj, static_cast<float>(fb_height));
  }
  glDisable(GL_SCISSOR_TEST);
  glViewport(0, 0, fb_width, fb_height);
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

}  // namespace cl::viewer
