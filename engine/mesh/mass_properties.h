// Exact mass properties of a closed triangle mesh (uniform density) from surface integrals: Eberly's
// "Polyhedral Mass Properties (Revisited)", a specialisation of Mirtich's divergence-theorem method to triangles.
#pragma once

#include "mesh/mesh.h"

namespace cl {

struct MassProperties {
  double volume = 0;                    // m^3 (in the mesh's length unit cubed)
  double mass = 0;                      // density * volume, kg
  Vec3 centre_of_mass{0, 0, 0};         // in the mesh frame
  Mat3 inertia = Mat3::Zero();          // kg m^2, about the centre of mass, axes of the mesh frame
  bool valid = false;                   // false when the volume is not positive (open, inside-out or flat mesh)
};

// Volume, centre of mass and inertia tensor about the centre of mass for the given density (kg/m^3).
// Exact (up to rounding) for a closed, consistently outward-oriented mesh. If the mesh does not enclose a
// positive volume, returns valid == false with the raw (signed) integrals: volume <= 0, centre and inertia zero.
MassProperties mass_properties(const TriangleMesh& mesh, double density = 1.0);

// Principal moments (ascending) and the rotation whose columns are the principal axes: inertia = R diag(m) R^T,
// with det R = +1.
void principal_axes(const Mat3& inertia, Vec3& moments, Mat3& axes);

}  // namespace cl
