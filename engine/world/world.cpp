#include "world/world.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <thread>

#include "collision/narrowphase.h"
#include "world/contact_matching.h"
#include "world/contact_recycling.h"
#include "solvers/registry.h"

namespace cl {

namespace {

// Whether a pair's contacts of this step have the same features as `previous` (the pair's contacts of the last
// step), in any order.
template <class Range>
bool same_features(const ContactList& found, const Range& previous) {
  const auto [first, last] = previous;
  if (size_t(last - first) != found.size()) return false;
  for (const Contact& c : found)
    if (std::none_of(first, last, [&](const Contact& p) { return p.feature == c.feature; })) return false;
  return true;
}

bool contact_less(const Contact& x, const Contact& y) {
  if (x.a != y.a) return x.a < y.a;
  if (x.b != y.b) return x.b < y.b;
  return x.feature < y.feature;
}

}  // namespace

World::World() : solver_(find_solver("lcp")->make()) {}

int World::find_body(std::string_view body_name) const {
  for (size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i].name == body_name) return int(i);
  return -1;
}

int World::find_material(std::string_view material_name) const {
  for (size_t i = 0; i < materials.size(); ++i)
    if (materials[i].name == material_name) return int(i);
  return -1;
}

bool World::allows_solver(std::string_view solver_name) const {
  return methods.empty() || std::find(methods.begin(), methods.end(), solver_name) != methods.end();
}

bool World::set_solver(std::string_view solver_name, std::string* error) {
  const SolverInfo* info = find_solver(solver_name);
  if (!info) {
    if (error) *error = "unknown solver '" + std::string(solver_name) + "' (available: " + solver_names() + ")";
    return false;
  }
  if (!allows_solver(solver_name)) {
    if (error) {
      std::string listed;
      for (const std::string& m : methods) listed += (listed.empty() ? "" : ", ") + m;
      *error = "scene '" + name + "' is for the methods " + listed + " (its \"methods\"), not '" +
               std::string(solver_name) + "'";
    }
    return false;
  }
  finish_report();  // by the method that made the step
  kept_params_.insert_or_assign(std::string(solver_->name()), solver_->params());
  solver_ = info->make();
  if (const auto kept = kept_params_.find(solver_name); kept != kept_params_.end()) {
    solver_->params() = kept->second;
    kept_params_.erase(kept);
  }
  ++solver_changes_;
  reset_contacts();  // impulses cached by another method mean nothing to this one
  return true;
}

const ParamSet* World::find_params(std::string_view solver_name) const {
  if (solver_->name() == solver_name) return &solver_->params();
  const auto kept = kept_params_.find(solver_name);
  return kept != kept_params_.end() ? &kept->second : nullptr;
}

ParamSet* World::solver_params(std::string_view solver_name) {
  finish_report();  // before the parameters it reads can change
  if (const ParamSet* p = find_params(solver_name)) return const_cast<ParamSet*>(p);  // ours: this is not const
  const SolverInfo* info = find_solver(solver_name);
  if (!info) return nullptr;
  return &kept_params_.emplace(std::string(solver_name), ParamSet(info->params)).first->second;
}

ParamSet World::solver_params_copy(std::string_view solver_name) const {
  if (const ParamSet* p = find_params(solver_name)) return *p;
  const SolverInfo* info = find_solver(solver_name);
  return info ? ParamSet(info->params) : ParamSet();
}

std::vector<std::string> World::unsupported_features() const {
  return solver_->unsupported(SceneFeatures{bodies, materials, joints});
}

void World::finish_report() const {
  if (!report_owed_) return;
  report_owed_ = false;
  if (bodies.size() != report_bodies_) return;  // bodies added or removed since the step: no report
  // What the step's StepContext held: the bodies, contacts and graph the step left (the method reads them only).
  World& self = const_cast<World&>(*this);
  SolverStats unused;
  const StepContext ctx{self.bodies, self.contacts_, graph_, joints, report_.dt, settings.gravity, unused, nullptr};
  solver_->report_contacts(ctx, report_);
  stats_.residuals = contact_residuals(report_);
}

void World::reset_contacts() {
  // The bodies were added, removed or moved (a keyframe, an edit): a report still owed would read them, not the
  // step's, and is dropped with the contacts it is of (the step left the report and its residuals empty).
  report_owed_ = false;
  ++contact_resets_;
  contacts_.clear();
  previous_contacts_.clear();
  anchors_.clear();
  previous_anchors_.clear();
  broadphase_.clear();
  graph_.clear();
}

void World::set_clock(double time, int64_t steps) {
  time_ = time;
  step_count_ = steps;
  reset_contacts();
}

// One step of the simulation; each stage is timed into the step's profile.
StepResult World::step() {
  StepResult result;
  StepStats stats;
  SolverStats solver_stats;
  {
    ScopedTimer total(stats.profile.total);
    // Scripted bodies take their pose at t and the velocity that carries them along their path.
    apply_scripts(scripts, bodies, time_, settings.dt);
    // Applied forces and the drag spring go into Body::force / torque, which every solver integrates.
    apply_forces(forces, bodies, step_count_, time_, settings.dt);
    apply_drag();
    solver_->begin_step();
    const double energy_before = kinetic_energy() + potential_energy();
    // Sampled only where the step may conserve it (isolated()): with gravity, applied forces or drag it does not.
    const MomentumSample momentum_before = unforced() ? momentum() : MomentumSample{};
    bool found = false;
    {
      ScopedTimer t(stats.profile.broad_phase);
      found = update_bounds(result);
      if (found) graph_.update_edges(pairs_);
    }
    if (found) {
      ScopedTimer t(stats.profile.narrow_phase);
      found = find_contacts(result);
    }
    if (found) {
      ScopedTimer t(stats.profile.graph);
      find_groups();
    }
    StepContext ctx{bodies, contacts_, graph_, joints, settings.dt, settings.gravity, solver_stats, workers()};
    if (found) {
      ScopedTimer t(stats.profile.solve);
      solver_->solve_velocities(ctx);
    }
    swept_stops_.clear();
    if (found && check_finite("solve", result)) {
      ScopedTimer t(stats.profile.integrate);
      motions_.clear();
      for (const Body& b : bodies) motions_.emplace_back(b);
      solver_->integrate_positions(ctx);
      if (settings.continuous && check_finite("integrate", result)) continuous_collision();
    }
    report_.clear();
    report_.dt = settings.dt;
    report_owed_ = found && result.ok;  // the report and its residuals: finish_report, when first read
    report_bodies_ = bodies.size();
    if (found && result.ok) {
      if (isolated()) {
        const MomentumSample after = momentum();
        stats.momentum_error = (after.linear - momentum_before.linear).norm();
        stats.angular_momentum_error = (after.angular - momentum_before.angular).norm();
      }
    }
    stats.kinetic_energy = kinetic_energy();  // the step's last change of the bodies' velocities and poses
    stats.potential_energy = potential_energy();
    stats.energy_change = stats.kinetic_energy + stats.potential_energy - energy_before;
    if (result.ok && check_finite("integrate", result) && check_speed("integrate", result))
      check_not_through_planes("integrate", result);
    update_servo_coordinates(joints, bodies);  // hinge servos count whole turns
    for (Body& b : bodies) {
      b.force.setZero();
      b.torque.setZero();
    }
  }
  time_ += settings.dt;
  ++step_count_;

  stats.step = step_count_;
  stats.time = time_;
  stats.pairs = int(pairs_.size());
  stats.contacts = int(contacts_.size());
  stats.groups = int(graph_.groups().size());
  stats.layers = graph_.max_layer_count();
  stats.sleeping = solver_stats.sleeping;
  stats.iterations = solver_stats.iterations;
  stats.residual = solver_stats.residual;
  const Penetration penetration_now = penetration();
  stats.max_penetration = penetration_now.max;
  stats.mean_penetration = penetration_now.mean;
  stats.sub_stages = solver_->sub_stages();
  stats.counters = solver_->counters();
  stats_ = stats;
  return result;
}

void World::wake(int body) {
  if (body < 0 || body >= int(bodies.size())) return;
  bodies[body].sleeping = false;
  bodies[body].calm_steps = 0;
}

namespace {
// WorldSettings::max_contacts as a count, SIZE_MAX for no limit.
size_t contact_limit(const WorldSettings& settings) {
  return settings.max_contacts > 0 ? size_t(settings.max_contacts) : SIZE_MAX;
}
}  // namespace

void World::too_many_contacts(const char* what, size_t count, StepResult& result) const {
  result.ok = false;
  result.error = "too many contacts: more than " + std::to_string(count) + " " + what + " at step " +
                 std::to_string(step_count_ + 1) + " (max_contacts " + std::to_string(settings.max_contacts) +
                 "): bodies are heaped at one place; spread them out, or raise max_contacts if memory allows";
}

// Broad phase: bounding boxes grown by the contact margin, then sweep-and-prune.
void World::body_bounds(const std::vector<Body>& poses, std::vector<Aabb>& boxes, std::vector<char>& is_static) const {
  const size_t n = poses.size();
  boxes.resize(n);
  is_static.resize(n);
  const double m = 0.5 * settings.contact_margin;
  for (size_t i = 0; i < n; ++i) {
    const Body& b = poses[i];
    Aabb box = shape_aabb(b.shape, b.position, b.orientation);
    box.lo.array() -= m;
    box.hi.array() += m;
    boxes[i] = box;
    is_static[i] = b.kind != BodyKind::Dynamic;  // fixed-fixed, fixed-kinematic and kinematic pairs never collide
  }
}

bool World::update_bounds(StepResult& result) {
  body_bounds(bodies, bounds_, is_static_);
  const size_t limit = contact_limit(settings);
  // The pairs depend on the boxes and their static flags alone: where these are the ones pairs_ was found for, bit
  // for bit (a scene at rest), the pairs are still the same. A sweep over a 100-row pyramid tests each box against
  // the hundred or so its interval overlaps along the axis.
  const bool same = bounds_.size() == pairs_bounds_.size() && is_static_ == pairs_static_ &&
                    std::memcmp(bounds_.data(), pairs_bounds_.data(), bounds_.size() * sizeof(Aabb)) == 0;
  if (same && pairs_.size() <= limit) return true;
  if (broadphase_.find_pairs(bounds_, is_static_, pairs_, limit)) {
    std::swap(bounds_, pairs_bounds_);  // kept for the next step's test; bounds_ is rewritten whole
    std::swap(is_static_, pairs_static_);
    return true;
  }
  pairs_.clear();  // and, as no boxes have pairs, kept as the pairs of none
  pairs_bounds_.clear();
  pairs_static_.clear();
  too_many_contacts("overlapping pairs", limit, result);
  return false;
}

std::vector<BodyPair> World::collision_pairs(const std::vector<Body>& poses) const {
  std::vector<Aabb> boxes;
  std::vector<char> is_static;
  body_bounds(poses, boxes, is_static);
  std::vector<BodyPair> found, out;
  BroadPhase broadphase;  // its own: the world's keeps the order of the bodies it steps
  if (!broadphase.find_pairs(boxes, is_static, found, contact_limit(settings))) return out;
  // Bodies joined by a joint do not collide (find_contacts).
  const std::vector<BodyPair> joined = joined_pairs(joints);
  for (const BodyPair& p : found)
    if (!std::binary_search(joined.begin(), joined.end(), p)) out.push_back(p);
  return out;
}

void World::draw_debug(DebugDraw& draw, const std::vector<Body>* poses) const {
  if ((solver_->debug_layers() & draw.request.layers) == 0) return;  // nothing the method draws: no broad phase
  const std::vector<Body>& at = poses != nullptr ? *poses : bodies;
  const std::vector<BodyPair> pairs = collision_pairs(at);
  solver_->draw_debug(DebugScene{at, pairs, contacts_}, draw);
}

// Narrow phase over the graph's current edges. A pair neither of whose bodies moved since its contacts
// were computed (resting or asleep) keeps them as they are (coherence, thesis sect. 5.2); the others are
// collided and then matched with the previous step's contacts for warm starting.
TaskPool* World::workers() {
  const int threads = settings.threads > 0 ? settings.threads : int(std::max(1u, std::thread::hardware_concurrency()));
  if (threads == 1) return nullptr;
  if (!workers_.pool || workers_.pool->threads() != threads) workers_.pool = std::make_unique<TaskPool>(threads);
  return workers_.pool.get();
}

// The narrow phase. Pairs whose bodies have not moved keep last step's contacts; the others are collided, on the
// world's threads when the method's collide() is reentrant, each pair into its own list; the lists are then joined
// in pair order, so the contacts are the same on any number of threads.
bool World::find_contacts(StepResult& result) {
  const size_t limit = contact_limit(settings);
  // The last step's contacts. Each edge still holds its pair's range of them (ContactGraph::attach_contacts, kept
  // by update_edges; a new edge's pair had none), so no pair searches the list: a binary search over a 100-row
  // pyramid's 20,000 contacts cost more than the rest of this pass.
  std::swap(previous_contacts_, contacts_);
  std::swap(previous_anchors_, anchors_);
  auto previous_of = [&](const GraphEdge& e) {
    const auto first = previous_contacts_.begin() + e.first_contact;
    return std::pair(first, first + e.contact_count);
  };
  // Bodies joined by a joint do not collide with each other (as in ODE): the joint decides how they meet.
  const std::vector<BodyPair> joined = joined_pairs(joints);
  std::vector<GraphEdge>& edges = graph_.edges();
  // Each edge's work into its own slot, on the world's threads for a large graph (a resting 100-row pyramid's
  // 15,000 pairs), then gathered in edge order: the same work on any number of threads. Fewer than 8 tasks' worth
  // (about 0.2 ms on one thread) stay on the calling thread.
  constexpr int kEdgesPerTask = 256;
  const int edge_count = int(edges.size());
  TaskPool* edge_pool = edge_count >= 8 * kEdgesPerTask ? workers() : nullptr;
  // Runs each(i) for edges (or kept pairs) i in [0, n): on the world's threads from 8 tasks' worth on.
  auto for_each = [&](int n, auto&& each) {
    for_ranges(n >= 8 * kEdgesPerTask ? edge_pool : nullptr, n, kEdgesPerTask, [&](int first, int last, int) {
      for (int i = first; i < last; ++i) each(i);
    });
  };
  const double recycle = solver_->recycle_distance();
  pair_work_.resize(edges.size());
  for_each(edge_count, [&](int i) {
    const GraphEdge& e = edges[size_t(i)];
    PairWork& work = pair_work_[size_t(i)];
    work = PairWork{i};
    if ((e.events & kVanishedProximity) || std::binary_search(joined.begin(), joined.end(), BodyPair{e.a, e.b})) {
      work.edge = -1;  // not a pair to collide
      return;
    }
    const bool unmoved = ContactGraph::unmoved(e, bodies);
    // A pair that moved less than the method's recycle distance since its contacts were computed keeps them,
    // re-projected to the bodies' poses (world/contact_recycling.h).
    const bool recycled = !unmoved && recycle > 0.0 && e.anchored &&
                          relative_motion(e, bodies) <= recycle_limit(recycle, bodies[e.a], bodies[e.b]);
    if (!unmoved && !recycled) {
      work.found = 0;  // numbered below
    } else {
      work.kept_first = size_t(e.first_contact);
      work.kept_last = size_t(e.first_contact + e.contact_count);
      work.recycled = recycled;
    }
  });
  to_collide_.clear();
  size_t kept = 0;  // contacts of unmoved and recycled pairs
  size_t pairs = 0;
  for (const PairWork& work : pair_work_) {
    if (work.edge < 0) continue;
    PairWork& to = pair_work_[pairs++];
    to = work;
    if (to.found >= 0) {
      to.found = int(to_collide_.size());
      to_collide_.push_back(to.edge);
    } else {
      kept += to.kept_last - to.kept_first;
    }
  }
  pair_work_.resize(pairs);
  // Every pair keeps its contacts, and together they are the whole previous list (a stack at rest): the list
  // stays where it is. A copy read and wrote each contact once more, and two lists took twice the cache.
  if (to_collide_.empty() && kept == previous_contacts_.size() && kept <= limit) {
    std::swap(previous_contacts_, contacts_);
    std::swap(previous_anchors_, anchors_);
    for_each(int(pairs), [&](int i) {
      const PairWork& work = pair_work_[size_t(i)];
      continue_kept(edges[size_t(work.edge)], work.recycled, work.kept_first, work.kept_last);
    });
    graph_.keep_contacts();  // the ranges are as they were: no walk over the list (0.2 ms on large_pyramid)
    return true;
  }

  // Collide. A heap of bodies at one place can have far more contacts than memory holds, so the running count
  // stops the work as soon as it passes the limit.
  if (found_.size() < to_collide_.size()) found_.resize(to_collide_.size());
  std::atomic<size_t> total{kept};
  std::atomic<bool> over{kept > limit};
  constexpr int kPairsPerTask = 8;
  const int tasks = (int(to_collide_.size()) + kPairsPerTask - 1) / kPairsPerTask;
  // `split`: the threads a pair may use for itself (when the pairs are too few to share out).
  auto collide_pairs = [&](int task, TaskPool* split) {
    const size_t end = std::min(to_collide_.size(), size_t(task + 1) * kPairsPerTask);
    for (size_t k = size_t(task) * kPairsPerTask; k < end; ++k) {
      ContactList& out = found_[k];
      out.clear();
      if (over.load(std::memory_order_relaxed)) return;
      const GraphEdge& e = edges[size_t(to_collide_[k])];
      if (split)
        solver_->collide_on_threads(*split, bodies, e.a, e.b, settings.contact_margin, out);
      else
        solver_->collide(bodies, e.a, e.b, settings.contact_margin, out);
      if (total.fetch_add(out.size(), std::memory_order_relaxed) + out.size() > limit) over = true;
    }
  };
  TaskPool* pool = solver_->concurrent_collide() ? workers() : nullptr;
  if (pool && tasks > 1) {
    pool->run(tasks, [&](int task, int) { collide_pairs(task, nullptr); });
  } else {
    // One task or one thread: the pairs one after another, each with the threads (if any) to itself.
    for (int t = 0; t < tasks; ++t) collide_pairs(t, pool);
  }
  if (over) {
    contacts_.clear();
    anchors_.clear();
    graph_.attach_contacts(contacts_);
    too_many_contacts("contacts", limit, result);
    return false;
  }

  // Join in edge order: each pair's place in the list first, then its contacts written there, on the world's threads
  // for a large graph. The list's room is the last step but one's: every element is written.
  size_t joined_count = 0;
  for (PairWork& work : pair_work_) {
    work.at = joined_count;
    joined_count += work.found < 0 ? work.kept_last - work.kept_first : found_[size_t(work.found)].size();
  }
  contacts_.resize(joined_count);
  anchors_.resize(joined_count);
  for_each(int(pair_work_.size()), [&](int i) {
    const PairWork& work = pair_work_[size_t(i)];
    GraphEdge& e = edges[size_t(work.edge)];
    const auto at = std::ptrdiff_t(work.at);
    if (work.found < 0) {
      const auto first = std::ptrdiff_t(work.kept_first), last = std::ptrdiff_t(work.kept_last);
      std::copy(previous_contacts_.begin() + first, previous_contacts_.begin() + last, contacts_.begin() + at);
      std::copy(previous_anchors_.begin() + first, previous_anchors_.begin() + last, anchors_.begin() + at);
      continue_kept(e, work.recycled, work.at, work.at + size_t(last - first));
      return;
    }
    const auto [friction, restitution] = pair_materials(e);
    const ContactList& found = found_[size_t(work.found)];
    ContactGraph::remember_placement(e, bodies);
    const auto begin = contacts_.begin() + at;
    const auto end = std::copy(found.begin(), found.end(), begin);
    // Recycled later only once two narrow phases in a row agree on the pair's features: a manifold found at an exact
    // alignment (a box set down across two others, its supports' corners on its edges) misses points that the
    // narrow phase finds as soon as the bodies have moved at all, and is not kept.
    e.anchored = recycle > 0.0 && same_features(found, previous_of(e));
    // A list already strictly increasing (implicit-penalty's points come in feature order) has only this order:
    // the sort would leave it as it is.
    if (std::adjacent_find(begin, end, [](const Contact& x, const Contact& y) { return !contact_less(x, y); }) != end)
      std::sort(begin, end, contact_less);
    for (auto c = begin; c != end; ++c) {
      c->friction = friction;
      c->restitution = restitution;
      c->persisted = false;
    }
    if (e.anchored)
      anchor_contacts(bodies[e.a], bodies[e.b], contacts_.data() + at, contacts_.data() + at + found.size(),
                      anchors_.data() + at);
    else
      std::fill(anchors_.begin() + at, anchors_.begin() + at + std::ptrdiff_t(found.size()), ContactAnchor{});
  });
  match_previous_contacts(previous_contacts_, contacts_);
  graph_.attach_contacts(contacts_);
  return true;
}

// The friction and restitution of a pair's contacts: the geometric mean and the larger of its bodies' materials.
// Materials may change while the world runs (the viewer edits them), so kept contacts take them too.
std::pair<double, double> World::pair_materials(const GraphEdge& e) const {
  const Material& ma = materials[bodies[e.a].material];
  const Material& mb = materials[bodies[e.b].material];
  return {std::sqrt(ma.friction * mb.friction), std::max(ma.restitution, mb.restitution)};
}

// Contacts [first, last) of contacts_, a pair's kept from the step before, as this step takes them: continued, with
// the pair's materials as they are now, re-projected to the bodies' poses when recycled (world/contact_recycling.h).
void World::continue_kept(const GraphEdge& e, bool recycled, size_t first, size_t last) {
  const auto [friction, restitution] = pair_materials(e);
  for (size_t k = first; k < last; ++k) {
    contacts_[k].persisted = true;
    contacts_[k].friction = friction;
    contacts_[k].restitution = restitution;
  }
  if (recycled)
    recycle_contacts(bodies[e.a], bodies[e.b], anchors_.data() + first, contacts_.data() + first,
                     contacts_.data() + last);
}

// Contact groups over touching edges and joints, then stack heights and layers (thesis sect. 5.2, 8.3).
void World::find_groups() {
  graph_.find_groups(bodies, joined_pairs(joints));
  graph_.find_layers(bodies);
}

void World::apply_drag() {
  if (drag_.body < 0 || drag_.body >= int(bodies.size())) return;
  Body& b = bodies[drag_.body];
  if (!b.is_dynamic()) return;
  wake(drag_.body);  // a user pulling a body wakes it (and through its contacts, its group)
  const Vec3 anchor = b.position + b.orientation * drag_.local_anchor;
  const Vec3 f = b.mass * (drag_.stiffness * (drag_.target - anchor) - drag_.damping * b.velocity_at(anchor));
  b.force += f;
  b.torque += (anchor - b.position).cross(f);
}

bool World::check_finite(const char* stage, StepResult& result) const {
  for (const Body& b : bodies) {
    const char* what = nullptr;
    if (!all_finite(b.position)) what = "position";
    else if (!b.orientation.coeffs().allFinite()) what = "orientation";
    else if (!all_finite(b.linear_velocity)) what = "linear velocity";
    else if (!all_finite(b.angular_velocity)) what = "angular velocity";
    if (what) {
      result.ok = false;
      result.error = "non-finite " + std::string(what) + " of body '" + b.name + "' after the " + stage +
                     " stage of step " + std::to_string(step_count_ + 1);
      return false;
    }
  }
  return true;
}

// The blow-up rule: a point of a dynamic body faster than settings.max_speed.
bool World::check_speed(const char* stage, StepResult& result) const {
  if (settings.max_speed <= 0.0) return true;
  for (const Body& b : bodies) {
    if (!b.is_dynamic()) continue;
    const double speed = shape_point_speed(b.shape, b.linear_velocity, b.angular_velocity);
    if (speed > settings.max_speed) {
      char text[96];
      std::snprintf(text, sizeof text, "%.4g m/s (max_speed %.4g m/s)", speed, settings.max_speed);
      result.ok = false;
      result.error = "blow-up: body '" + b.name + "' moves at " + text + " after the " + stage + " stage of step " +
                     std::to_string(step_count_ + 1);
      return false;
    }
  }
  return true;
}

// A dynamic body wholly behind a fixed plane (a half-space: the ground) has passed through it, whatever the
// method: the run stops (exit 3) rather than go on with the body inside. The highest point of the body's bounding
// box along the plane's normal is a bound on its surface's, so only a body that is certainly through is caught.
bool World::check_not_through_planes(const char* stage, StepResult& result) const {
  for (const Body& plane : bodies) {
    if (plane.is_dynamic() || plane.shape.type != ShapeType::Plane) continue;
    const Vec3 n = plane.orientation * plane.shape.normal;
    const double offset = plane.shape.offset + n.dot(plane.position);
    for (const Body& b : bodies) {
      if (!b.is_dynamic() || b.shape.type == ShapeType::Plane) continue;
      const Aabb box = shape_aabb(b.shape, b.position, b.orientation);
      const Vec3 c = 0.5 * (box.lo + box.hi), e = 0.5 * (box.hi - box.lo);
      const double highest = n.dot(c) + n.cwiseAbs().dot(e) - offset;  // its farthest corner from the plane
      if (highest < 0.0) {
        char text[64];
        std::snprintf(text, sizeof text, "%.3g m", -highest);
        result.ok = false;
        result.error = "body '" + b.name + "' went through the plane '" + plane.name + "': all of it is " + text +
                       " or more behind it after the " + stage + " stage of step " + std::to_string(step_count_ + 1) +
                       " (a body thinner than the method's allowed penetration sinks through; make it thicker)";
        return false;
      }
    }
  }
  return true;
}

double World::kinetic_energy() const {
  double e = 0.0;
  for (const Body& b : bodies)
    if (b.is_dynamic()) {
      double body = 0.5 * b.mass * b.linear_velocity.squaredNorm();
      // A body not turning adds nothing, and its world inertia (two products of 3x3 matrices) is not formed.
      if (!b.angular_velocity.isZero(0.0)) body += 0.5 * b.angular_velocity.dot(b.inertia_world() * b.angular_velocity);
      e += body;
    }
  return e;
}

double World::potential_energy() const {
  double e = 0.0;
  for (const Body& b : bodies)
    if (b.is_dynamic()) e -= b.mass * settings.gravity.dot(b.position);
  return e;
}

bool World::unforced() const { return settings.gravity.isZero(0.0) && forces.empty() && drag_.body < 0; }

bool World::isolated() const {
  if (!unforced()) return false;
  for (const Body& b : bodies)
    if (b.is_dynamic() && (!b.force.isZero(0.0) || !b.torque.isZero(0.0))) return false;
  for (const Contact& c : contacts_)
    if (!bodies[size_t(c.a)].is_dynamic() || !bodies[size_t(c.b)].is_dynamic()) return false;
  for (const Joint& j : joints)
    if ((j.body_a >= 0 && !bodies[size_t(j.body_a)].is_dynamic()) ||
        (j.body_b >= 0 && !bodies[size_t(j.body_b)].is_dynamic()) || j.body_a < 0 || j.body_b < 0)
      return false;
  return true;
}

MomentumSample World::momentum() const {
  MomentumSample m;
  for (const Body& b : bodies)
    if (b.is_dynamic()) {
      const Vec3 p = b.mass * b.linear_velocity;
      m.linear += p;
      m.angular += b.position.cross(p) + b.inertia_world() * b.angular_velocity;
    }
  return m;
}

// Both in one pass over the contacts: a large scene's list is far larger than the cache.
World::Penetration World::penetration() const {
  double deepest = 0.0, sum = 0.0;
  int count = 0;
  for (const Contact& c : contacts_) {
    deepest = std::max(deepest, c.depth);
    if (c.depth > 0.0) {
      sum += c.depth;
      ++count;
    }
  }
  return {deepest, count > 0 ? sum / count : 0.0};
}

double World::max_penetration() const { return penetration().max; }

double World::mean_penetration() const { return penetration().mean; }

}  // namespace cl
