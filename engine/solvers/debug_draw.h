// What a method draws of itself, for the viewer (as Box2D's b2DebugDraw and Jolt's DebugRenderer): the caller
// hands a solver a DebugDraw that says which layers it wants (DebugRequest) and the poses to draw at
// (DebugScene); the solver emits world-space lines, arrows and points through it, and a few totals for a legend,
// and never sees the renderer. Drawing is const: whatever a method computes for it lives in the call, so a
// simulation steps bit for bit the same whether or not it is drawn. Colours are linear RGBA in [0, 1].
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "collision/contact.h"
#include "core/body.h"
#include "core/math.h"

namespace cl {

using DebugColor = std::array<float, 4>;

// The layers a caller may ask for; a method draws those it has (Solver::debug_layers) and ignores the others.
enum DebugLayer : unsigned {
  kDebugMethod = 1u << 0,           // the method's own state of its last step (pid-penalty: pair modes and forces)
  kDebugVolumes = 1u << 1,          // intersection volumes: the intervals inside both meshes, per image axis
  kDebugVolumeGradients = 1u << 2,  // dV/dp_k of every vertex as an arrow
  kDebugVolumeCells = 1u << 3,      // cells holding a volume constraint, contact frames, last step's impulses
};

// What the caller wants drawn, and how.
struct DebugRequest {
  unsigned layers = kDebugMethod;                // DebugLayer bits
  std::array<bool, 3> volume_axes{true, true, true};  // kDebugVolumes: the images along x, y, z
  long max_intervals_per_axis = 20000;           // kDebugVolumes: per pair and axis, subsampled beyond (>= 1)
  double gradient_length = 0.1;                  // kDebugVolumeGradients: each pair's largest arrow, m
  double impulse_scale = 1.0;                    // impulses drawn, m per N s
  bool wants(unsigned layer) const { return (layers & layer) != 0; }
  bool operator==(const DebugRequest&) const = default;
};

// The world to draw, at the poses given (the current ones, or those of the last step's collision stage).
struct DebugScene {
  std::span<const Body> bodies;
  std::span<const BodyPair> pairs;     // the pairs the world's narrow phase would collide at these poses (a < b)
  std::span<const Contact> contacts;   // the contacts of the world's last step, sorted by pair, with impulses
};

class DebugDraw {
 public:
  virtual ~DebugDraw() = default;
  virtual void line(const Vec3& a, const Vec3& b, const DebugColor& color) = 0;
  virtual void point(const Vec3& p, const DebugColor& color) = 0;
  // An arrow from p to q. The default draws the shaft; a renderer adds a head facing its camera.
  virtual void arrow(const Vec3& p, const Vec3& q, const DebugColor& color) { line(p, q, color); }
  // A total of what was drawn (volume: pairs, constraints, intervals per axis), for the caller's legend.
  virtual void note(std::string_view label, double value) {
    (void)label;
    (void)value;
  }
  DebugRequest request;
};

// Colours the methods draw with, shared with the callers' legends and overlays.
namespace debug_colors {
// Image axes x, y, z (Allard et al. 2010, Fig. 1: red, green, blue), lightened so blue reads on a dark background.
inline constexpr std::array<DebugColor, 3> kAxes{{{1.00f, 0.32f, 0.30f, 1.0f},
                                                  {0.35f, 0.95f, 0.35f, 1.0f},
                                                  {0.40f, 0.60f, 1.00f, 1.0f}}};
inline constexpr DebugColor kFirstBody{1.00f, 0.50f, 0.95f, 1.0f};   // the pair's body a (magenta)
inline constexpr DebugColor kSecondBody{1.00f, 0.80f, 0.30f, 1.0f};  // the pair's body b (amber)
inline constexpr DebugColor kCell{0.92f, 0.92f, 0.96f, 1.0f};
inline constexpr DebugColor kNormal{0.30f, 0.90f, 1.00f, 1.0f};
inline constexpr DebugColor kTangent{0.80f, 0.80f, 0.85f, 0.8f};
inline constexpr DebugColor kNormalImpulse{1.00f, 0.30f, 0.25f, 1.0f};
inline constexpr DebugColor kFrictionImpulse{1.00f, 0.60f, 0.15f, 1.0f};
}  // namespace debug_colors

}  // namespace cl
