#!/usr/bin/env python3
"""Writes the thesis's stacking scenes (Erleben 2004; digest section 9) into scenes/.

Usage: python3 scenes/generate_stacks.py [output-dir]

Companion of generate.py (whose helpers it uses): column25 (S12), ball_grid_penetrated (S26), wall200
(S13, S25), tower320 (S14), two_balls (S15), sleepy_stack (S29), seesaw (weight feeling, thesis fig. 6.33)
and tower10..tower100 for the tower benchmark. Re-running rewrites them byte for byte.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as g  # noqa: E402

H = 0.01  # the thesis's step
THESIS = {"default": {"friction": 0.25, "restitution": 0}}


def lcp(**params):
    p = {"iterations": 10, "correction_iterations": 5}
    p.update(params)
    return {"type": "lcp", "params": p}


def thesis_scene(name, description, bodies, dt=H, materials=None, **params):
    s = g.scene(name, description, bodies, dt=dt, materials=materials or THESIS)
    s["solver"] = lcp(**params)
    return s


def column(n, name, density=10, friction=0.25, dt=H, description=None):
    bodies = [dict(g.GROUND)] + [g.box(f"box_{i}", [0.5, 0.5, 0.5], [0.0, 0.5 + i, 0.0], density=density)
                                 for i in range(n)]
    return thesis_scene(name, description or f"A column of {n} boxes of 1 m (density {density}), zero gaps, "
                        f"friction {friction}.", bodies, dt=dt,
                        materials={"default": {"friction": friction, "restitution": 0}})


def column25():
    return column(25, "column25", description="Thesis scene S12: a column of 25 boxes of 1 m, density 10, "
                  "h = 0.01 s. Plain PGS fails at any iteration count (shock_propagation=false); with shock "
                  "propagation and 10/5 iterations it stands.")


def ball_grid_penetrated():
    # S26: the 5x5x5 grid of S11 squeezed to 0.9 m spacing, so every touching pair overlaps by 10 cm.
    bodies = [dict(g.GROUND)]
    for j in range(5):
        for i in range(5):
            for k in range(5):
                bodies.append(g.sphere(f"ball_{i}_{j}_{k}", 0.5, [0.9 * (i - 2), 0.45 + 0.9 * j, 0.9 * (k - 2)],
                                       density=10))
    return thesis_scene("ball_grid_penetrated", "Thesis scene S26: the 125-ball grid with severe initial "
                        "penetration (spacing 0.9 m for r = 0.5 m, 5 cm into the plane). Shock propagation "
                        "projects the layers clean bottom-up; without it the projection does not.", bodies)


def wall200():
    # S13/S25: 20 courses of 10 bricks 1.0 x 0.5 x 0.5 m; odd courses shifted by a quarter brick, which
    # leaves a protruding "tooth" at one end of every other course (thesis fig. 6.71).
    bodies = [dict(g.GROUND)]
    for r in range(20):
        shift = 0.25 if r % 2 else 0.0
        for i in range(10):
            bodies.append(g.box(f"brick_{r}_{i}", [0.5, 0.25, 0.25], [i - 4.5 + shift, 0.25 + 0.5 * r, 0.0], density=10))
    return thesis_scene("wall200", "Thesis scenes S13/S25: a 200-brick wall, 20 courses of 10 bricks of 1.0 x 0.5 "
                        "x 0.5 m (density 10), odd courses shifted a quarter brick, friction 0.25, h = 0.01 s.", bodies)


def tower320():
    # S14: 80 courses of 4 bricks of 1.5 x 0.5 x 0.5 m (density 10), each course a pinwheel ring 2 m wide
    # (every brick's end against the next one's side), alternate courses mirrored so that every brick rests
    # across the joints below it; 40 m tall.
    pinwheel = [  # (centre x, centre z, along x?)
        [(-0.25, 0.75, True), (0.75, 0.25, False), (0.25, -0.75, True), (-0.75, -0.25, False)],
        [(0.25, 0.75, True), (0.75, -0.25, False), (-0.25, -0.75, True), (-0.75, 0.25, False)],
    ]
    bodies = [dict(g.GROUND)]
    for r in range(80):
        y = 0.25 + 0.5 * r
        for i, (x, z, along_x) in enumerate(pinwheel[r % 2]):
            half = [0.75, 0.25, 0.25] if along_x else [0.25, 0.25, 0.75]
            bodies.append(g.box(f"brick_{r}_{i}", half, [x, y, z], density=10))
    return thesis_scene("tower320", "Thesis scene S14: a 320-brick tower, 80 courses of 4 bricks of 1.5 x 0.5 x "
                        "0.5 m (density 10) laid as pinwheel rings 2 m wide, alternate courses mirrored; 40 m "
                        "tall, friction 0.25, h = 0.01 s.", bodies)


def two_balls():
    # S15: lower r = 0.5 m density 1, upper r = 1 m density 1000 on a fixed plane, frictionless: a mass ratio
    # of 8000 that plain PGS needs tens of thousands of iterations for.
    bodies = [dict(g.GROUND), g.sphere("light", 0.5, [0.0, 0.5, 0.0], density=1),
              g.sphere("heavy", 1.0, [0.0, 2.0, 0.0], density=1000)]
    return thesis_scene("two_balls", "Thesis scene S15: a light ball (r 0.5 m, density 1) under a heavy one "
                        "(r 1 m, density 1000), mass ratio 8000, frictionless. Plain PGS lets the heavy ball "
                        "sink through; shock propagation holds it.", bodies,
                        materials={"default": {"friction": 0, "restitution": 0}})


def sleepy_stack():
    # S29: a column of 10 boxes dropped from 1 cm gaps; restitution 0.1 puts it to sleep within a few frames.
    bodies = [dict(g.GROUND)] + [g.box(f"box_{i}", [0.5, 0.5, 0.5], [0.0, 0.51 + 1.01 * i, 0.0], density=10)
                                 for i in range(10)]
    return thesis_scene("sleepy_stack", "Thesis scene S29: 10 boxes of 1 m with 1 cm gaps settle and fall "
                        "asleep; restitution 0.1 (try 0.4 and 1.0 in the materials to see sleep come later, or "
                        "the stack blow up).", bodies,
                        materials={"default": {"friction": 0.25, "restitution": 0.1}}, restitution_threshold=0.05)


def seesaw():
    # Weight feeling (thesis fig. 6.33): a plank on a fixed pivot with a box on one end. With shock_fraction
    # 0 the plank never feels the box and never tips; a small fraction lets it tip.
    bodies = [dict(g.GROUND),
              g.box("pivot", [0.25, 0.25, 1.0], [0.0, 0.25, 0.0], fixed=True),
              g.box("plank", [3.0, 0.05, 0.5], [0.0, 0.55, 0.0], density=100),
              g.box("load", [0.25, 0.25, 0.25], [2.5, 0.85, 0.0], density=1000)]
    return thesis_scene("seesaw", "Weight feeling (thesis fig. 6.33): a plank balanced on a pivot with a box "
                        "on one end. With shock_fraction 0 the plank does not tip; with a small one it does.",
                        bodies, materials={"default": {"friction": 0.5, "restitution": 0}})


def towers():
    return {f"tower{n}.json": (lambda n=n: column(
        n, f"tower{n}", density=1000, friction=0.6, dt=1.0 / 60.0,
        description=f"{n} boxes of 1 m (density 1000) in a column, zero gaps, friction 0.6, dt 1/60: the "
                    f"tower benchmark (bench/stacking_bench.cpp)."))
            for n in (10, 40, 80, 100)}


SCENES = {
    "column25.json": column25,
    "ball_grid_penetrated.json": ball_grid_penetrated,
    "wall200.json": wall200,
    "tower320.json": tower320,
    "two_balls.json": two_balls,
    "sleepy_stack.json": sleepy_stack,
    "seesaw.json": seesaw,
}
SCENES.update(towers())


# The scene browser's topic of each scene (docs/scene-format.md: topic).
TOPICS = {name: "Stacking" for name in SCENES}
TOPICS.update({
    "ball_grid_penetrated.json": "Ball grids and mass ratios",
    "two_balls.json": "Ball grids and mass ratios",
    "seesaw.json": "Ball grids and mass ratios",
})


def main():
    g.write_scenes(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)), SCENES, TOPICS)


if __name__ == "__main__":
    main()
