#include "solvers/volume/volume_solver.h"

#include <algorithm>

#include "solvers/volume/volume_stages.h"

namespace cl {

using namespace volume_stages;

const ParamTable<VolumeSolver::Settings>& VolumeSolver::table() {
  using S = Settings;
  using T = ParamTable<S>;
  static const T table({
      T::bind(&S::pixel_size, {"pixel_size", ParamKind::Real, "m", 1e-4, 1.0, 0.01,
       "Side of the layered depth images' square pixels (sect. 3.2); the resolution of the intersection volumes"}),
      T::bind(&S::exact_primitives, {"exact_primitives", ParamKind::Bool, "", 0, 1, 1,
       "Intersection volumes and gradients of box, sphere and plane pairs in closed form (the exact V and dV/dq "
       "of sect. 3-4; multi-volume: the intersection cut by the cells); meshes and capsules keep the layered "
       "depth images. Off: the images of their triangle meshes for every pair (the paper's)"}),
      T::bind(&S::multi_volume, {"multi_volume", ParamKind::Bool, "", 0, 1, 1,
       "Split each intersection into several volumes, one constraint each (sect. 5): the images' by a grid of cubic "
       "cells (eq. 22-24), an exact box pair's into 3 x 3 columns along its normal (rim_width); off: one per pair, "
       "which leaves rocking about the contact centre unconstrained"}),
      T::bind(&S::cell_size, {"cell_size", ParamKind::Real, "m", 1e-3, 10.0, 0.1,
       "Side of the multi-volume grid cells of the depth images (at least the pixel size)"}),
      T::bind(&S::rim_width, {"rim_width", ParamKind::Real, "", 0.01, 0.5, 0.1,
       "Multi-volume of an exact polyhedral pair (box-box, box-plane): its intersection in 3 x 3 columns along "
       "the contact normal, the outer ones this fraction of its extent wide, so that a tipping body's pressure "
       "reaches within this fraction of its contact's edge"}),
      T::bind(&S::iterations, {"iterations", ParamKind::Integer, "", 1, 1000, 20,
       "Projected Gauss-Seidel sweeps of the velocity MLCP with friction (eq. 16-17, 20-21)"}),
      T::bind(&S::joint_sweeps, {"joint_sweeps", ParamKind::Integer, "", 0, 1000, 10,
       "Sweeps over the joint rows alone after each sweep over all rows of the velocity solve, stopped early by the "
       "tolerance (a block Gauss-Seidel, as under lcp). A robot on its feet is a loop of servos, hinges and contacts "
       "that plain sweeps leave unsettled and the warm starts carry on: without them the walker fell at 1/60 s. 0: "
       "plain sweeps over all rows"}),
      T::bind(&S::tolerance, {"tolerance", ParamKind::Real, "", 0, 1, 1e-15,
       "A PGS solve stops early once a sweep changes no multiplier by more than this fraction of the largest one "
       "(relative, so the stop does not depend on the unit of mass; 0: always all sweeps)"}),
      T::bind(&S::warm_start, {"warm_start", ParamKind::Bool, "", 0, 1, 1,
       "Start the velocity PGS from the previous step's impulses of volume contacts that persist"}),
      T::bind(&S::restitution_threshold, {"restitution_threshold", ParamKind::Real, "m/s", 0, 100, 0,
       "A contact whose bodies approached, before the step's forces acted, faster than this and than one step of "
       "those forces (g h under gravity) bounces (its volume must shrink at e times the rate it grew, Newton's "
       "law); slower approaches get no restitution, so resting contacts, whose approach is the step's own, do not "
       "jitter (as under lcp)"}),
      T::bind(&S::speculative, {"speculative_contacts", ParamKind::Bool, "", 0, 1, 1,
       "A pair closer than the world's contact_margin whose volumes do not intersect, or only by less than the "
       "depth post-stabilisation keeps (half a pixel), gets the shared narrow phase's point contacts still apart or "
       "touching (in by at most 2^-16 pixel, the images' sub-pixel precision; a mesh's: apart only), "
       "each row keeping its gap from closing faster than gap / h (an impact that would close it bounces): a body "
       "placed exactly touching is held from its first step (a ball rolling down 30 degrees: slip 9e-16 m/s; "
       "off 0.164), and a box on a thin intersection covering part of its face is held at the rest of it (a "
       "20-box column: 0.0035 m; off 0.027); off (the paper's): no contact until the volumes intersect"}),
      T::bind(&S::friction_directions, {"friction_directions", ParamKind::Integer, "", 0, 2, 2,
       "Tangent rows per volume contact (eq. 21): 0 frictionless, 1 along the sliding direction, 2 two "
       "directions, the first along the weighted sliding velocity of eq. 20, bounded as friction_cone says"}),
      T::bind(&S::friction_cone, {"friction_cone", ParamKind::Choice, "", 0, 1, 1,
       "How a volume's two tangent rows bound its friction. box (the paper's symmetric basis, eq. 8-10 and 21, a "
       "four-sided pyramid): each in +-mu rho alone, which lets one volume's friction reach sqrt(2) mu rho between "
       "the two directions (the volumes together stay within mu times their normal force). circle: together, in "
       "the disc of radius mu rho (Coulomb's law per volume); at the default 20 sweeps it converges too slowly at "
       "the edge of sticking (mu 0.49 on tan 0.5: 0.180 m/s after 2 s of the exact 0.1755)",
       {"circle", "box"}}),
      T::bind(&S::stabilization_iterations, {"stabilization_iterations", ParamKind::Integer, "", 0, 100, 5,
       "Most position corrections per step (Algorithm 1 lines 5-9): each solves eq. 18-19 and recomputes the "
       "volumes; 0 turns post-stabilisation off"}),
      T::bind(&S::stabilization_sweeps, {"stabilization_sweeps", ParamKind::Integer, "", 1, 1000, 20,
       "Projected Gauss-Seidel sweeps of each position MLCP (eq. 18-19)"}),
      T::bind(&S::rest_depth, {"rest_depth", ParamKind::Real, "pixels", 0, 10, 0.5,
       "Depth kept by post-stabilisation, in pixels: eps_V = rest_depth * pixel_size * contact area (sect. 4.3), "
       "the depth at most a tenth of the thinner body's half thickness"}),
      T::bind(&S::combine, {"axis_combination", ParamKind::Choice, "", 0, 1, 1,
       "How the three images' volumes combine: mean (the paper's) or normal-weighted (exact for thin resting "
       "layers aligned with an axis; same gradient)",
       {"mean", "normal-weighted"}}),
      T::bind(&S::stack_layers, {"stack_layers", ParamKind::Bool, "", 0, 1, 1,
       "Velocity-based shock propagation as lcp's (thesis 6.4): a contact group with bodies resting on bodies (two "
       "stack layers or more, from the contact graph) is solved whole over 1% of the step, then over the rest "
       "layer by layer bottom-up with each layer's lower bodies held: a 20-box column and a 100 kg box on a 1 kg "
       "one stand; off (the paper's plain Gauss-Seidel, 20 sweeps): the column falls (2.03 m) and the light box "
       "gives way (the heavy one sinks 0.1 m)"}),
      T::bind(&S::sphere_region_rows, {"sphere_region_rows", ParamKind::Bool, "", 0, 1, 1,
       "With multi_volume: one normal row per connected region of cells on a sphere (the region's volume "
       "gradient, sect. 4.1; a sphere's cap pushes through its centre) instead of one per cell: a ball then rolls "
       "without the cells at the front of its cap braking it (2 m/s on level ground: 1.99 after 2 s, 1.30 off)"}),
      T::bind(&S::threads, {"threads", ParamKind::Integer, "", 0, 64, 0,
       "Workers rasterising the depth images (0: all hardware threads); results do not depend on it"})
  });
  return table;
}

std::span<const ParamSpec> VolumeSolver::param_specs() { return table().specs(); }

VolumeSolver::VolumeSolver() : Solver(param_specs(), kStages, kCounters) { begin_step(); }

// A copy steps on as the original would (a World copied between two steps, world/world.h): it takes the state the
// next step reads, the joints' warm starts and the pairs' volumes (reused while neither body moves), and the
// figures shown of the last step; the LDI workspace and the scratch of a step are its own.
VolumeSolver::VolumeSolver(const VolumeSolver& other)
    : Solver(other),
      pairs_(other.pairs_),
      meshes_(other.meshes_),
      last_dt_(other.last_dt_),
      last_gravity_(other.last_gravity_),
      joint_warm_(other.joint_warm_),
      last_stab_iterations_(other.last_stab_iterations_),
      profile_(other.profile_) {}

void VolumeSolver::reset() {
  pairs_.clear();
  rows_.clear();
  blocks_.clear();
  joint_warm_.clear();
  last_dt_ = last_gravity_ = 0.0;
  profile_ = {};
}

VolumeSolver::Settings VolumeSolver::settings() const {
  Settings s = table().read(params_);
  s.cell_size = std::max(s.cell_size, s.pixel_size);  // a cell is at least a pixel
  return s;
}

void VolumeSolver::read_settings() { set_ = settings(); }

ldi::VolumeOptions VolumeSolver::Settings::ldi_options() const {
  ldi::VolumeOptions options;
  options.pixel_size = pixel_size;
  options.multi_volume = multi_volume;
  options.cell_size = cell_size;
  options.threads = threads;
  options.combine = combine == 0 ? ldi::AxisCombination::Mean : ldi::AxisCombination::NormalWeighted;
  return options;
}

const std::vector<VolumeSolver::Constraint>* VolumeSolver::constraints(int a, int b) const {
  auto it = pairs_.find({a, b});
  return it == pairs_.end() || !it->second.valid ? nullptr : &it->second.constraints;
}

// The PGS settings of every solve of the method: symmetric sweeps, and the tolerance as a fraction of the largest
// multiplier, so that when a solve stops does not depend on the unit of mass (an impulse tolerance, 1e-12 N s / m^2,
// stopped the solves of a column of 1 g boxes a sweep or more before those of the same column at 1 kg, and the
// two moved apart; the multipliers scale with the masses, their ratios do not).
PgsSettings VolumeSolver::pgs_settings(int sweeps, std::vector<double>* residuals) const {
  PgsSettings settings;
  settings.iterations = sweeps;
  settings.tolerance = set_.tolerance;
  settings.relative = true;
  settings.symmetric = true;
  settings.residuals = residuals;
  return settings;
}

Row VolumeSolver::make_row(int a, int b, const Vec3& la, const Vec3& aa, const Vec3& lb, const Vec3& ab) const {
  Row r;
  r.a = a;
  r.b = b;
  r.ja_lin = la;
  r.ja_ang = aa;
  r.jb_lin = lb;
  r.jb_ang = ab;
  prepare(r, masses_);
  return r;
}

// volume honours every scene feature (restitution by Newton's law on the pair's summed row); only a parameter can
// switch one off.
std::vector<std::string> VolumeSolver::unsupported(const SceneFeatures& scene) const {
  std::vector<std::string> out;
  warn_ignored_friction("volume", settings().friction_directions, scene, out);
  return out;
}

}  // namespace cl
