// The conditions a conformance case is swept over: time steps from 1/30 to 1/1000 s and, for a case with a
// scale, sizes from 2 cm to 4 m and masses from 10 g to 100 t.
//
// A case's scene is its nominal point (a 1 m box of 1000 kg, say). At size L times the nominal and mass M times
// it, the scene is scaled as a similar system under the same gravity (Froude similarity): lengths by L, masses
// by M, times by sqrt(L), so speeds by sqrt(L), rates by 1 / sqrt(L), forces by M and torques by M L
// (scaling.h). Accelerations, angles and every dimensionless figure stay what they were; a case's exact value
// scales as L^power with the power of its figure (speeds 1/2, lengths 1, times 1/2, rates -1/2, angles and ratios
// 0). Only the time step does not scale: that is what the sweep is for.
#pragma once

#include <string>
#include <vector>

namespace cl::conformance {

// One point of the sweep.
struct Condition {
  double dt = 1.0 / 60.0;  // s
  double size = 1.0;       // m: the case's characteristic length (CaseScale::size at the nominal point)
  double mass = 1000.0;    // kg: the case's characteristic mass (CaseScale::mass at the nominal point)
  bool operator==(const Condition&) const = default;
};

// A case's nominal point, and whether it sweeps sizes and masses.
struct CaseScale {
  bool sweeps = false;   // sizes and masses are swept (otherwise only the time step)
  double size = 1.0;     // m, the characteristic length of the scene as it is
  double mass = 1000.0;  // kg, its characteristic mass
  std::string size_of;   // what the length is, e.g. "the box's edge"
  std::string mass_of;   // what the mass is, e.g. "the box"
  double power = 0.0;    // the figure (and its exact value) scales as L^power
};

// A condition relative to a case's nominal point: length and mass factors.
struct Scale {
  double length = 1.0;  // L
  double mass = 1.0;    // M
  double time() const;  // sqrt(L): durations, the inverse of rates
  double speed() const;  // sqrt(L)
};
Scale scale_of(const CaseScale& scale, const Condition& condition);

// The time steps of the sweep, as steps per second: 30, 60, 120, 250, 500, 1000.
const std::vector<int>& sweep_rates();
// The sizes (m) of the sweep besides a case's nominal one: 0.02, 0.1, 1, 4.
const std::vector<double>& sweep_sizes();
// The masses (kg) swept at a case's nominal size: 0.01, 1e5.
const std::vector<double>& sweep_masses();

// The nominal condition: the scene as it is, at h = 1/60 s.
Condition nominal(const CaseScale& scale);
// Every condition of a case, in a fixed order: for each time step (largest first), the nominal size and mass;
// then, for a case with a scale, each other size with the mass of the same density (M = L^3), and the
// nominal size with each swept mass.
std::vector<Condition> sweep_conditions(const CaseScale& scale);

// "1/250 s, 2 cm, 8 g": how the matrix and the tests name a condition (the step as 1/rate when it is one).
std::string condition_name(const Condition& c);
std::string format_length(double metres);  // "2 cm", "1 m", "4 m", "0.5 mm"
std::string format_mass(double kg);        // "8 g", "1 kg", "1 t", "100 t"

}  // namespace cl::conformance
