// The kernel's opt-in debug capture (VolumeOptions::capture_intervals, for the viewer's intersection volumes,
// Allard et al. 2010 Fig. 1): results bit-identical with it on or off, the captured segments are exactly the
// intervals of eq. 11 (count, direction, extent, summed length = the axis volume), subsampling by whole world
// pixel rows and columns, and nothing captured when it is off.
#include <gtest/gtest.h>

#include <cmath>

#include "ldi/intersection_volume.h"
#include "mesh/generate.h"
#include "mesh/mesh.h"

namespace cl::ldi {
namespace {

TriangleMesh placed(TriangleMesh m, const Quat& q, const Vec3& t) {
  transform_mesh(m, q, t);
  return m;
}

// A cube and a turned sphere overlapping obliquely, so that every axis has many intervals of many lengths.
struct Pair {
  TriangleMesh a = make_box(Vec3(0.3, 0.3, 0.3), 2);
  TriangleMesh b = placed(make_uv_sphere(0.25, 24, 12), Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized())),
                          Vec3(0.33, 0.21, -0.17));
  MeshInput in_a() const { return MeshInput{a.vertices, a.triangles, Vec3::Zero()}; }
  MeshInput in_b() const { return MeshInput{b.vertices, b.triangles, Vec3(0.33, 0.21, -0.17)}; }
};

VolumeOptions options(bool capture) {
  VolumeOptions o;
  o.pixel_size = 0.01;
  o.multi_volume = true;
  o.cell_size = 0.05;
  o.threads = 2;
  o.capture_intervals = capture;
  return o;
}

void expect_same_terms(const BodyTerms& x, const BodyTerms& y) {
  ASSERT_EQ(x.gradient.size(), y.gradient.size());
  for (std::size_t k = 0; k < x.gradient.size(); ++k) {
    EXPECT_EQ(x.gradient[k].vertex, y.gradient[k].vertex);
    EXPECT_EQ(x.gradient[k].gradient, y.gradient[k].gradient);  // bitwise
  }
  EXPECT_EQ(x.linear, y.linear);
  EXPECT_EQ(x.angular, y.angular);
  EXPECT_EQ(x.area_sum, y.area_sum);
  EXPECT_EQ(x.area_moment, y.area_moment);
}

void expect_same_contact(const VolumeContact& x, const VolumeContact& y) {
  EXPECT_EQ(x.volume, y.volume);
  EXPECT_EQ(x.axis_volume, y.axis_volume);
  EXPECT_EQ(x.cell, y.cell);
  EXPECT_EQ(x.normal, y.normal);
  EXPECT_EQ(x.area, y.area);
  expect_same_terms(x.body[0], y.body[0]);
  expect_same_terms(x.body[1], y.body[1]);
}

}  // namespace

TEST(LdiCapture, ResultsAreBitIdenticalWithCaptureOnOrOff) {
  const Pair p;
  IntersectionVolume iv;
  VolumeResult off, on;
  iv.compute(p.in_a(), p.in_b(), options(false), off);
  iv.compute(p.in_a(), p.in_b(), options(true), on);
  ASSERT_TRUE(off.ok() && on.ok()) << off.error << on.error;
  ASSERT_GT(off.mono.volume, 0.0);
  expect_same_contact(off.mono, on.mono);
  ASSERT_EQ(off.cells().size(), on.cells().size());
  ASSERT_GT(off.cells().size(), 4u);
  for (std::size_t c = 0; c < off.cells().size(); ++c) expect_same_contact(off.cells()[c], on.cells()[c]);
  EXPECT_EQ(off.stats.intervals, on.stats.intervals);
  // Off captures nothing, and a later computation without capture drops what an earlier one captured.
  for (int w = 0; w < 3; ++w) EXPECT_TRUE(off.capture.segments[w].empty());
  EXPECT_FALSE(on.capture.segments[0].empty());
  iv.compute(p.in_a(), p.in_b(), options(false), on);
  for (int w = 0; w < 3; ++w) EXPECT_TRUE(on.capture.segments[w].empty());
}

// Without subsampling the segments are the intervals of eq. 11: one per interval, along the image axis, at a
// pixel centre, inside the overlap box, and their lengths times the pixel area add up to the axis volume.
TEST(LdiCapture, SegmentsAreTheIntervalsOfEachAxis) {
  const Pair p;
  const VolumeResult r = intersection_volume(p.in_a(), p.in_b(), options(true));
  ASSERT_TRUE(r.ok()) << r.error;
  const double s = 0.01;
  EXPECT_EQ(r.capture.pixel_size, s);
  for (int w = 0; w < 3; ++w) {
    const auto& segments = r.capture.segments[w];
    EXPECT_EQ(r.capture.stride[w], 1);
    EXPECT_EQ(r.capture.total[w], r.stats.intervals[w]);
    ASSERT_EQ(long(segments.size()), r.stats.intervals[w]) << "axis " << w;
    ASSERT_GT(segments.size(), 100u);
    double length = 0;
    for (const auto& seg : segments) {
      const Vec3 d = seg[1] - seg[0];
      EXPECT_GT(d[w], 0.0);  // from the lower surface z- up to the upper one z+
      for (int k = 0; k < 3; ++k) {
        if (k == w) continue;
        EXPECT_EQ(seg[0][k], seg[1][k]);
        // On a pixel centre (i + 0.5) s of the world-anchored grid.
        const double f = seg[0][k] / s - 0.5;
        EXPECT_NEAR(f, std::round(f), 1e-9);
      }
      for (int k = 0; k < 3; ++k) {
        EXPECT_GE(seg[0][k], r.overlap.lo[k] - s);
        EXPECT_LE(seg[1][k], r.overlap.hi[k] + s);
      }
      length += d[w];
    }
    EXPECT_NEAR(length * s * s, r.mono.axis_volume[w], 1e-12 * r.mono.axis_volume[w] + 1e-15) << "axis " << w;
  }
}

// With a small limit only whole world pixel rows and columns are kept (every stride-th), about limit of them.
TEST(LdiCapture, ManyIntervalsAreSubsampledOnWorldPixelRows) {
  const Pair p;
  VolumeOptions o = options(true);
  o.capture_limit = 60;
  const VolumeResult r = intersection_volume(p.in_a(), p.in_b(), o);
  ASSERT_TRUE(r.ok()) << r.error;
  const double s = o.pixel_size;
  for (int w = 0; w < 3; ++w) {
    const int stride = r.capture.stride[w];
    EXPECT_GT(stride, 1) << "axis " << w;
    EXPECT_LE(r.capture.total[w] / (long(stride) * stride), o.capture_limit);
    EXPECT_EQ(r.capture.total[w], r.stats.intervals[w]);
    const auto& segments = r.capture.segments[w];
    EXPECT_GT(segments.size(), 0u);
    EXPECT_LE(long(segments.size()), 4 * o.capture_limit);
    for (const auto& seg : segments)
      for (int k = 0; k < 3; ++k) {
        if (k == w) continue;
        const long index = std::lround(seg[0][k] / s - 0.5);
        EXPECT_EQ(((index % stride) + stride) % stride, 0);
      }
  }
}

}  // namespace cl::ldi
