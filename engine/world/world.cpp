#include "world/world.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <thread>

#include "collision/narrowphase.h"
#include "world/contact_matching.h"
#include "solvers/registry.h"

namespace cl {

namespace {

// m: how close continuous collision brings a pair to its target distance, and the least motion it sweeps.
constexpr double kSweepTolerance = 1e-4;

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
  kept_params_.insert_or_assign(std::string(solver_->name()), solver_->params());
  solver_ = info->make();
  if (const auto kept = kept_params_.find(solver_name); kept != kept_params_.end()) {
    solver_->params() = kept->second;
    kept_params_.erase(kept);
  }
  reset_contacts();  // impulses cached by another method mean nothing to this one
  return true;
}

const ParamSet* World::find_params(std::string_view solver_name) const {
  if (solver_->name() == solver_name) return &solver_->params();
  const auto kept = kept_params_.find(solver_name);
  return kept != kept_params_.end() ? &kept->second : nullptr;
}

ParamSet* World::solver_params(std::string_view solver_name) {
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

void World::reset_contacts() {
  contacts_.clear();
  previous_contacts_.clear();
  broadphase_.clear();
  graph_.clear();
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
    if (result.ok && check_finite("integrate", result)) check_speed("integrate", result);
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
  stats.max_penetration = max_penetration();
  stats.mean_penetration = mean_penetration();
  stats.sub_stages = solver_->sub_stages();
  stats.counters = solver_->counters();
  stats.kinetic_energy = kinetic_energy();
  stats.potential_energy = potential_energy();
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
  std::vector<char> is_static;
  body_bounds(bodies, bounds_, is_static);
  const size_t limit = contact_limit(settings);
  if (broadphase_.find_pairs(bounds_, is_static, pairs_, limit)) return true;
  pairs_.clear();
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
  std::swap(previous_contacts_, contacts_);
  contacts_.clear();
  auto previous_of = [&](int a, int b) {
    auto first = std::lower_bound(previous_contacts_.begin(), previous_contacts_.end(), std::pair(a, b),
                                  [](const Contact& c, const std::pair<int, int>& p) {
                                    return c.a != p.first ? c.a < p.first : c.b < p.second;
                                  });
    auto last = first;
    while (last != previous_contacts_.end() && last->a == a && last->b == b) ++last;
    return std::pair(first, last);
  };
  // Bodies joined by a joint do not collide with each other (as in ODE): the joint decides how they meet.
  const std::vector<BodyPair> joined = joined_pairs(joints);
  std::vector<GraphEdge>& edges = graph_.edges();
  pair_work_.clear();
  to_collide_.clear();
  size_t kept = 0;  // contacts of unmoved pairs
  for (int i = 0; i < int(edges.size()); ++i) {
    const GraphEdge& e = edges[size_t(i)];
    if ((e.events & kVanishedProximity) || std::binary_search(joined.begin(), joined.end(), BodyPair{e.a, e.b}))
      continue;
    if (!ContactGraph::unmoved(e, bodies)) {
      pair_work_.push_back({i, int(to_collide_.size()), 0, 0});
      to_collide_.push_back(i);
    } else {
      const auto [first, last] = previous_of(e.a, e.b);
      pair_work_.push_back({i, -1, size_t(first - previous_contacts_.begin()), size_t(last - previous_contacts_.begin())});
      kept += size_t(last - first);
    }
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
    graph_.attach_contacts(contacts_);
    too_many_contacts("contacts", limit, result);
    return false;
  }

  // Join, pair by pair in edge order. Materials may change while the world runs (the viewer edits them), so kept
  // contacts take them too.
  for (const PairWork& work : pair_work_) {
    GraphEdge& e = edges[size_t(work.edge)];
    const Material& ma = materials[bodies[e.a].material];
    const Material& mb = materials[bodies[e.b].material];
    const double friction = std::sqrt(ma.friction * mb.friction);
    const double restitution = std::max(ma.restitution, mb.restitution);
    if (work.found < 0) {
      for (size_t k = work.kept_first; k < work.kept_last; ++k) {
        contacts_.push_back(previous_contacts_[k]);
        contacts_.back().persisted = true;
        contacts_.back().friction = friction;
        contacts_.back().restitution = restitution;
      }
      continue;
    }
    const ContactList& found = found_[size_t(work.found)];
    ContactGraph::remember_placement(e, bodies);
    const size_t first = contacts_.size();
    contacts_.insert(contacts_.end(), found.begin(), found.end());
    // A list already strictly increasing (implicit-penalty's points come in feature order) has only this order:
    // the sort would leave it as it is.
    const auto begin = contacts_.begin() + std::ptrdiff_t(first);
    if (std::adjacent_find(begin, contacts_.end(), [](const Contact& x, const Contact& y) {
          return !contact_less(x, y);
        }) != contacts_.end())
      std::sort(begin, contacts_.end(), contact_less);
    for (size_t k = first; k < contacts_.size(); ++k) {
      contacts_[k].friction = friction;
      contacts_[k].restitution = restitution;
      contacts_[k].persisted = false;
    }
  }
  match_previous_contacts(previous_contacts_, contacts_);
  graph_.attach_contacts(contacts_);
  return true;
}

// Contact groups over touching edges and joints, then stack heights and layers (thesis sect. 5.2, 8.3).
void World::find_groups() {
  graph_.find_groups(bodies, joined_pairs(joints));
  graph_.find_layers(bodies);
}

// Continuous collision after the position update. Each dynamic body that moved more than the contact margin
// (surfaces closer than that had contacts at the start of the step) is swept along its step, together with the
// bodies joints tie it to (so the joints are not pulled apart), against every other body on its motion of this
// step; the group is put back at the first fraction of the step at which one of them would overlap something by
// more than it may (collision/continuous.h): a pair the solver had no contact for, by the solver's
// continuous_depth, where its next narrow phase will have one; a pair it had contacts for only short of
// passing through. The velocities are kept, less the gravity of the part of the step not travelled: the
// contact is the solver's to resolve by its own law (bounce, stop, friction) in the next step, as Box2D v3 does
// with a body at its time of impact. Bodies that move less, such as resting stacks, are not touched.
void World::continuous_collision() {
  const size_t n = bodies.size();
  for (size_t i = 0; i < n; ++i) {
    motions_[i].position1 = bodies[i].position;
    motions_[i].orientation1 = bodies[i].orientation;
  }
  const double depth = solver_->continuous_depth();
  const bool between_dynamic = solver_->continuous_between_dynamic_bodies();
  const double tolerance = depth > 0.0 ? std::min(kSweepTolerance, 0.25 * depth) : kSweepTolerance;
  const double least_motion = std::max(settings.contact_margin, kSweepTolerance);
  // The dynamic bodies tied by joints into groups that move together: the smallest index of each group.
  std::vector<int> root(n);
  for (size_t i = 0; i < n; ++i) root[i] = int(i);
  auto find = [&](int i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  for (const Joint& j : joints) {
    if (j.body_a < 0 || j.body_b < 0 || !bodies[j.body_a].is_dynamic() || !bodies[j.body_b].is_dynamic()) continue;
    const int ra = find(j.body_a), rb = find(j.body_b);
    if (ra != rb) root[std::max(ra, rb)] = std::min(ra, rb);
  }
  for (size_t i = 0; i < n; ++i) root[i] = find(int(i));  // flattened: root[i] is i's group from here on
  std::vector<Aabb> swept(n);
  for (size_t i = 0; i < n; ++i) {
    const Body& b = bodies[i];
    swept[i] = shape_aabb(b.shape, motions_[i].position0, motions_[i].orientation0);
    const Aabb end = shape_aabb(b.shape, motions_[i].position1, motions_[i].orientation1);
    swept[i].lo = swept[i].lo.cwiseMin(end.lo).array() - depth - tolerance;
    swept[i].hi = swept[i].hi.cwiseMax(end.hi).array() + depth + tolerance;
  }
  const std::vector<BodyPair> joined = joined_pairs(joints);
  // Whether the solver had contacts for a pair in this step (contacts_ is sorted by pair).
  auto has_contacts = [&](int x, int y) {
    const std::pair<int, int> pair(std::min(x, y), std::max(x, y));
    return std::binary_search(contacts_.begin(), contacts_.end(), pair, [](const auto& l, const auto& r) {
      if constexpr (std::is_same_v<std::decay_t<decltype(l)>, Contact>) return std::pair(l.a, l.b) < r;
      else return l < std::pair(r.a, r.b);
    });
  };
  // The dynamic bodies of each group in index order (a counting sort by root: one pass, not one per group), and
  // whether one of them moved far enough to need sweeping.
  std::vector<int> member_begin(n + 1, 0), member_list;
  std::vector<char> group_fast(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (bodies[i].is_dynamic()) {
      const int r = root[i];
      ++member_begin[size_t(r) + 1];
      if (motions_[i].reach() > least_motion) group_fast[size_t(r)] = 1;
    }
  for (size_t r = 0; r < n; ++r) member_begin[r + 1] += member_begin[r];
  member_list.resize(size_t(member_begin[n]));
  {
    std::vector<int> at(member_begin.begin(), member_begin.end() - 1);
    for (size_t i = 0; i < n; ++i)
      if (bodies[i].is_dynamic()) member_list[size_t(at[size_t(root[i])]++)] = int(i);
  }
  for (size_t r = 0; r < n; ++r) {
    if (!bodies[r].is_dynamic() || root[r] != int(r) || !group_fast[r]) continue;
    const std::span<const int> members(member_list.data() + member_begin[r], member_list.data() + member_begin[r + 1]);
    double t = 1.0;
    for (int m : members)
      for (size_t j = 0; j < n; ++j) {
        if (root[j] == int(r) || !swept[m].overlaps(swept[j])) continue;
        if (std::binary_search(joined.begin(), joined.end(), BodyPair{std::min(m, int(j)), std::max(m, int(j))}))
          continue;
        if (bodies[j].is_dynamic() && !between_dynamic) continue;
        const bool in_contact = has_contacts(m, int(j));
        // A pair of dynamic bodies in contact is the solver's: both give, and the body put back would keep its
        // speed against its other contacts; only a fixed or kinematic body must not be passed through.
        if (in_contact && bodies[j].is_dynamic()) continue;
        const Impact impact = time_of_impact(bodies[m], motions_[m], bodies[j], motions_[j], in_contact, depth,
                                             tolerance);
        if (impact.hit) t = std::min(t, impact.t);
      }
    if (t >= 1.0) continue;
    for (int m : members) {
      motions_[m].place(bodies[m], t);
      // The part of the step's gravity it had no time to use: the body falls on from the contact as far into
      // the next step as it would have without continuous collision, not faster.
      bodies[m].linear_velocity -= (1.0 - t) * settings.dt * settings.gravity;
      bodies[m].update_world_inertia();
      motions_[m].position1 = bodies[m].position;
      motions_[m].orientation1 = bodies[m].orientation;
      swept_stops_.push_back(m);
    }
  }
  std::sort(swept_stops_.begin(), swept_stops_.end());
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
    const Aabb box = shape_aabb(b.shape, b.position, b.orientation);
    const double radius = 0.5 * (box.hi - box.lo).norm();
    const double speed = b.linear_velocity.norm() + b.angular_velocity.norm() * radius;
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

double World::kinetic_energy() const {
  double e = 0.0;
  for (const Body& b : bodies)
    if (b.is_dynamic())
      e += 0.5 * b.mass * b.linear_velocity.squaredNorm() +
           0.5 * b.angular_velocity.dot(b.inertia_world() * b.angular_velocity);
  return e;
}

double World::potential_energy() const {
  double e = 0.0;
  for (const Body& b : bodies)
    if (b.is_dynamic()) e -= b.mass * settings.gravity.dot(b.position);
  return e;
}

double World::max_penetration() const {
  double d = 0.0;
  for (const Contact& c : contacts_) d = std::max(d, c.depth);
  return d;
}

double World::mean_penetration() const {
  double sum = 0.0;
  int count = 0;
  for (const Contact& c : contacts_)
    if (c.depth > 0.0) {
      sum += c.depth;
      ++count;
    }
  return count > 0 ? sum / count : 0.0;
}

}  // namespace cl
