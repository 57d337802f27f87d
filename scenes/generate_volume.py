#!/usr/bin/env python3
"""Writes the scenes of the volume contact method (Allard et al. 2010) from their geometry.

Usage: python3 scenes/generate_volume.py [output-dir]
       python3 scenes/generate_volume.py --measure ASSETS-DIR

  output-dir   default: the directory of this script
  --measure    print the mesh numbers listed below, measured from the scanned meshes in ASSETS-DIR (the build's
               assets/ folder, where the configure step extracts Debian's libcgal-demo meshes), instead of
               writing the scenes

Scenes: volume_armadillos, volume_tori, volume_grasp, volume_pile. Like scenes/generate.py (whose helpers this
reuses), the script exists so that the layouts are computed, not typed; re-running it rewrites the files byte
for byte: edit the numbers here, not in the JSON. Python standard library only.

A mesh body's "position" is where its centre of mass goes (the engine recentres every mesh on its centre of
mass), so the layouts need each mesh's extent about its centre of mass in the orientations used. The scanned
meshes are not committed, so those numbers are listed below; `--measure` recomputes them (the centre of mass
of the closed surface by the divergence theorem, as engine/mesh/mass_properties.h does) and must agree with
them. The pile's bodies were also checked with the engine to start apart (no volume contact in the first
step).
"""

import math
import os
import sys

sys.dont_write_bytecode = True  # no scenes/__pycache__ from importing generate.py
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as g  # noqa: E402  (clean, quat_axis_angle, dump, GROUND)

GOLDEN = math.pi * (3.0 - math.sqrt(5.0))  # golden angle: offsets and turns that never line up

# --- measured mesh data (see the docstring; `--measure` prints them) ---------------------------------------

# armadillo.off at scale 0.01 (1.27 x 1.51 x 1.15 m, 0.238 m^3): lowest and highest y of the surface about the
# centre of mass, lying on its back (ARMADILLO_BACK) and lying face down turned 80 degrees about the vertical
# (ARMADILLO_ACROSS).
ARMADILLO_BACK_Y = (-0.639918141217, 0.514311858783)
ARMADILLO_ACROSS_Y = (-0.514311858783, 0.639918141217)
# Largest distance of a vertex from the centre of mass (a bounding sphere) at the pile's scales.
PILE_MESHES = [  # (name, file, scale, bounding radius)
    ("armadillo", "armadillo.off", 0.003, 0.317571),
    ("bunny", "bunny00.off", 0.45, 0.363486),
    ("cow", "cow.off", 0.5, 0.299367),
    ("elephant", "elephant.off", 0.5, 0.331737),
]
# assets/torus.obj: major radius 0.35 m, tube radius 0.12 m, axis along y (symmetric: centre of mass at 0).
TORUS_R, TORUS_TUBE = 0.35, 0.12


# --- helpers ---------------------------------------------------------------------------------------------------

qmul, qrot = g.qmul, g.qrot


def rnd(v, digits=6):
    return [round(x, digits) + 0.0 for x in v]


def mesh_body(name, shape, position, orientation=None, **extra):
    return g.mesh_body(name, shape, rnd(position), orientation, **extra)


def scene(name, description, bodies, dt, params, materials=None, scripts=None):
    s = {"format": 1, "name": name, "description": description, "gravity": [0, -9.81, 0], "dt": dt,
         "solver": {"type": "volume", "params": params}}
    s["materials"] = materials or {"default": {"friction": 0.5, "restitution": 0}}
    s["bodies"] = bodies
    if scripts:
        s["scripts"] = scripts
    return g.clean(s)


def check_layers_apart(placed):
    """Asserts that bodies of different layers start with their bounding spheres apart; `placed` holds
    (layer, position, radius). Within a layer neighbours' spheres overlap but the meshes do not (checked with
    the engine: no volume contact in the first step)."""
    for i, (la, pa, ra) in enumerate(placed):
        for lb, pb, rb in placed[i + 1:]:
            assert la == lb or math.dist(pa, pb) > ra + rb, (pa, pb)


# --- the scenes ---------------------------------------------------------------------------------------------------

ARMADILLO = {"type": "mesh", "file": "armadillo.off", "scale": 0.01}
ARMADILLO_BACK = g.quat_axis_angle([1, 0, 0], -90)  # face (+z) up, head toward -z
ARMADILLO_ACROSS = qmul(g.quat_axis_angle([0, 1, 0], 80), g.quat_axis_angle([1, 0, 0], 90))  # face down, crosswise


def volume_armadillos():
    # The paper's Fig. 8 and its timing table: two rigid armadillos. The scanned armadillo of libcgal-demo at
    # scale 0.01 is 1.5 m tall (52,000 triangles, 238 kg at 1000 kg/m^3). The first lies on its back 1 cm above
    # the ground; the second, face down and turned 80 degrees about the vertical so that it falls across the
    # first, starts 0.3 m above it, 10 cm and 5 cm off its centre. Pixels of 1 cm (150 across the armadillo)
    # and cells of 10 cm.
    y0 = -ARMADILLO_BACK_Y[0] + 0.01
    y1 = y0 + ARMADILLO_BACK_Y[1] + 0.3 - ARMADILLO_ACROSS_Y[0]
    bodies = [dict(g.GROUND),
              mesh_body("armadillo_0", ARMADILLO, [0, y0, 0], ARMADILLO_BACK),
              mesh_body("armadillo_1", ARMADILLO, [0.1, y1, 0.05], ARMADILLO_ACROSS)]
    return scene("volume_armadillos",
                 "Volume contact constraints (Allard et al. 2010, Fig. 8): two scanned armadillos (libcgal-demo, "
                 "52,000 triangles each, 1.5 m tall) dropped on each other onto the ground: one lying on its back, "
                 "the other falling face down across it from 0.3 m. A handful of volume constraints (one per "
                 "10 cm grid cell of each intersection, from 1 cm pixels) instead of hundreds of point contacts; "
                 "they come to rest on each other in about 2 s.",
                 bodies, 0.01, {"pixel_size": 0.01, "multi_volume": True, "cell_size": 0.1})


TORUS = {"type": "mesh", "file": "torus.obj"}


def volume_tori():
    # The paper's Fig. 1 (left): a stack of tori. Eight tori (R 0.35 m, tube 0.12 m, 99.5 kg) lying flat, each
    # tilted 3 degrees about a horizontal axis and 3 cm off the column's axis in a golden-angle spiral, 2 cm
    # apart (the lowest 5 mm above the ground): they land in turn, level out on the one below and settle into
    # a slightly staggered column 1.9 m tall.
    tilt = math.radians(3.0)
    half = TORUS_TUBE * math.cos(tilt) + TORUS_R * math.sin(tilt)  # half height of a tilted torus
    bodies = [dict(g.GROUND)]
    y = 0.0
    for i in range(8):
        a = GOLDEN * i
        y += half + (0.02 if i else 0.005)
        q = g.quat_axis_angle([math.sin(a), 0.0, -math.cos(a)], 3.0)
        bodies.append(mesh_body(f"torus_{i}", TORUS, [0.03 * math.cos(a), y, 0.03 * math.sin(a)], q))
        y += half
    return scene("volume_tori",
                 "Volume contact constraints (Allard et al. 2010, Fig. 1): eight tori (assets/torus.obj, R 0.35 m, "
                 "tube 0.12 m) dropped flat in a column, each tilted 3 degrees and 3 cm off the axis: non-convex "
                 "resting contact, each torus on the ring of the one below through a few 10 cm cells. The column "
                 "settles and stands.",
                 bodies, 0.01, {"pixel_size": 0.01, "multi_volume": True, "cell_size": 0.1})


# The grasped body: a block with four vertical through-holes (procedural mesh, 16 cm, 1.65 kg at 500 kg/m^3).
BLOCK = {"type": "perforated_box", "half_extents": [0.08, 0.08, 0.08], "hole_radius": 0.02, "holes_x": 2,
         "holes_z": 2}
BLOCK_HALF = 0.08
JAW_HALF = [0.02, 0.06, 0.12]
GRASP_DEPTH = 0.0002  # how far each jaw closes into the block, m (see volume_grasp)


def jaw_path(side, centre_y):
    """The path of the jaw on `side` (-1 left, +1 right): in along x from 6 cm out to its closed position, a
    quarter circle of 4 cm radius turning it upward (so it starts lifting as it finishes closing), then 0.4 m
    straight up; points every 1 cm or less, so the spline follows the straight parts without overshooting (a
    sparse path let the jaws swing 1.3 cm further in and back out while lifting)."""
    closed = side * (BLOCK_HALF - GRASP_DEPTH + JAW_HALF[0])
    open_ = closed + side * 0.06
    r, lift, step = 0.04, 0.4, 0.01
    pts = []
    straight = abs(open_ - closed) - r
    n = round(straight / step)
    for k in range(n + 1):
        pts.append([open_ - side * straight * k / n, centre_y, 0.0])
    na = round(math.pi / 2 * r / step)
    for k in range(1, na + 1):
        a = math.pi / 2 * k / na
        pts.append([closed + side * r * (1 - math.sin(a)), centre_y + r * (1 - math.cos(a)), 0.0])
    nl = round(lift / step)
    for k in range(1, nl + 1):
        pts.append([closed, centre_y + r + lift * k / nl, 0.0])
    return [rnd(p, 9) for p in pts]


def volume_grasp():
    # Two kinematic jaws (12 x 24 cm faces) close on the block from both sides, level with its centre, and lift
    # it 0.44 m: the block rises only through friction on the jaws' faces (the paper's grasp, Fig. 2b and the
    # organ of Fig. 1, on a rigid body). Jaw material friction 1.0 against the block's 0.5 (a contact takes
    # the geometric mean: 0.71).
    #
    # A rigid body held between two position-driven rigid jaws is statically indeterminate: nothing in rigid
    # body mechanics fixes the squeeze. In this solver the squeeze is the pressure the velocity MLCP builds
    # while the jaws close into the block (the two volume rows cannot both hold, so projected Gauss-Seidel
    # raises both pressures in every sweep), carried from step to step by warm starting; it grows with the
    # closing depth (and with the iterations and 1 / h^2). The jaws close 0.2 mm into the block (well under
    # the half pixel of depth post-stabilisation leaves alone): with symmetric Gauss-Seidel sweeps the block
    # is held for contact friction 0.59 and above (jaw material 0.7) and slips for 0.5 and below (jaw 0.5).
    # Deeper jaws squeeze harder, and jaws deeper than half a pixel are fought by the post-stabilisation,
    # which cannot push the block out of both and moves it by centimetres in a step.
    centre_y = BLOCK_HALF + 0.0005
    bodies = [dict(g.GROUND), mesh_body("block", BLOCK, [0, centre_y, 0], density=500)]
    scripts = []
    for name, side in (("jaw_left", -1), ("jaw_right", 1)):
        path = jaw_path(side, centre_y)
        bodies.append({"name": name, "shape": {"type": "box", "half_extents": list(JAW_HALF)}, "kinematic": True,
                       "position": path[0], "material": "jaw"})
        scripts.append({"body": name, "path": path, "speed": 0.15, "timing": "ease", "loop": False,
                        "start_time": 0.2})
    return scene("volume_grasp",
                 "Volume contact constraints (Allard et al. 2010, Fig. 2b): two scripted jaws close on a perforated "
                 "block (procedural mesh, 16 cm, 1.65 kg) from both sides and lift it 0.44 m by friction alone. "
                 "With the jaws' friction at 1.0 (0.71 at the contact) the block rises with them and hangs there; "
                 "lower the \"jaw\" material's friction (Simulation panel, Materials, or \"materials\" in this "
                 "file) to 0.5 or less (contact friction 0.5) and it slips out and stays on the ground. The jaws "
                 "close 0.2 mm into the block: the squeeze of rigid jaws on a rigid body is not determined by "
                 "mechanics, here it is the pressure the velocity solve builds while they close (deeper jaws hold "
                 "with less friction). Pixels of 5 mm, cells of 5 cm.",
                 bodies, 0.01, {"pixel_size": 0.005, "multi_volume": True, "cell_size": 0.05},
                 materials={"default": {"friction": 0.5, "restitution": 0}, "jaw": {"friction": 1.0, "restitution": 0}},
                 scripts=scripts)


def volume_pile():
    # Twelve scanned meshes of libcgal-demo, about half a metre each (three armadillos, bunnies, cows and
    # elephants; the dragon is an open mesh and is refused), poured into a 1.2 m box: three layers of a 2 x 2
    # grid 0.6 m apart, layers 0.75 m apart, each body turned by a golden-angle yaw, tilted 25 degrees and
    # moved up to 5 cm off its grid point (see check_layers_apart).
    half, t, wall_h = 0.6, 0.05, 0.35
    bodies = [dict(g.GROUND)]
    for name, pos, he in [("wall_left", [-half - t, wall_h, 0], [t, wall_h, half + 2 * t]),
                          ("wall_right", [half + t, wall_h, 0], [t, wall_h, half + 2 * t]),
                          ("wall_back", [0, wall_h, -half - t], [half, wall_h, t]),
                          ("wall_front", [0, wall_h, half + t], [half, wall_h, t])]:
        bodies.append({"name": name, "shape": {"type": "box", "half_extents": he}, "fixed": True, "position": pos})
    k = 0
    placed = []
    for layer in range(3):
        for i in range(2):
            for j in range(2):
                name, file, scale, radius = PILE_MESHES[(k + layer) % 4]
                a = GOLDEN * k
                q = qmul(g.quat_axis_angle([0, 1, 0], math.degrees(a) % 360),
                         g.quat_axis_angle([math.cos(3 * a), 0, math.sin(3 * a)], 25))
                p = [(i - 0.5) * 0.6 + 0.05 * math.cos(5 * a), 0.42 + layer * 0.75, (j - 0.5) * 0.6 + 0.05 * math.sin(5 * a)]
                bodies.append(mesh_body(f"{name}_{k}", {"type": "mesh", "file": file, "scale": scale}, p, q))
                placed.append((layer, p, radius))
                k += 1
    check_layers_apart(placed)
    return scene("volume_pile",
                 "Volume contact constraints (Allard et al. 2010): twelve scanned meshes of libcgal-demo at about half "
                 "a metre (armadillos, bunnies, cows, elephants; 6,000 to 75,000 triangles each) poured in three "
                 "layers into a 1.2 m box: a heap of detailed non-convex contacts, each pair a few volume "
                 "constraints (1 cm pixels, 10 cm cells). It comes to rest in under 2 s.",
                 bodies, 0.01, {"pixel_size": 0.01, "multi_volume": True, "cell_size": 0.1})


SCENES = {
    "volume_armadillos.json": volume_armadillos,
    "volume_tori.json": volume_tori,
    "volume_grasp.json": volume_grasp,
    "volume_pile.json": volume_pile,
}


# --- measuring (--measure) ---------------------------------------------------------------------------------

def load_off(path, scale):
    """Vertices of an OFF mesh, scaled and moved so the centre of mass (of the enclosed solid) is at 0."""
    with open(path, encoding="utf-8") as f:
        words = [w for line in f for w in line.split("#")[0].split()]
    assert words[0] == "OFF", path
    nv, nf = int(words[1]), int(words[2])
    v = [[float(x) * scale for x in words[4 + 3 * i:7 + 3 * i]] for i in range(nv)]
    k = 4 + 3 * nv
    volume, c = 0.0, [0.0, 0.0, 0.0]
    for _ in range(nf):
        n = int(words[k])
        f = [int(x) for x in words[k + 1:k + 1 + n]]
        k += 1 + n
        for i in range(1, n - 1):
            a, b, d = v[f[0]], v[f[i]], v[f[i + 1]]
            t = (a[0] * (b[1] * d[2] - b[2] * d[1]) - a[1] * (b[0] * d[2] - b[2] * d[0]) +
                 a[2] * (b[0] * d[1] - b[1] * d[0])) / 6.0
            volume += t
            for j in range(3):
                c[j] += t * (a[j] + b[j] + d[j]) / 4.0
    c = [x / volume for x in c]
    return [[p[j] - c[j] for j in range(3)] for p in v]


def measure(assets):
    arm = load_off(os.path.join(assets, "armadillo.off"), 0.01)
    for label, q in (("ARMADILLO_BACK_Y", ARMADILLO_BACK), ("ARMADILLO_ACROSS_Y", ARMADILLO_ACROSS)):
        ys = [qrot(q, p)[1] for p in arm]
        print(f"{label} = ({min(ys):.12g}, {max(ys):.12g})")
    print("PILE_MESHES = [")
    for name, file, scale, _ in PILE_MESHES:
        pts = load_off(os.path.join(assets, file), scale)
        print(f"    ({name!r}, {file!r}, {scale}, {max(math.sqrt(sum(x * x for x in p)) for p in pts):.6f}),")
    print("]")


def main():
    args = sys.argv[1:]
    if args and args[0] == "--measure":
        if len(args) != 2:
            sys.exit(__doc__)
        measure(args[1])
        return
    if any(a.startswith("--") for a in args) or len(args) > 1:
        sys.exit(__doc__)
    out_dir = args[0] if args else os.path.dirname(os.path.abspath(__file__))
    g.write_scenes(out_dir, SCENES, "Volume contact paper")


if __name__ == "__main__":
    main()
