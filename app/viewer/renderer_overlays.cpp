#include "viewer/renderer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <utility>

#include "collision/mesh_shape.h"
#include "core/shape.h"
#include "viewer/colors.h"
#include "viewer/convert.h"
#include "viewer/gl_util.h"
#include "viewer/script_edit.h"
#include "viewer/selection.h"
#include "viewer/debug_view.h"
#include "viewer/session.h"

namespace cl::viewer {

namespace {

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
const glm::vec4 kShellColor{0.35f, 1.00f, 0.55f, 1.0f};
const glm::vec4 kSliceEdgeColor{0.95f, 0.95f, 0.95f, 0.7f};
const glm::vec4 kSliceContourColor{0.10f, 0.10f, 0.12f, 0.9f};  // the zero level of the distance field

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

// Clip-space depth (times w) by which depth-tested contact marks are drawn nearer the eye than they are: a point
// on a surface (a contact between a box and the ground) then shows, one a few millimetres behind a wall at a few
// metres does not (the perspective depth's resolution there, OrbitCamera::projection).
constexpr float kSurfaceDepthBias = 2e-4f;

}  // namespace

void Renderer::draw_overlays(const AppState& app, const glm::mat4& view_proj, float fb_height) {
  lines_.clear();
  points_.clear();
  contact_lines_.clear();
  contact_points_.clear();
  top_lines_.clear();
  top_points_.clear();
  const World& world = *world_;
  const ViewState& view = app.view;

  auto line = [this](const Vec3& a, const Vec3& b, const glm::vec4& color) {
    lines_.push_back({to_glm(a), color});
    lines_.push_back({to_glm(b), color});
  };
  auto contact_line = [this](const Vec3& a, const Vec3& b, const glm::vec4& color) {
    contact_lines_.push_back({to_glm(a), color});
    contact_lines_.push_back({to_glm(b), color});
  };
  // Metres of arrow per N of contact force (the View panel states it).
  const double force_scale = view.force_arrow_scale();
  const size_t stride = contact_draw_stride(world.contacts().size());
  for (size_t k = 0; k < world.contacts().size(); k += stride) {
    const Contact& c = world.contacts()[k];
    if (!all_finite(c.position) || !all_finite(c.normal)) continue;
    if (view.show_contacts) contact_points_.push_back({to_glm(c.position), kContactColor});
    if (view.show_normals) contact_line(c.position, c.position + view.normal_length * c.normal, kNormalColor);
  }
  // The forces every method reports (World::contact_report), on b, at their points of application; depth-tested
  // like the contacts.
  const std::vector<ReportedContact>& reported = world.contact_report().contacts;
  const size_t force_stride = contact_draw_stride(reported.size());
  for (size_t k = 0; view.show_impulses && k < reported.size(); k += force_stride) {
    const ReportedContact& c = reported[k];
    if (!all_finite(c.point) || !all_finite(c.normal_force) || !all_finite(c.friction_force)) continue;
    contact_line(c.point, c.point + force_scale * c.normal_force, kNormalImpulseColor);
    contact_line(c.point, c.point + force_scale * c.friction_force, kFrictionImpulseColor);
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
  // Contacts: depth-tested like the bodies (a point on a surface wins against it), or also faint behind them.
  draw_line_batch(contact_lines_, contact_points_, false, view_proj, point_size, !view.contacts_through);
  draw_line_batch(top_lines_, top_points_, true, view_proj, point_size);
  glDepthFunc(GL_LEQUAL);
  glDepthMask(GL_TRUE);
  glDisable(GL_BLEND);
  glDisable(GL_PROGRAM_POINT_SIZE);
}

void Renderer::draw_line_batch(std::vector<LineVertex>& lines, const std::vector<LineVertex>& points, bool on_top,
                               const glm::mat4& view_proj, float point_size, bool visible_only) {
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
  // Visible only: one depth-tested pass, drawn a little towards the eye so that what lies on a surface shows.
  const int passes = on_top || visible_only ? 1 : 2;
  if (on_top) glDisable(GL_DEPTH_TEST);
  set_uniform(p, "u_depth_bias", visible_only ? kSurfaceDepthBias : 0.0f);
  for (int pass = 0; pass < passes; ++pass) {
    const bool hidden_pass = !on_top && !visible_only && pass == 0;
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
  set_uniform(p, "u_depth_bias", 0.0f);
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
