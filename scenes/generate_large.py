#!/usr/bin/env python3
"""Writes the large benchmark scenes into scenes/large/ (issue 37): the 100-row pyramids.

Usage: python3 scenes/generate_large.py [output-dir]      (default: scenes/large/ beside this script)

- large_pyramid: 100 rows, 5,050 boxes of 1 m, zero gaps, the layout of pyramid20 and of Box3D's and Box2D v3's
  `large_pyramid` benchmark.
- pyramid100_gaps: the same 100 rows with 5 cm between the boxes of a row (each row still half a box in from the
  one below, so every box rests on two).

They live in their own folder because the shipped-scene test (tests/app/shipped_scene.py) runs every scene of
scenes/ under every method for 600 steps, which for 5,050 boxes under the penalty methods would take hours; the
benchmarks (bench/peers, bench/stacking_bench.cpp, bench/scaling_bench.cpp) run them. Re-running rewrites them byte
for byte. Companion of generate.py, whose helpers it uses.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as g  # noqa: E402

ROWS = 100
MATERIALS = {"default": {"friction": 0.6, "restitution": 0}}


def gapped_rows(rows, size, gap, prefix="box"):
    """Rows of cubes of edge `size` with `gap` between neighbours of a row, centred on x = 0, resting on each other
    (rows at heights size/2 + r size)."""
    h = size / 2
    pitch = size + gap
    out = []
    for r in range(rows):
        n = rows - r
        for i in range(n):
            x = (i - (n - 1) / 2) * pitch
            out.append(g.box(f"{prefix}_{r}_{i}", [h, h, h], [round(x, 12), h + r * size, 0.0]))
    return out


def large_pyramid():
    bodies = [dict(g.GROUND)] + g.pyramid_rows(ROWS, 1.0)
    return g.scene("large_pyramid", f"{ROWS}-row pyramid of {ROWS * (ROWS + 1) // 2:,} boxes of 1 m (density 1000), "
                   "rows centred and offset by half a box, zero gaps, on a ground plane at y = 0; friction 0.6. "
                   "The layout of pyramid20, and of Box3D's large_pyramid benchmark.", bodies, materials=MATERIALS)


def pyramid100_gaps():
    bodies = [dict(g.GROUND)] + gapped_rows(ROWS, 1.0, 0.05)
    return g.scene("pyramid100_gaps", f"{ROWS}-row pyramid of {ROWS * (ROWS + 1) // 2:,} boxes of 1 m (density "
                   "1000) with 5 cm between the boxes of a row, each row centred on the one below; friction 0.6.",
                   bodies, materials=MATERIALS)


SCENES = {"large_pyramid.json": large_pyramid, "pyramid100_gaps.json": pyramid100_gaps}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "large")
    os.makedirs(out, exist_ok=True)
    g.write_scenes(out, SCENES, "Stacking")


if __name__ == "__main__":
    main()
