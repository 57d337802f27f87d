#!/usr/bin/env python3
"""Writes the shipped scene files (scenes/*.json) from their geometric description.

Usage: python3 scenes/generate.py [output-dir]      (default: the directory of this script)

The JSON files are what the viewer opens, the tests load and the benchmarks time; this script only
exists so that stacks and grids are laid out exactly (contact gaps of 0) instead of by hand.
Re-running it rewrites every file below byte for byte; edit the numbers here, not in the JSON.
Python standard library only. Scene format: see scenes/reference.json (every field used once).
"""

import json
import math
import os
import sys

DT_60 = 1.0 / 60.0
GROUND = {"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0}, "fixed": True}


def num(x):
    """Whole numbers as integers, others as the shortest round-trip decimal."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        return int(x)
    return x


BODY_KEY_ORDER = ["name", "shape", "fixed", "kinematic", "density", "mass", "position", "orientation",
                  "linear_velocity", "angular_velocity", "material"]


def clean(v):
    if isinstance(v, dict):
        if "shape" in v:  # a body: keys in the documented order
            v = {k: v[k] for k in sorted(v, key=BODY_KEY_ORDER.index)}
        return {k: clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [clean(x) for x in v]
    if isinstance(v, float):
        return num(v)
    return v


def quat_axis_angle(axis, degrees):
    """[w, x, y, z] of a rotation by `degrees` about `axis`."""
    n = math.sqrt(sum(a * a for a in axis))
    h = math.radians(degrees) / 2
    s = math.sin(h) / n
    return [math.cos(h), axis[0] * s, axis[1] * s, axis[2] * s]


def qmul(p, q):
    """The product p q of quaternions [w, x, y, z]."""
    w1, x1, y1, z1 = p
    w2, x2, y2, z2 = q
    return [w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2]


def qrot(q, v):
    """Rotates v by the unit quaternion q."""
    w, x, y, z = q
    r = qmul(qmul(q, [0.0] + list(v)), [w, -x, -y, -z])
    return r[1:]


def mesh_body(name, shape, position, orientation=None, **extra):
    """A body of any shape dict (meshes, procedural shapes), density 1000 unless given a mass or made fixed."""
    b = {"name": name, "shape": dict(shape)}
    if "mass" not in extra and "density" not in extra and "fixed" not in extra and "kinematic" not in extra:
        b["density"] = 1000
    b.update(extra)
    b["position"] = list(position)
    if orientation is not None:
        b["orientation"] = list(orientation)
    return b


def box(name, half_extents, position, **extra):
    b = {"name": name, "shape": {"type": "box", "half_extents": list(half_extents)}}
    if "fixed" not in extra and "kinematic" not in extra and "mass" not in extra:
        b["density"] = 1000
    b.update(extra)
    b["position"] = list(position)
    return b


def sphere(name, radius, position, **extra):
    b = {"name": name, "shape": {"type": "sphere", "radius": radius}}
    if "mass" not in extra and "density" not in extra:
        b["density"] = 1000
    b.update(extra)
    b["position"] = list(position)
    return b


def capsule(name, radius, half_height, position, **extra):
    b = {"name": name, "shape": {"type": "capsule", "radius": radius, "half_height": half_height}}
    if "mass" not in extra and "density" not in extra:
        b["density"] = 1000
    b.update(extra)
    b["position"] = list(position)
    return b


def finish(s, bodies, materials=None, joints=None):
    """The scene's materials, bodies and joints after its header and solver, in the files' key order."""
    if materials:
        s["materials"] = materials
    s["bodies"] = bodies
    if joints:
        s["joints"] = joints
    return clean(s)


def scene(name, description, bodies, dt=DT_60, iterations=10, materials=None, **extra):
    s = {"format": 1, "name": name, "description": description, "gravity": [0, -9.81, 0], "dt": dt}
    s.update(extra)
    s["solver"] = {"type": "lcp", "params": {"iterations": iterations}}
    return finish(s, bodies, materials)


def pyramid_rows(rows, size, x0=0.0, z=0.0, prefix="box", **extra):
    """Rows of cubes of edge `size`, centred on x0, each row half a box in from the one below, gaps 0."""
    h = size / 2
    out = []
    for r in range(rows):
        n = rows - r
        for i in range(n):
            x = x0 + (i - (n - 1) / 2) * size
            out.append(box(f"{prefix}_{r}_{i}", [h, h, h], [x, h + r * size, z], **extra))
    return out


def bounding_radius(shape):
    t = shape["type"]
    if t == "sphere":
        return shape["radius"]
    if t == "capsule":
        return shape["radius"] + shape["half_height"]
    if t == "box":
        return math.sqrt(sum(h * h for h in shape["half_extents"]))
    if t == "cylinder":
        return math.hypot(shape["radius"], shape["half_height"])
    return None


def check_apart(movers, bodies):
    """Asserts that no falling body starts touching another (bounding spheres apart, planes: above them)."""
    for m in movers:
        rm = bounding_radius(m["shape"])
        for b in bodies:
            if b is m:
                continue
            rb = bounding_radius(b["shape"])
            if rb is None:
                assert m["position"][1] > rm, m["name"]
                continue
            d = math.dist(m["position"], b["position"])
            assert d > rm + rb, (m["name"], b["name"])


# --- the scenes ---------------------------------------------------------------------------------------

def default_scene():
    bodies = [dict(GROUND)]
    bodies += pyramid_rows(6, 1.0, prefix="pyramid")  # 21 boxes
    for i in range(5):  # a small tower to the right
        bodies.append(box(f"tower_{i}", [0.5, 0.5, 0.5], [6.0, 0.5 + i, 0.0]))
    # Spheres and capsules rain onto the pyramid from staggered heights (no two overlap at the start).
    for i in range(8):
        x = -3.5 + i
        z = 0.8 if i % 2 == 0 else -0.8
        extra = {"material": "rubber"} if i % 3 == 0 else {}
        bodies.append(sphere(f"ball_{i}", 0.4, [x, 8.0 + 0.6 * i, z], **extra))
    for i in range(6):
        x = -2.5 + i
        q = quat_axis_angle([1, 0.3 * (i - 2.5), 0.5], 35 + 20 * i)
        bodies.append(capsule(f"capsule_{i}", 0.25, 0.5, [x, 13.0 + 1.6 * i, 0.3 * (i % 3 - 1)], orientation=q))
    for i, (x, angle) in enumerate([(-1.0, 40.0), (1.5, 65.0)]):
        bodies.append(box(f"tumbler_{i}", [0.6, 0.3, 0.4], [x, 23.5 + 2.0 * i, 0.0],
                          orientation=quat_axis_angle([1, 1, 0.2], angle), angular_velocity=[0, 2.0, 1.0]))
    bodies.append(box("slider", [0.5, 0.25, 0.5], [-7.0, 0.25, 0.0], material="ice", linear_velocity=[4.0, 0, 0]))
    # Two tori (a mesh shape: assets/torus.obj) drop beside the tower.
    for i in range(2):
        bodies.append({"name": f"torus_{i}", "shape": {"type": "mesh", "file": "torus.obj"}, "density": 1000,
                       "position": [8.5, 1.0 + 1.2 * i, 0.2 * i],
                       "orientation": quat_axis_angle([1, 0, 0.3], 20.0 * i)})
    check_apart([b for b in bodies if b["name"].startswith(("ball", "capsule", "tumbler"))], bodies)
    return scene("default", "A 6-row box pyramid and a 5-box tower; spheres (some bouncy), capsules and two "
                 "tumbling boxes rain down on them, a box slides in on ice, and two tori (meshes) drop beside "
                 "the tower.", bodies,
                 materials={"rubber": {"friction": 0.8, "restitution": 0.7}, "ice": {"friction": 0.05}})


def sphere_and_box():
    bodies = [dict(GROUND),
              sphere("sphere", 0.5, [-1.0, 0.5, 0.0]),
              box("box", [0.5, 0.5, 0.5], [1.0, 0.5, 0.0])]
    return scene("sphere_and_box", "A sphere and a box at rest on a plane.", bodies)


def incline():
    # Plane through the origin tilted 30 degrees about z: it rises towards +x. The box sits on it 2 m up the
    # slope, rotated by the same 30 degrees so that its bottom face lies on the plane. tan 30 is exactly the
    # friction needed to hold it (friction is combined as the geometric mean, and both bodies use "incline").
    a = math.radians(30.0)
    normal = [-math.sin(a), math.cos(a), 0.0]
    along = [math.cos(a), math.sin(a), 0.0]
    s, h = 2.0, 0.5
    centre = [s * along[i] + h * normal[i] for i in range(3)]
    bodies = [{"name": "incline", "shape": {"type": "plane", "normal": normal, "offset": 0}, "fixed": True,
               "material": "incline"},
              box("box", [h, h, h], centre, orientation=quat_axis_angle([0, 0, 1], 30.0), material="incline")]
    return scene("incline", "A 1 m box on a plane inclined at 30 degrees with friction tan(30) = 0.57735: "
                 "the static friction threshold.", bodies,
                 materials={"incline": {"friction": math.tan(a), "restitution": 0}})


def pushed_block():
    # Drumwright's "block with applied forces" (sect. V-B, Figs. 10-12): a 10 kg cube of 1 m resting on a plane
    # at h = 1e-3 s. A downward force of 10-100 N (uniform) acts at a random point of its top face for 500 steps,
    # then none for 500 steps, ten times; each window draws its own force and point (seeded: every run and every
    # method gets the same ten pushes). The force stays inside the support, so the block should not move at all.
    h = 0.5
    bodies = [dict(GROUND), box("block", [h, h, h], [0, h, 0], mass=10)]
    forces = [{"body": "block", "force": {"min": [0, -100, 0], "max": [0, -10, 0]},
               "point": {"min": [-h, h, -h], "max": [h, h, h]}, "end": 10, "on": 0.5, "period": 1,
               "resample": "window", "seed": 2008}]
    s = scene("pushed_block", "Drumwright's perturbed block: a 10 kg cube of 1 m at rest on a plane is pushed down "
              "by 10-100 N at a random point of its top face for 500 steps, then left alone for 500, ten times "
              "(h = 1e-3 s). Kinetic energy and penetration show how each method returns it to rest.", bodies,
              dt=0.001)
    # Coarser point shells and depth images than the defaults (0.04 m, 0.01 m) for the 1 m cube: the same kinetic
    # energy and penetration within 10%, at a tenth (implicit-penalty) and a third (volume) of the time.
    s["solver"]["params_by_solver"] = {"implicit-penalty": {"point_spacing": 0.1}, "volume": {"pixel_size": 0.02}}
    s["forces"] = clean(forces)
    return s


def pile():
    # Drumwright's pile of objects (sect. V-C, Fig. 13): boxes, cylinders and spheres of various sizes in a box,
    # masses drawn uniformly from [0, 100] kg (seeded; at least 1 kg, so that no body is a near-massless
    # speck). Two layers of nine, each object in its own 0.5 m cell, dropped from a few centimetres apart into a
    # 1.5 m square box with 0.1 m walls, where they settle into a pile that presses against the walls.
    import random
    rng = random.Random(2008)
    bodies = [dict(GROUND)]
    half = 0.75 + 0.05
    for name, he, pos in (("wall_x0", [0.05, 0.3, half + 0.05], [-half, 0.3, 0]),
                          ("wall_x1", [0.05, 0.3, half + 0.05], [half, 0.3, 0]),
                          ("wall_z0", [half - 0.05, 0.3, 0.05], [0, 0.3, -half]),
                          ("wall_z1", [half - 0.05, 0.3, 0.05], [0, 0.3, half])):
        bodies.append(box(name, he, pos, fixed=True))
    kinds = ["box", "cylinder", "sphere"]
    n = 0
    for layer in range(2):
        for i in range(3):
            for k in range(3):
                kind = kinds[(n + layer) % 3]
                mass = max(1.0, round(rng.uniform(0.0, 100.0), 1))
                x, z = -0.48 + 0.48 * i + rng.uniform(-0.01, 0.01), -0.48 + 0.48 * k + rng.uniform(-0.01, 0.01)
                y = 0.3 + 0.5 * layer
                tilt = quat_axis_angle([rng.uniform(-1, 1), 0, rng.uniform(-1, 1)], rng.uniform(0, 20))
                name = f"{kind}_{n}"
                if kind == "box":
                    he = [round(rng.uniform(0.07, 0.125), 3) for _ in range(3)]
                    bodies.append(box(name, he, [x, y, z], mass=mass, orientation=tilt))
                elif kind == "sphere":
                    bodies.append(sphere(name, round(rng.uniform(0.08, 0.16), 3), [x, y, z], mass=mass))
                else:
                    shape = {"type": "cylinder", "radius": round(rng.uniform(0.08, 0.14), 3),
                             "half_height": round(rng.uniform(0.08, 0.15), 3), "segments": 24}
                    bodies.append(mesh_body(name, shape, [x, y, z], tilt, mass=mass))
                n += 1
    # Clear of each other and the ground (check_apart), and of the walls: a bounding sphere at most 0.22 m
    # in a cell whose centre is at most 0.49 m from the middle stays inside the 0.75 m half width.
    movers = [b for b in bodies if "mass" in b]
    check_apart(movers, [bodies[0]] + movers)
    for m in movers:
        r = bounding_radius(m["shape"])
        assert max(abs(m["position"][0]), abs(m["position"][2])) + r < 0.75, m["name"]
    return scene("pile", "Drumwright's pile: 18 boxes, cylinders and spheres of various sizes, masses uniform "
                 "in [0, 100] kg (at least 1), dropped in two layers into a 1.5 m box, where they settle into a "
                 "pile pressing on each other and the walls; friction 0.5.", bodies,
                 materials={"default": {"friction": 0.5, "restitution": 0}})


def pile1000():
    # The peer benchmark's large scene (bench/peers): 1,000 boxes, spheres and capsules of various sizes
    # (seeded), density 1000, in ten layers of 10 x 10 cells of 0.5 m dropped into a 5 m square box with 1.5 m
    # walls, where they fall and settle into a heap; friction 0.5. Every body starts in its own cell, tilted
    # by up to 20 degrees, so none touches another at the start (check_apart).
    import random
    rng = random.Random(1000)
    bodies = [dict(GROUND)]
    half = 2.5 + 0.1
    for name, he, pos in (("wall_x0", [0.1, 0.75, half + 0.1], [-half, 0.75, 0]),
                          ("wall_x1", [0.1, 0.75, half + 0.1], [half, 0.75, 0]),
                          ("wall_z0", [half - 0.1, 0.75, 0.1], [0, 0.75, -half]),
                          ("wall_z1", [half - 0.1, 0.75, 0.1], [0, 0.75, half])):
        bodies.append(box(name, he, pos, fixed=True))
    kinds = ["box", "sphere", "capsule"]
    n = 0
    for layer in range(10):
        for i in range(10):
            for k in range(10):
                kind = kinds[(i + k + layer) % 3]
                x = -2.25 + 0.5 * i + rng.uniform(-0.02, 0.02)
                z = -2.25 + 0.5 * k + rng.uniform(-0.02, 0.02)
                y = 0.3 + 0.5 * layer
                tilt = quat_axis_angle([rng.uniform(-1, 1), 0, rng.uniform(-1, 1)], rng.uniform(0, 20))
                name = f"{kind}_{n}"
                if kind == "box":
                    he = [round(rng.uniform(0.06, 0.12), 3) for _ in range(3)]
                    bodies.append(box(name, he, [x, y, z], orientation=tilt))
                elif kind == "sphere":
                    bodies.append(sphere(name, round(rng.uniform(0.07, 0.15), 3), [x, y, z]))
                else:
                    r = round(rng.uniform(0.05, 0.09), 3)
                    bodies.append(capsule(name, r, round(rng.uniform(0.05, 0.12), 3), [x, y, z], orientation=tilt))
                n += 1
    movers = [b for b in bodies if "density" in b]
    check_apart(movers, [bodies[0]] + movers)
    for m in movers:
        assert max(abs(m["position"][0]), abs(m["position"][2])) + bounding_radius(m["shape"]) < 2.5, m["name"]
    return scene("pile1000", "1,000 boxes, spheres and capsules of various sizes (density 1000) dropped in ten "
                 "layers of 10 x 10 into a 5 m square box with 1.5 m walls, where they settle into a heap; "
                 "friction 0.5. The peer benchmark's large scene (bench/peers).", bodies,
                 materials={"default": {"friction": 0.5, "restitution": 0}})


def pyramid20():
    bodies = [dict(GROUND)] + pyramid_rows(20, 1.0)
    return scene("pyramid20", "20-row pyramid of 210 boxes of 1 m (density 1000), rows centred and offset by "
                 "half a box, resting with zero gaps on a ground plane at y = 0; friction 0.6.", bodies,
                 materials={"default": {"friction": 0.6, "restitution": 0}})


def tower20():
    bodies = [dict(GROUND)] + [box(f"box_{i}", [0.5, 0.5, 0.5], [0.0, 0.5 + i, 0.0]) for i in range(20)]
    return scene("tower20", "20 boxes of 1 m (density 1000) stacked in a column with zero gaps; friction 0.6.",
                 bodies, materials={"default": {"friction": 0.6, "restitution": 0}})


def ball_grid():
    # Thesis scene S11 (Erleben 2004, figs. 6.12-6.13): a 5x5x5 grid of balls, r = 0.5 m, density 10,
    # each resting on the one below (gaps 0), h = 0.01 s. With 10 PGS iterations the grid collapses after
    # about 2.5 s; with 100 it holds.
    bodies = [dict(GROUND)]
    for j in range(5):
        for i in range(5):
            for k in range(5):
                bodies.append(sphere(f"ball_{i}_{j}_{k}", 0.5, [i - 2.0, 0.5 + j, k - 2.0], density=10))
    return scene("ball_grid", "Thesis scene S11: 125 balls (r = 0.5 m, density 10) in a 5x5x5 grid stack "
                 "resting on a plane, h = 0.01 s. With 10 iterations it collapses after about 2.5 s; "
                 "with 100 it holds.", bodies, dt=0.01)


def wall():
    # Running bond: even rows are 10 bricks of 1.0 x 0.5 x 0.5 m; odd rows are shifted by half a brick,
    # so they hold 9 bricks and a half brick (0.5 x 0.5 x 0.5 m) at each end to keep the ends flush.
    bodies = [dict(GROUND)]
    brick = [0.5, 0.25, 0.25]
    half = [0.25, 0.25, 0.25]
    for r in range(10):
        y = 0.25 + 0.5 * r
        if r % 2 == 0:
            for i in range(10):
                bodies.append(box(f"brick_{r}_{i}", brick, [i - 4.5, y, 0.0]))
        else:
            bodies.append(box(f"brick_{r}_left", half, [-4.75, y, 0.0]))
            for i in range(9):
                bodies.append(box(f"brick_{r}_{i}", brick, [i - 4.0, y, 0.0]))
            bodies.append(box(f"brick_{r}_right", half, [4.75, y, 0.0]))
    return scene("wall", "A 10-row running-bond wall, 10 m long and 5 m high: bricks of 1.0 x 0.5 x 0.5 m "
                 "(half bricks at the ends of odd rows), density 1000, zero gaps; friction 0.6.", bodies,
                 materials={"default": {"friction": 0.6, "restitution": 0}})


def scripted_ball_push():
    # Thesis scene S5 (Erleben 2004, fig. 3.7): a scripted body pushes into the 5x5x5 ball grid of S11
    # (r = 0.5 m, density 10, gaps 0, h = 0.01 s). The pusher is a kinematic box following a gently curving
    # spline from the side into the lower layers, easing in and out; the grid settles for half a second
    # first. 100 iterations, so that the grid itself holds (S11) and only the pusher breaks it.
    bodies = [dict(GROUND)]
    for j in range(5):
        for i in range(5):
            for k in range(5):
                bodies.append(sphere(f"ball_{i}_{j}_{k}", 0.5, [i - 2.0, 0.5 + j, k - 2.0], density=10))
    path = [[-6.0, 1.5, -1.0], [-3.5, 1.6, -0.6], [-1.0, 1.8, 0.2], [1.5, 2.0, 0.5]]
    bodies.append(box("pusher", [0.4, 1.0, 1.5], path[0], kinematic=True))
    s = scene("scripted_ball_push", "Thesis scene S5: a kinematic box follows a curved spline path (ease in, "
              "ease out) into the side of a 5x5x5 grid of balls (r = 0.5 m, density 10) resting on a plane; "
              "h = 0.01 s, 100 iterations.", bodies, dt=0.01, iterations=100)
    s["scripts"] = clean([{"body": "pusher", "path": path, "speed": 1.5, "timing": "ease", "loop": False,
                           "start_time": 0.5}])
    return s


def scripted_wall_hit():
    # Thesis scene S7 (fig. 3.9): a scripted body hits a 200-brick wall. 10 courses of 20 bricks of
    # 1.0 x 0.5 x 0.5 m (density 10, as the thesis's bricks) in running bond: even courses are 20 whole
    # bricks (x in [-10, 10]); odd courses start with a half brick on the left and continue with 19 whole
    # ones shifted by half a brick, so the right end steps back by half a brick (every brick fully
    # supported, 20 per course). A kinematic ball (r = 1 m) swings like a wrecking ball on a circular arc
    # (radius 10 m, through the wall's middle at 2 m height), easing in and out; the wall settles for half a
    # second first.
    bodies = [dict(GROUND)]
    for r in range(10):
        y = 0.25 + 0.5 * r
        if r % 2 == 0:
            for i in range(20):
                bodies.append(box(f"brick_{r}_{i}", [0.5, 0.25, 0.25], [i - 9.5, y, 0.0], density=10))
        else:
            bodies.append(box(f"brick_{r}_half", [0.25, 0.25, 0.25], [-9.75, y, 0.0], density=10))
            for i in range(19):
                bodies.append(box(f"brick_{r}_{i}", [0.5, 0.25, 0.25], [i - 9.0, y, 0.0], density=10))
    pivot, radius = [0.0, 12.0, 0.0], 10.0
    path = []
    for degrees in (-40, -20, 0, 20, 40):
        a = math.radians(degrees)
        path.append([pivot[0], pivot[1] - radius * math.cos(a), pivot[2] + radius * math.sin(a)])
    ball = sphere("wrecking_ball", 1.0, path[0], kinematic=True)
    del ball["density"]  # kinematic: infinite mass
    bodies.append(ball)
    s = scene("scripted_wall_hit", "Thesis scene S7: a kinematic ball (r = 1 m) swings on a circular arc through "
              "a 200-brick running-bond wall (10 courses of 20 bricks of 1.0 x 0.5 x 0.5 m, half bricks at "
              "the left end of odd courses, density 10, friction 0.4), easing in and out; h = 0.01 s, "
              "50 iterations.", bodies, dt=0.01, iterations=50,
              materials={"default": {"friction": 0.4, "restitution": 0}})
    s["scripts"] = clean([{"body": "wrecking_ball", "path": path, "speed": 4.0, "timing": "ease", "loop": False,
                           "start_time": 0.5}])
    return s


# --- joints ---------------------------------------------------------------------------------------------

def joint(type_, bodies, anchor, axis=None, axis2=None, name=None, coordinate=None, limits=None, motor=None,
          servo=None, erp=None):
    """A joint in the documented key order; `servo` is a dict of the scene's servo keys."""
    j = {}
    if name:
        j["name"] = name
    j["type"] = type_
    j["bodies"] = list(bodies)
    j["anchor"] = list(anchor)
    if axis is not None:
        j["axis"] = list(axis)
    if axis2 is not None:
        j["axis2"] = list(axis2)
    if coordinate is not None:
        j["coordinate"] = coordinate
    if limits is not None:
        j["limits"] = {"lower": limits[0], "upper": limits[1]}
    if motor is not None:
        j["motor"] = {"speed": motor[0], "max_force": motor[1]}
    if servo is not None:
        j["servo"] = {k: servo[k] for k in ("target", "stiffness", "damping", "max_force", "range", "keys", "rate")
                      if k in servo}
    if erp is not None:
        j["erp"] = erp
    return j


def pendulum_chain():
    # Six bars of 0.7 x 0.1 x 0.1 m hinged end to end about z, starting horizontal along +x from a hinge at
    # (0, 7.5, 0) on a fixed support (which sits 0.3 m behind the chain so that they never touch). The hinges
    # sit in 0.3 m gaps between the bars, on their long axes; their limits of +-2.2 rad (126 degrees) stop
    # neighbours before they fold into each other (at about 2.45 rad). The chain falls and whips through in
    # its plane, high enough never to reach the ground. h = 1/120 s, 20 iterations.
    n, length, gap, y = 6, 0.7, 0.3, 7.5
    pitch = length + gap
    bodies = [dict(GROUND), box("support", [0.1, 0.1, 0.05], [0.0, y, -0.3], fixed=True)]
    joints = []
    for i in range(n):
        x0 = gap / 2 + i * pitch  # left end of bar i; the hinge before it is at x0 - gap / 2
        bodies.append(box(f"bar_{i}", [length / 2, 0.05, 0.05], [x0 + length / 2, y, 0.0], density=500))
        joints.append(joint("hinge", ["support" if i == 0 else f"bar_{i - 1}", f"bar_{i}"], [i * pitch, y, 0.0],
                            axis=[0, 0, 1], name=f"hinge_{i}", limits=None if i == 0 else [-2.2, 2.2]))
    s = scene("pendulum_chain", "Six hinged bars (0.7 x 0.1 x 0.1 m, density 500) hang from a fixed support "
              "and start horizontal: the chain falls and whips through in its plane. Hinges about z in 0.3 m "
              "gaps between the bars, limited to +-2.2 rad between bars; h = 1/120 s, 20 iterations.", bodies,
              dt=1.0 / 120.0, iterations=20)
    s["joints"] = clean(joints)
    return s


def door():
    # A 1 x 2 m door (0.05 m thick, density 600, 60 kg) hangs on a vertical hinge along its left edge from a
    # fixed post (0.1 m clear of it, and 0.02 m above the floor). Its motor turns it at 1 rad/s with at most
    # 100 N m; the limits [0, 1.5] rad stop it open, where the motor keeps pressing it against the limit.
    bodies = [dict(GROUND),
              box("post", [0.05, 1.05, 0.05], [-0.65, 1.07, 0.0], fixed=True),
              box("door", [0.5, 1.0, 0.025], [0.0, 1.02, 0.0], density=600)]
    joints = [joint("hinge", ["post", "door"], [-0.5, 1.02, 0.0], axis=[0, 1, 0], name="hinge",
                    limits=[0.0, 1.5], motor=[1.0, 100.0])]
    s = scene("door", "A 1 x 2 m door on a vertical hinge at its left edge: a motor (1 rad/s, at most 100 N m) "
              "swings it open until the limit at 1.5 rad stops it; limits [0, 1.5] rad.", bodies)
    s["joints"] = clean(joints)
    return s


def car():
    # A chassis box (2 x 0.4 x 1 m, density 300, 240 kg) on four sphere wheels (r = 0.35 m, density 400,
    # 72 kg) resting on the ground, each on a hinge-2 joint at its centre: steering axis y on the chassis,
    # wheel axis -z on the wheel, steering locked straight by limits [0, 0], and a motor driving the wheel at
    # 6 rad/s (2.1 m/s forward, +x) with at most 150 N m. The wheels sit 0.05 m clear of the chassis sides.
    r = 0.35
    bodies = [dict(GROUND), box("chassis", [1.0, 0.2, 0.5], [0.0, 0.6, 0.0], density=300)]
    joints = []
    for name, x, z in (("front_left", 0.7, -0.9), ("front_right", 0.7, 0.9), ("rear_left", -0.7, -0.9),
                       ("rear_right", -0.7, 0.9)):
        bodies.append(sphere(f"wheel_{name}", r, [x, r, z], density=400, material="tyre"))
        joints.append(joint("hinge2", ["chassis", f"wheel_{name}"], [x, r, z], axis=[0, 1, 0], axis2=[0, 0, -1],
                            name=f"axle_{name}", limits=[0.0, 0.0], motor=[6.0, 150.0]))
    s = scene("car", "A four-wheel car: a 2 x 0.4 x 1 m chassis on four sphere wheels (r = 0.35 m), each on a "
              "hinge-2 joint (steering axis y locked straight by limits [0, 0], wheel axis -z) whose motor "
              "drives it at 6 rad/s with at most 150 N m: the car accelerates along +x to about 2.1 m/s.",
              bodies, materials={"tyre": {"friction": 1.0, "restitution": 0}})
    s["joints"] = clean(joints)
    return s


def chain20():
    # 20 capsule links (r = 0.05 m, half height 0.15 m: 0.4 m long, density 1000, 2.9 kg) lying along +x,
    # 0.5 m apart, joined by ball joints in the 0.1 m gaps between their tips (on their axes, so neighbours
    # only touch when bent past about 110 degrees). The first hangs from a ball joint at (0, 11, 0) on a
    # fixed anchor 0.3 m behind it. The chain starts horizontal, falls and swings. h = 1/120 s, 30 iterations.
    n, pitch, y = 20, 0.5, 11.0
    across = quat_axis_angle([0, 0, 1], 90)  # the capsule's axis (body y) along world x
    bodies = [dict(GROUND), sphere("anchor", 0.05, [0.0, y, -0.3], fixed=True)]
    del bodies[1]["density"]
    joints = []
    for i in range(n):
        bodies.append(capsule(f"link_{i}", 0.05, 0.15, [pitch / 2 + i * pitch, y, 0.0], orientation=across))
        joints.append(joint("ball", ["anchor" if i == 0 else f"link_{i - 1}", f"link_{i}"], [i * pitch, y, 0.0]))
    s = scene("chain20", "A chain of 20 capsule links (0.4 m long, r = 0.05 m) joined by ball joints, hanging "
              "from a fixed anchor 11 m up: it starts horizontal, falls and swings. h = 1/120 s, 30 iterations.",
              bodies, dt=1.0 / 120.0, iterations=30)
    s["joints"] = clean(joints)
    return s


def reference():
    # Every field of the format, each at least once. Comments live in "description" (JSON has none).
    s = {
        "format": 1,
        "name": "reference",
        "description": "Uses every field of the scene format once but \"methods\" (for your own scenes); the scene format documentation says what each means.",
        "gravity": [0, -9.81, 0],
        "dt": 0.01,
        "contact_margin": 0.02,
        "max_speed": 1000,
        "max_contacts": 250000,
        "continuous": True,
        "threads": 1,
        "solver": {"type": "lcp", "params": {
            "iterations": 20, "joint_sweeps": 10, "correction_iterations": 5, "vector_lanes": True,
            "coloured_sweeps": True, "warm_start": True, "stack_warm_start": True,
            "friction_directions": 2,
            "restitution_threshold": 0.5, "allowed_penetration": 0.001, "tolerance": 1e-9,
            "shock_propagation": True, "shock_fraction": 0.01, "layer_iterations": 40, "layer_tolerance": 1e-8, "first_tolerance": 1e-4,
            "global_correction": True, "solver_precision": "double",
            "friction_cone": "circle", "sleeping": True, "sleep_energy": 0.002, "sleep_steps": 5, "recycle_distance": 0.0005},
            "params_by_solver": {"implicit-penalty": {"penetration": 0.002}, "volume": {"pixel_size": 0.02}}},
        "materials": {
            "default": {"friction": 0.5, "restitution": 0},
            "rubber": {"friction": 0.9, "restitution": 0.6},
            "steel": {"friction": 0.3},
        },
        "bodies": [
            {"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0}, "fixed": True},
            {"name": "back_wall", "shape": {"type": "plane", "normal": [0, 0, 1], "offset": -5}, "fixed": True,
             "material": "steel"},
            {"name": "ramp", "shape": {"type": "box", "half_extents": [2, 0.1, 1]}, "fixed": True,
             "position": [-4, 1, 0], "orientation": quat_axis_angle([0, 0, 1], -15), "material": "steel"},
            {"name": "crate", "shape": {"type": "box", "half_extents": [0.5, 0.5, 0.5]}, "density": 500,
             "position": [0, 0.5, 0]},
            {"name": "ball", "shape": {"type": "sphere", "radius": 0.3}, "mass": 2.5,
             "position": [0, 3, 0], "linear_velocity": [1, 0, 0], "angular_velocity": [0, 0, -3],
             "material": "rubber"},
            {"name": "pill", "shape": {"type": "capsule", "radius": 0.2, "half_height": 0.4}, "density": 1000,
             "position": [2, 1, 0], "orientation": quat_axis_angle([0, 0, 1], 90)},
            {"name": "pusher", "shape": {"type": "box", "half_extents": [0.2, 0.5, 1]}, "kinematic": True,
             "position": [5, 0.5, 0], "linear_velocity": [-0.5, 0, 0], "angular_velocity": [0, 0, 0]},
        ],
    }
    return clean(s)


SCENES = {
    "default.json": default_scene,
    "sphere_and_box.json": sphere_and_box,
    "incline.json": incline,
    "pyramid20.json": pyramid20,
    "tower20.json": tower20,
    "ball_grid.json": ball_grid,
    "wall.json": wall,
    "reference.json": reference,
    "scripted_ball_push.json": scripted_ball_push,
    "scripted_wall_hit.json": scripted_wall_hit,
    "pendulum_chain.json": pendulum_chain,
    "door.json": door,
    "car.json": car,
    "chain20.json": chain20,
    "pushed_block.json": pushed_block,
    "pile.json": pile,
    "pile1000.json": pile1000,
}


def dump(s):
    """Top-level keys one per line, each body (and each joint) on one line: compact yet diff-friendly."""
    lines = ["{"]
    keys = list(s.keys())
    for n, k in enumerate(keys):
        comma = "," if n + 1 < len(keys) else ""
        v = s[k]
        if k in ("bodies", "joints", "forces"):
            lines.append(f'  "{k}": [')
            for i, b in enumerate(v):
                lines.append("    " + json.dumps(b) + ("," if i + 1 < len(v) else ""))
            lines.append("  ]" + comma)
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def with_topic(s, topic):
    """The scene with "topic" (the viewer's scene browser groups scenes by it) just after its description (or its
    name)."""
    out = {}
    anchor = "description" if "description" in s else "name"
    for k, v in s.items():
        out[k] = v
        if k == anchor:
            out["topic"] = topic
    return out


def write_scenes(out_dir, scenes, topics=None):
    """Writes each scene of {file name: function making it} into out_dir and prints its path. `topics` is a topic
    for every scene, or {file name: topic}; every scene written must have one. No shipped scene has "methods":
    every method runs every scene (the key is for users' own scenes)."""
    if isinstance(topics, dict):
        missing = sorted(set(scenes) ^ set(topics))
        if missing:
            sys.exit(f"topics listed for scenes this generator does not write, or missing: {', '.join(missing)}")
    for file_name, make in scenes.items():
        s = make()
        if topics:
            s = with_topic(s, topics[file_name] if isinstance(topics, dict) else topics)
        path = os.path.join(out_dir, file_name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(dump(s))
        print(path)


# The scene browser's topic of each scene (docs/scene-format.md: topic); the other generators keep their own.
TOPICS = {
    "default.json": "Getting started",
    "sphere_and_box.json": "Getting started",
    "reference.json": "Getting started",
    "incline.json": "Friction and sliding",
    "pushed_block.json": "Friction and sliding",
    "pyramid20.json": "Stacking",
    "tower20.json": "Stacking",
    "wall.json": "Stacking",
    "ball_grid.json": "Ball grids and mass ratios",
    "scripted_ball_push.json": "Impacts and piles",
    "scripted_wall_hit.json": "Impacts and piles",
    "pile.json": "Impacts and piles",
    "pile1000.json": "Impacts and piles",
    "pendulum_chain.json": "Joints and machines",
    "door.json": "Joints and machines",
    "car.json": "Joints and machines",
    "chain20.json": "Joints and machines",
}


def main():
    write_scenes(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)), SCENES, TOPICS)


if __name__ == "__main__":
    main()
