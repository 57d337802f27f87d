// Procedural shapes of the implicit penalty paper's scenes (Xu, Zhao, Barbic 2014): bowl, perforated box,
// rock, hex bolt with a helical thread and the matching threaded block, screwdriver. (The torus is
// make_torus in mesh/generate.h.)
//
// Every generator returns a closed, 2-manifold, consistently outward-oriented mesh without degenerate
// triangles (validate_mesh(m).ok() holds), lengths in metres. The y axis is "up" / the axis of revolution.
// Invalid parameters give an empty mesh and, when `error` is not null, a message naming the generator and the
// offending parameter; generators never throw or abort. On success *error is cleared.
//
// Frames are the natural ones documented per shape (not recentred to the centre of mass; use recentre()).
#pragma once

#include "mesh/mesh.h"

#include <cstdint>
#include <string>

namespace cl {

// Hemispherical shell, open side up (+y): outer hemisphere of radius outer_radius and inner hemisphere of
// radius outer_radius - thickness, both centred at the origin, joined by a flat annular rim in the plane y = 0.
// The solid lies in y <= 0. Volume 2/3 pi (R^3 - r^3) (less the polygonal approximation).
struct BowlParams {
  double outer_radius = 0.1;  // m, > 0
  double thickness = 0.01;    // m, in (1e-6 R, R): wall thickness
  int resolution = 48;        // segments around the y axis, in [8, 4096]; a quarter meridian gets resolution/4
};
TriangleMesh bowl(const BowlParams& p = {}, std::string* error = nullptr);

// Rectangular plate (box) centred at the origin with a grid of holes_x x holes_z round cylindrical
// through-holes along y, one at the centre of each cell of a regular grid over the x-z face.
struct PerforatedBoxParams {
  Vec3 half_extents{0.1, 0.02, 0.1};  // m, each > 0
  double hole_radius = 0.02;          // m, in (0, 0.45 * min(cell width x, cell width z)), cell = 2 h / holes
  int holes_x = 2;                    // holes along x, in [1, 256]
  int holes_z = 2;                    // holes along z, in [1, 256]
  int hole_segments = 24;             // polygon sides of each hole, in [8, 1024]; rounded up to a multiple of 8
};
TriangleMesh perforated_box(const PerforatedBoxParams& p = {}, std::string* error = nullptr);

// Rounded rock: an icosphere around the origin whose vertices are moved radially by smooth, low-frequency
// noise, r = radius * (1 + roughness * n(direction)) with n in [-1, 1] (normalised so its extreme reaches
// +-1 on the mesh). Star-shaped about the origin, hence free of self-intersection. Deterministic in `seed`.
struct RockParams {
  double radius = 0.05;      // m, > 0: mean radius
  double roughness = 0.2;    // relative radial amplitude, in [0, 0.4]
  std::uint64_t seed = 1;    // any value; the same seed gives the same rock on every platform
  int resolution = 3;        // icosphere subdivision levels, in [0, 7] (20 * 4^resolution triangles)
};
TriangleMesh rock(const RockParams& p = {}, std::string* error = nullptr);

// Hex bolt along y: hexagonal head (prism) y in [0, head_height], corners at angles k 60 deg in the x-z plane;
// shaft y in [-length, 0] with a right-handed single-start helical V thread:
//   r(theta, y) = shaft_radius - thread_depth + thread_depth * tri(y / pitch - theta / 2pi),
//   tri(u) = |2 frac(u) - 1|,  position (r sin theta, y, r cos theta)
// so the crests are at shaft_radius and the roots at shaft_radius - thread_depth. Flat shaft end.
struct HexBoltParams {
  double head_width = 0.02;      // m, > 0: across the flats of the hexagon
  double head_height = 0.007;    // m, > 0
  double shaft_radius = 0.005;   // m, > 0 and <= 0.45 head_width: major (crest) radius of the thread
  double length = 0.04;          // m, > 0: shaft length below the head
  double thread_pitch = 0.002;   // m, > 0 and >= length / 10000
  double thread_depth = 0.0006;  // m, in [0, 0.5 shaft_radius]; 0 gives a plain (polygonal) cylinder
  int segments = 48;             // polygon sides around the axis, in [12, 4096]; rounded up to a multiple of 24
  int samples_per_pitch = 8;     // rows per pitch along the thread, in [2, 256]; rounded up to even
};
TriangleMesh hex_bolt(const HexBoltParams& p = {}, std::string* error = nullptr);

// Square block x, z in [-half_width, half_width], y in [-height, 0] with a threaded through-hole along y that
// mates with hex_bolt: the hole surface is the bolt's thread surface r(theta, y) (same formula, same frame)
// pushed out by `clearance`. Placed at the same pose as a bolt with the same thread parameters, the bolt's head
// rests on the block's top face and the threads interleave without overlap when clearance > 0.
struct ThreadedBlockParams {
  double half_width = 0.015;     // m, > 0 and >= 1.25 (shaft_radius + clearance)
  double height = 0.02;          // m, > 0
  double shaft_radius = 0.005;   // m, > 0: the bolt's major radius
  double thread_pitch = 0.002;   // m, > 0 and >= height / 10000
  double thread_depth = 0.0006;  // m, in [0, 0.5 shaft_radius]
  double clearance = 0.0002;     // m, in [0, shaft_radius): radial gap between bolt and hole
  int segments = 48;             // polygon sides of the hole, in [12, 4096]; rounded up to a multiple of 24
  int samples_per_pitch = 8;     // rows per pitch, in [2, 256]; rounded up to even
};
TriangleMesh threaded_block(const ThreadedBlockParams& p = {}, std::string* error = nullptr);

// Flat-head screwdriver along y, one watertight surface: a blade tip (elliptic section narrowing to a flat
// edge tip_width x tip_thickness at y = 0, in the x-y plane), a round shaft, a flat-bottomed handle with
// optional flutes and a half-ellipsoid dome on top. Total height tip_length + shaft_length + handle_length +
// dome_height. Symmetric under x -> -x and under z -> -z.
struct ScrewdriverParams {
  double handle_radius = 0.014;   // m, > shaft_radius
  double handle_length = 0.09;    // m, > 0: cylindrical part of the handle
  double dome_height = 0.01;      // m, >= 0: height of the half-ellipsoid cap on the handle (0: flat end)
  double shaft_radius = 0.003;    // m, > 0
  double shaft_length = 0.09;     // m, > 0: round part of the shaft (without the tip)
  double tip_length = 0.012;      // m, > 0: blade length over which the section flattens
  double tip_width = 0.006;       // m, in (0, 2 handle_radius): blade width at the end (along x)
  double tip_thickness = 0.0008;  // m, in (0, 2 shaft_radius]: blade thickness at the end (along z)
  int flutes = 6;                 // grooves along the handle, in [0, 64]
  double flute_depth = 0.1;       // relative depth of the grooves, in [0, 0.3]
  int segments = 32;              // polygon sides around the axis, in [8, 4096]
};
TriangleMesh screwdriver(const ScrewdriverParams& p = {}, std::string* error = nullptr);

}  // namespace cl
