#!/usr/bin/env python3
"""Writes the scenes of the implicit penalty method (Xu, Zhao, Barbic 2014) from their geometry.

Usage: python3 scenes/generate_implicit.py [output-dir] [--solver NAME] [--no-keys]
  output-dir   default: the directory of this script
  --solver     write NAME (with default parameters) instead of "implicit-penalty" (to try the geometry and
               the joints under another solver)
  --no-keys    leave "keys" and "rate" out of the servos (for a loader that does not know them yet)

Scenes: bowls20, bowl_drop, bolt_screwdriver, perforated_chains, excavator. Like scenes/generate.py (whose
helpers this reuses), the script exists so that resting contacts, hinges and closed loops are laid out
exactly; re-running it rewrites the files byte for byte: edit the numbers here, not in the JSON.
Python standard library only.

The procedural shapes are built by the engine (engine/mesh/procedural.h) and recentred on their centre of
mass, which a scene's "position" gives. The few mesh numbers the layouts need (centres of mass in the
generator's frame, lowest points) are listed below; they were measured from the engine's own generators
with mass_properties (engine/mesh/mass_properties.h) and must be re-measured if a generator changes.
"""

import math
import os
import random
import sys

sys.dont_write_bytecode = True  # no scenes/__pycache__ from importing generate.py
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as g  # noqa: E402  (num, clean, quat_axis_angle, box, capsule, dump)

GROUND = dict(g.GROUND)

# --- measured mesh data (see the docstring) --------------------------------------------------------------
# bowl(outer_radius 0.3, thickness 0.03, 48 segments): rim at y = 0, bottom at y = -0.3, centre of mass at
BOWL_COM_Y = -0.142558481227
# hex_bolt and threaded_block with the parameters of scenes/bolt_in_hole.json (generator frames)
BOLT_COM = (3.42817676319e-09, -0.0484691291159, -5.21140907594e-08)
BLOCK_COM = (1.01225325963e-05, -0.0999999971837, 5.85998544721e-06)
# screwdriver(handle_radius 0.05, handle_length 0.3, shaft_radius 0.02, shaft_length 0.3, tip_width 0.06,
# 32 segments): tip edge at y = 0, top of the dome at y = 0.622
SCREWDRIVER_COM_Y = 0.419043268759
SCREWDRIVER_HEIGHT = 0.622
# rock(radius, roughness 0.25, seed, subdivisions 3) resting on a plane: the orientation that puts a face of
# its convex hull down with the centre of mass above it (a local minimum of the centre's height over tilts,
# reached from the generator's frame; the rock then stands on three vertices) and the height of the centre
# of mass above the plane in it. Standing on their lowest vertex in the generator's frame, the rocks tipped
# over and rolled about for seconds.
ROCKS = [  # (radius, seed, centre of mass above the plane, orientation [w, x, y, z])
    (0.13, 1, 0.108755590, [0.88785798, -0.366483675, 0.035209406, -0.275967789]),
    (0.145, 2, 0.137529904, [0.961524593, 0.026760113, -0.00847273, 0.273281112]),
    (0.16, 3, 0.139438170, [0.896049681, 0.033183827, 0.117707931, 0.426777045]),
    (0.175, 4, 0.171655981, [0.933249615, 0.228112728, -0.063722086, 0.270091162]),
    (0.13, 5, 0.130675247, [0.983361579, 0.173110224, 0.002100002, 0.055031312]),
    (0.145, 6, 0.137268885, [0.7736153, 0.617393965, -0.10921406, 0.091740661]),
    (0.16, 7, 0.150708276, [0.945838497, 0.033752252, 0.015674688, -0.322497484]),
    (0.175, 8, 0.168360403, [0.896714246, -0.383371782, -0.079104721, 0.206572216]),
    (0.13, 9, 0.112140608, [0.68157404, -0.038008302, 0.306742784, 0.663265453]),
]


# --- small vector and quaternion helpers -----------------------------------------------------------------

def add(a, b):
    return [a[i] + b[i] for i in range(3)]


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def scale(a, s):
    return [x * s for x in a]


def dot(a, b):
    return sum(a[i] * b[i] for i in range(3))


def norm(a):
    return math.sqrt(dot(a, a))


def unit(a):
    return scale(a, 1.0 / norm(a))


qmul, qrot = g.qmul, g.qrot


def quat_z(radians):
    return [math.cos(radians / 2), 0.0, 0.0, math.sin(radians / 2)]


def quat_y_to(d):
    """The shortest rotation taking +y to the unit direction d (capsules lie along their y axis)."""
    d = unit(d)
    c = d[1]  # cos of the angle between y and d
    axis = [d[2], 0.0, -d[0]]  # y x d
    s = norm(axis)
    if s < 1e-12:
        return [1.0, 0.0, 0.0, 0.0] if c > 0 else [0.0, 1.0, 0.0, 0.0]
    angle = math.atan2(s, c)
    return g.quat_axis_angle(axis, math.degrees(angle))


def rot2(v, radians):
    """Rotates the x-y part of v about z."""
    c, s = math.cos(radians), math.sin(radians)
    return [c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]]


def boxes_overlap(pa, qa, pb, qb, half, margin):
    """Whether two boxes of the same half extents (centres p, orientations q), grown by margin, overlap:
    the separating axis test over the 15 axes."""
    ax = [qrot(qa, e) for e in ([1, 0, 0], [0, 1, 0], [0, 0, 1])]
    bx = [qrot(qb, e) for e in ([1, 0, 0], [0, 1, 0], [0, 0, 1])]
    t = sub(pb, pa)
    axes = ax + bx
    for u in ax:
        for v in bx:
            c = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
            if norm(c) > 1e-9:
                axes.append(unit(c))
    for L in axes:
        ra = sum((half[k] + margin) * abs(dot(ax[k], L)) for k in range(3))
        rb = sum((half[k] + margin) * abs(dot(bx[k], L)) for k in range(3))
        if abs(dot(t, L)) > ra + rb:
            return False
    return True


# --- scene assembly ----------------------------------------------------------------------------------------

OPTIONS = {"solver": "implicit-penalty", "keys": True}


def joint(type_, bodies, anchor, axis=None, name=None, coordinate=None, limits=None, servo=None):
    """generate.joint, without the servos' keyboard bindings under --no-keys."""
    if servo is not None and not OPTIONS["keys"]:
        servo = {k: v for k, v in servo.items() if k not in ("keys", "rate")}
    return g.joint(type_, bodies, anchor, axis=axis, name=name, coordinate=coordinate, limits=limits, servo=servo)


def scene(name, description, bodies, dt, params, joints=None, materials=None, contact_margin=None):
    s = {"format": 1, "name": name, "description": description, "gravity": [0, -9.81, 0], "dt": dt}
    if contact_margin is not None:
        s["contact_margin"] = contact_margin
    if OPTIONS["solver"] == "implicit-penalty":
        # The paper's scenes use the paper's per-point gains (the solver's default is the physical model).
        s["solver"] = {"type": "implicit-penalty", "params": {"contact_model": "per_point", **params}}
    else:
        s["solver"] = {"type": OPTIONS["solver"]}
    return g.finish(s, bodies, materials, joints)


mesh_body = g.mesh_body


def round_pos(v, digits=9):
    return [round(x, digits) + 0.0 for x in v]


# --- bowls ---------------------------------------------------------------------------------------------------

BOWL = {"type": "bowl", "outer_radius": 0.3, "thickness": 0.03, "segments": 48}
BOWL_BOTTOM = 0.3 + BOWL_COM_Y  # centre of mass above the bowl's lowest point (0.157 m)
GOLDEN = math.pi * (3.0 - math.sqrt(5.0))  # golden angle: offsets that never line up


def bowl_column(prefix, x, z, count, bottom, pitch, offset, start=0, tilt_degrees=0.0):
    """`count` bowls one above the other, the lowest one's bottom at `bottom`, rims `pitch` apart, each
    shifted `offset` off the column's axis in a golden-angle spiral (so the stack is never exactly centred)
    and tilted by up to `tilt_degrees`. The shells only touch once they have fallen: for pitch >= 0.25 and
    offsets under 4 cm a bowl's solid lies in the cavity of the one below or above its rim."""
    out = []
    for i in range(count):
        a = GOLDEN * (i + start)
        p = [x + offset * math.cos(a), bottom + BOWL_BOTTOM + i * pitch, z + offset * math.sin(a)]
        extra = {}
        if tilt_degrees:
            extra["orientation"] = g.quat_axis_angle([math.sin(a), 0.0, -math.cos(a)], tilt_degrees)
        out.append(mesh_body(f"{prefix}{i}", BOWL, round_pos(p), density=1000, **extra))
    return out


BOWL_PARAMS = {"stiffness": 50000, "damping": 200, "gradients": "exact", "integrator": "implicit",
               "stiffness_threshold": 0, "friction_stiffness": 1000, "dynamic_friction": 1,
               "slip_speed": 0.01, "point_spacing": 0.04, "joint_projection": 2, "baumgarte": 1}


def bowls20():
    # The paper's Fig. 11: 20 bowls dropped from the same configuration under the explicit and the semi-
    # implicit integrator. Rims 0.2 m apart (the 0.3 m bowls start clear of each other, the lowest 5 cm
    # above the ground; nested, a bowl sits 0.131 m above the one below, on its inner rim), each 1.5 cm off
    # the column axis in a golden-angle spiral. The nested column stands on the round bottom of the lowest
    # bowl with its centre of mass far above that bottom's centre of curvature, so it buckles and topples.
    bodies = [GROUND] + bowl_column("bowl_", 0.0, 0.0, 20, 0.05, 0.2, 0.015)
    return scene("bowls20", "Twenty bowls (procedural: outer radius 0.3 m, wall 3 cm, 15 kg) dropped one above "
                 "the other, each 1.5 cm off the column axis: they land in turn and nest into a column that, "
                 "standing on the round bottom of the lowest bowl, buckles and topples into a heap (the "
                 "implicit penalty paper's explicit vs implicit comparison, Fig. 11). Switch the "
                 "solver's \"integrator\" to explicit to see how much smaller its stable time step is, and "
                 "\"gradients\" to approximate to compare the contact gradients (Fig. 12). No keys.",
                 bodies, 0.004, dict(BOWL_PARAMS), materials={"default": {"friction": 0.5, "restitution": 0}})


def bowl_drop():
    # The paper's 512-bowl drop (Figs. 4, 9), at an interactive size: 8 columns of 8 bowls on a 4 x 2 grid
    # 0.7 m apart, rims 0.3 m apart, each bowl 3 cm off its column axis and tilted 3 degrees, columns
    # starting at different heights so that they do not land at once. Neighbouring columns start 0.1 m
    # clear of each other (rims 0.6 m wide), so the stacks lean and spill into a heap.
    bodies = [GROUND]
    n = 0
    for cx in range(4):
        for cz in range(2):
            x, z = (cx - 1.5) * 0.7, (cz - 0.5) * 0.7
            col = bowl_column(f"bowl_{n}_", x, z, 8, 0.05 + 0.15 * ((cx + 2 * cz) % 3), 0.3, 0.03,
                              start=7 * n, tilt_degrees=3.0)
            bodies += col
            n += 1
    return scene("bowl_drop", "64 bowls (procedural: outer radius 0.3 m, wall 3 cm) dropped in eight columns of "
                 "eight, each bowl 3 cm off its column axis and tilted 3 degrees: the columns nest, lean on each "
                 "other and spill into a heap of conforming contacts (the implicit penalty paper's 512-bowl "
                 "drop, Figs. 4 and 9, at a size that runs interactively). No keys.",
                 bodies, 0.004, dict(BOWL_PARAMS), materials={"default": {"friction": 0.5, "restitution": 0}})


# --- hex bolt and screwdriver ----------------------------------------------------------------------------

BOLT = {"type": "hex_bolt", "head_width": 0.2, "head_height": 0.07, "shaft_radius": 0.05, "length": 0.3,
        "thread_pitch": 0.03, "thread_depth": 0.008, "segments": 48, "resolution": 96}
BLOCK = {"type": "threaded_block", "half_width": 0.15, "height": 0.2, "shaft_radius": 0.05, "thread_pitch": 0.03,
         "thread_depth": 0.008, "clearance": 0.002, "segments": 48, "resolution": 96}
SCREWDRIVER = {"type": "screwdriver", "handle_radius": 0.05, "handle_length": 0.3, "shaft_radius": 0.02,
               "shaft_length": 0.3, "tip_width": 0.06, "segments": 32}


# The screwdriver's PD torque (N m/rad, N m s/rad, N m): a 1 rad lag saturates it.
SCREW_SERVO = {"stiffness": 100.0, "damping": 10.0, "max_force": 40.0}


def bolt_screwdriver():
    # The block and the bolt share one generator frame (origin on the axis at the block's top face, as in
    # scenes/bolt_in_hole.json), so their threads mesh. The bolt starts 8 pitches up (its last 6 cm in the
    # top of the hole), lowered by the thread's axial play so that its flanks rest on the hole's: radial
    # clearance c on flanks of slope 2 depth / pitch gives a play of c pitch / (2 depth) = 3.75 mm; 0.2 mm
    # of it is left as a gap. The right-handed thread advances +pitch per turn about +y: turning about -y
    # (clockwise seen from above) drives the bolt in.
    #
    # The hex_bolt generator has no slot in the head, so the screwdriver's blade cannot drive it. It drives
    # a hex socket instead: a cap resting on the head and six walls 3 mm clear of the six flats, fixed to
    # the cap, which is fixed to the screwdriver's tip. The walls are 2 mm short of meeting at the corners
    # (they are not joined to each other, so they must not touch) and end 2 cm above the head's underside
    # (so they stay clear of the block when the bolt is fully in).
    #
    # The handle keeps its axis (the paper removes its x and z rotations): a light carriage above it on a
    # vertical slider to the ground, the screwdriver on a vertical hinge under the carriage. The hinge's
    # servo is the paper's PD-controlled torque (sect. 6, Figs. 7-8): a PD torque toward a target angle that
    # the keys move at a steady rate (so the screwdriver turns at about that rate), bounded by max_force. The
    # angle counts turns: the range [-8 turns, +1 turn] takes the bolt from its start to the bottom of the
    # hole and back. With the torque bound below the thread's friction torque the bolt is stuck.
    pitch, depth, clearance = 0.03, 0.008, 0.002
    play = clearance * pitch / (2 * depth)
    origin_y = 0.5  # the block's top face
    lift = 8 * pitch - play + 0.0002
    bolt_y = origin_y + lift
    head_top = bolt_y + BOLT["head_height"]
    block_pos = [BLOCK_COM[0], origin_y + BLOCK_COM[1], BLOCK_COM[2]]
    bolt_pos = [BOLT_COM[0], bolt_y + BOLT_COM[1], BOLT_COM[2]]
    bodies = [GROUND,
              mesh_body("block", BLOCK, round_pos(block_pos), fixed=True),
              mesh_body("bolt", BOLT, round_pos(bolt_pos), density=7800)]
    joints = []

    cap_half = [0.135, 0.012, 0.135]
    cap_y = head_top + cap_half[1]
    bodies.append(g.box("socket_cap", cap_half, [0.0, cap_y, 0.0], density=2700))
    flat = BOLT["head_width"] / 2
    gap, thick, height = 0.003, 0.012, 0.05
    d = flat + gap
    half_width = d * math.tan(math.radians(30)) - 0.002
    wall_y = head_top - height / 2
    for k in range(6):
        a = math.radians(30 + 60 * k)  # flat normals (sin a, 0, cos a): the head's corners are at k 60 deg
        nrm = [math.sin(a), 0.0, math.cos(a)]
        centre = [nrm[0] * (d + thick / 2), wall_y, nrm[2] * (d + thick / 2)]
        # Box x along the normal, z along the flat: a rotation about y by (a - 90 deg) takes x to nrm.
        q = g.quat_axis_angle([0, 1, 0], math.degrees(a) - 90.0)
        bodies.append(g.box(f"socket_wall_{k}", [thick / 2, height / 2, half_width], round_pos(centre),
                            density=7800, orientation=round_pos(q, 12)))
        joints.append(joint("fixed", ["socket_cap", f"socket_wall_{k}"], round_pos([centre[0], head_top, centre[2]]),
                            name=f"socket_wall_{k}"))

    tip_y = cap_y + cap_half[1]
    bodies.append(mesh_body("screwdriver", SCREWDRIVER, round_pos([0.0, tip_y + SCREWDRIVER_COM_Y, 0.0]),
                            density=1200))
    joints.append(joint("fixed", ["screwdriver", "socket_cap"], round_pos([0.0, tip_y, 0.0]), name="bit"))
    top = tip_y + SCREWDRIVER_HEIGHT
    carriage_half = [0.06, 0.02, 0.06]
    carriage_y = top + 0.01 + carriage_half[1]
    bodies.append(g.box("carriage", carriage_half, round_pos([0.0, carriage_y, 0.0]), mass=0.5))
    # The hand's push: a soft PD servo pulls the carriage towards 0.25 m below its start (about 150 N on the
    # head; it changes by 18 N over the 3 cm the bolt travels), so the socket follows the bolt down
    # instead of hanging on the friction of its walls.
    joints.append(joint("slider", ["ground", "carriage"], round_pos([0.0, carriage_y, 0.0]), axis=[0, 1, 0],
                        name="carriage_slider",
                        servo={"target": -0.25, "stiffness": 600, "damping": 200, "range": [-0.25, 0.3],
                               "keys": ["y", "h"], "rate": 0.1}))
    joints.append(joint("hinge", ["carriage", "screwdriver"], round_pos([0.0, top, 0.0]), axis=[0, 1, 0],
                        name="screwdriver_hinge",
                        servo={"target": 0.0, "stiffness": SCREW_SERVO["stiffness"], "damping": SCREW_SERVO["damping"],
                               "max_force": SCREW_SERVO["max_force"],
                               "range": [round(-8 * 2 * math.pi, 6), round(2 * math.pi, 6)],
                               "keys": ["u", "j"], "rate": 1.0}))
    # Contact damping acts on the whole relative velocity (eq. 41), so on a turning thread it is a viscous
    # drag of about damping x contacts x r^2: 200 N s/m held the bolt to a creep; 20 lets it turn freely.
    params = {"stiffness": 200000, "damping": 20, "gradients": "exact", "integrator": "implicit",
              "stiffness_threshold": 0, "friction_stiffness": 2000, "dynamic_friction": 1, "slip_speed": 0.01,
              "point_spacing": 0.02, "joint_projection": 0, "baumgarte": 1}
    return scene("bolt_screwdriver", "A hex bolt (procedural, 10x the paper's size: 0.1 m thread, 3 cm pitch) "
                 "started 8 turns up in the matching threaded hole of a fixed block, and a screwdriver that "
                 "turns it (the paper's Figs. 1, 7, 8). The bolt head has no slot, so the screwdriver's bit "
                 "is a hex socket: a cap on the head and six walls around its flats, fixed to the tip. The "
                 "handle keeps its axis: it hangs on a vertical hinge from a light carriage on a vertical "
                 "slider, whose soft servo presses it onto the bolt with about 150 N. Keys: J turns the "
                 "screwdriver clockwise (drives the bolt in), U anticlockwise (backs it out): they move the "
                 "target of the hinge's PD torque at 1 rad/s, within 8 turns in and 1 out (the bolt travels 3 cm "
                 "per turn). The torque is bounded by the servo's max_force (40 N m, Servos panel): lower it, or "
                 "raise the bolt's friction (Inspector), and the bolt sticks while the target runs on; raise it "
                 "again and the bolt turns (the paper's Fig. 8). Y lifts the screwdriver off the bolt, H presses "
                 "it back on.",
                 bodies, 0.005, params, joints=joints, materials={"default": {"friction": 0.3, "restitution": 0}})


# --- chains of perforated boxes ------------------------------------------------------------------------------

PLATE = {"type": "perforated_box", "half_extents": [0.12, 0.025, 0.08], "hole_radius": 0.025, "holes_x": 3,
         "holes_z": 2, "hole_segments": 24, "resolution": 48}
PLATE_GAP = 0.06  # between the ends of neighbouring plates
FOLD_LIMITS = [-0.9, 3.0]  # rad; hinges on the top faces' edges: up to 172 deg up (stacked), 52 deg down


def chain_local(links, folds):
    """Plates along +x in the x-y plane, each hinged to the next about z at the middle of the gap between
    their ends, on the plates' top faces (so that folding up never makes them overlap, and folding down
    only does past 60 degrees). Returns [(centre, angle)] of the plates and [(anchor, fold)] of the
    hinges, the first plate centred at the origin."""
    hx, hy = PLATE["half_extents"][0], PLATE["half_extents"][1]
    plates = [([0.0, 0.0, 0.0], 0.0)]
    hinges = []
    for k in range(1, links):
        c, ang = plates[-1]
        anchor = add(c, rot2([hx + PLATE_GAP / 2, hy, 0.0], ang))
        ang2 = ang + folds[k - 1]
        plates.append((add(anchor, rot2([PLATE_GAP / 2 + hx, -hy, 0.0], ang2)), ang2))
        hinges.append((anchor, folds[k - 1]))
    return plates, hinges


def perforated_chains():
    # The paper's Fig. 6 (32 two-link and 32 three-link chains of perforated boxes) at 8 + 8: 40 plates of
    # 24 x 5 x 16 cm with 3 x 2 holes, 24 hinges. Eight levels 0.3 m apart of two parallel chains 0.6 m
    # apart, each level turned 67.5 degrees more about y, so that they fall across each other into one
    # heap. Chains start slightly folded and tilted (seeded, so the file is reproducible); non-neighbouring
    # plates of a chain collide with each other like any two bodies. Steel plates: lighter ones (aluminium)
    # made the solver diverge at a 4 ms step when plates land flat on each other; steel holds at 4 ms, so
    # the 3 ms step leaves a margin.
    rng = random.Random(6)
    bodies = [GROUND]
    joints = []
    n = 0
    for level in range(8):
        yaw_level = math.radians(67.5 * level)
        for side in range(2):
            links = 2 if (level + side) % 2 == 0 else 3
            folds = [rng.uniform(-0.25, 0.4) for _ in range(links - 1)]
            plates, hinges = chain_local(links, folds)
            # Centre the chain on its middle plate's centre.
            mid = plates[(links - 1) // 2][0] if links == 3 else scale(add(plates[0][0], plates[1][0]), 0.5)
            yaw = yaw_level + math.radians(rng.uniform(-10, 10))
            tilt = math.radians(rng.uniform(-6, 6))
            q_chain = qmul(g.quat_axis_angle([0, 1, 0], math.degrees(yaw)), g.quat_axis_angle([1, 0, 0], math.degrees(tilt)))
            across = qrot(g.quat_axis_angle([0, 1, 0], math.degrees(yaw_level)), [0.0, 0.0, 1.0])
            centre = add([rng.uniform(-0.05, 0.05), 0.3 + level * 0.3, rng.uniform(-0.05, 0.05)],
                         scale(across, 0.3 * (side - 0.5) * 2))
            names = [f"chain_{n}_{k}" for k in range(links)]
            for k, (c, ang) in enumerate(plates):
                p = add(centre, qrot(q_chain, sub(c, mid)))
                q = qmul(q_chain, quat_z(ang))
                bodies.append(mesh_body(names[k], PLATE, round_pos(p), round_pos(q, 12), density=7800))
            for k, (a, fold) in enumerate(hinges):
                anchor = add(centre, qrot(q_chain, sub(a, mid)))
                axis = qrot(q_chain, [0.0, 0.0, 1.0])
                joints.append(joint("hinge", [names[k], names[k + 1]], round_pos(anchor), axis=round_pos(axis, 12),
                                    name=f"chain_{n}_hinge_{k}", coordinate=round(fold, 9), limits=FOLD_LIMITS))
            n += 1
    # No plate may start below the ground or touching a plate of another chain (their bounding boxes,
    # separating axis test with a 1 cm margin).
    plates = [(b["name"].rsplit("_", 1)[0], b["position"], b["orientation"]) for b in bodies[1:]]
    r_plate = math.sqrt(sum(h * h for h in PLATE["half_extents"]))
    for i, (ci, pi, qi) in enumerate(plates):
        assert pi[1] > r_plate, ci
        for cj, pj, qj in plates[:i]:
            if ci != cj:
                assert not boxes_overlap(pi, qi, pj, qj, PLATE["half_extents"], 0.01), (ci, cj)
    params = {"stiffness": 20000, "damping": 100, "gradients": "exact", "integrator": "implicit",
              "stiffness_threshold": 0, "friction_stiffness": 200, "dynamic_friction": 1, "slip_speed": 0.01,
              "point_spacing": 0.04, "joint_projection": 2, "baumgarte": 1}
    return scene("perforated_chains", "Eight two-link and eight three-link chains of perforated boxes "
                 "(procedural steel plates of 24 x 5 x 16 cm with 3 x 2 round holes; 40 plates, 24 hinges) "
                 "fall in eight crossing levels onto the ground and onto each other: a heap with contact between chains and "
                 "between the non-neighbouring plates of a chain (the implicit penalty paper's Fig. 6, 32 + 32 "
                 "chains there). The hinges sit on the top edges of the plates' ends and are limited to "
                 "[-0.9, 3.0] rad so that joined plates, which do not collide, cannot fold into each other. "
                 "No keys.", bodies, 0.003, params, joints=joints,
                 materials={"default": {"friction": 0.5, "restitution": 0}})


# --- excavator ------------------------------------------------------------------------------------------

def cylinder_length(pivot, a, b, psi):
    """Length |A - B(psi)| of a cylinder from A (fixed in X) to B (fixed in Y) when Y turns by psi about the
    z axis through `pivot` relative to X (2-D, in the x-y plane)."""
    bp = add(pivot, rot2(sub(b, pivot), psi))
    return math.hypot(bp[0] - a[0], bp[1] - a[1])


def hydraulic(name, x_body, y_body, pivot, a, b, z, psi_range, bodies, joints, keys, rate, stiffness, damping,
              barrel_radius=0.07, rod_radius=0.035, extend_key_first=True):
    """A hydraulic cylinder between body X (barrel end A) and body Y (rod end B), offset to the plane z:
    a barrel hinged to X at A and a piston rod hinged to Y at B, on a slider whose servo sets the extension
    (target 0 at the file's pose). psi_range is the range of the X-Y joint angle (rad, relative to the file's
    pose) the cylinder must reach; the servo range is the extension that gives it. The barrel and the rod are
    sized so that the rod stays inside the barrel over the whole range. Closes a loop X-barrel-rod-Y-X."""
    a3, b3 = [a[0], a[1], z], [b[0], b[1], z]
    length0 = cylinder_length(pivot, a, b, 0.0)
    lengths = [cylinder_length(pivot, a, b, psi_range[0] + (psi_range[1] - psi_range[0]) * i / 20) for i in range(21)]
    steps = [lengths[i + 1] - lengths[i] for i in range(20)]
    assert all(s > 0 for s in steps) or all(s < 0 for s in steps), (name, "the lever passes a dead point")
    # dl/dpsi is the cylinder's moment arm about the pivot: keep it at 8 cm or more over the range.
    arm = min(abs(s) for s in steps) / ((psi_range[1] - psi_range[0]) / 20)
    assert arm > 0.08, (name, "moment arm too short", arm)
    lo, hi = min(lengths) - length0, max(lengths) - length0
    shortest, longest = length0 + lo, length0 + hi
    d = unit(sub(b3, a3))
    # Barrel from A along d, rod from B back along -d: the rod must reach 0.1 m into the barrel at the longest
    # and its inner end must stay 0.05 m short of A at the shortest.
    rod_len = shortest - 0.05
    barrel_len = max(longest - rod_len + 0.1, 0.3)
    barrel_len = min(barrel_len, shortest - 0.02)  # the barrel ends before the rod's eye at B
    assert longest - rod_len <= barrel_len - 0.05, (name, "stroke too long for the cylinder", shortest, longest)
    q = quat_y_to(d)
    barrel_c = add(a3, scale(d, barrel_len / 2))
    rod_c = sub(b3, scale(d, rod_len / 2))
    bodies.append(g.capsule(f"{name}_barrel", barrel_radius, barrel_len / 2 - barrel_radius,
                            round_pos(barrel_c), density=800, orientation=round_pos(q, 12)))
    bodies.append(g.capsule(f"{name}_rod", rod_radius, rod_len / 2 - rod_radius, round_pos(rod_c), density=800,
                            orientation=round_pos(q, 12)))
    joints.append(joint("hinge", [x_body, f"{name}_barrel"], round_pos(a3), axis=[0, 0, 1], name=f"{name}_barrel_pin"))
    joints.append(joint("hinge", [y_body, f"{name}_rod"], round_pos(b3), axis=[0, 0, 1], name=f"{name}_rod_pin"))
    servo = {"target": 0, "stiffness": stiffness, "damping": damping, "range": [round(lo, 4), round(hi, 4)],
             "keys": keys, "rate": rate}
    if os.environ.get("GENERATE_VERBOSE"):
        print(f"{name}: length {length0:.3f} m, servo range [{lo:.3f}, {hi:.3f}] m, barrel {barrel_len:.3f} m, "
              f"rod {rod_len:.3f} m, moment arm >= {arm:.3f} m", file=sys.stderr)
    joints.append(joint("slider", [f"{name}_barrel", f"{name}_rod"], round_pos(scale(add(a3, b3), 0.5)),
                        axis=round_pos(d, 12), name=f"{name}_cylinder", servo=servo))
    return lo, hi


def excavator():
    # Side view in the x-y plane (the machine faces +x); boom, arm and bucket in the plane z = 0, the three
    # hydraulic cylinders beside them (z = +0.3, -0.26, +0.26) so that they can never touch a part they are
    # not pinned to. Angles are measured from +x, counter-clockwise.
    bodies = [GROUND]
    joints = []
    base_half = [1.1, 0.25, 0.8]
    bodies.append(g.box("base", base_half, [0.0, base_half[1], 0.0], fixed=True))
    cab_half = [0.75, 0.4, 0.6]
    cab_bottom = 2 * base_half[1] + 0.02
    cab_c = [-0.1, cab_bottom + cab_half[1], 0.0]
    bodies.append(g.box("cabin", cab_half, cab_c, density=300))
    joints.append(joint("hinge", ["base", "cabin"], [0.0, cab_bottom - 0.01, 0.0], axis=[0, 1, 0], name="swing",
                        servo={"target": 0, "range": [-2.6, 2.6], "keys": ["a", "d"], "rate": 0.6}))

    # Boom: from its foot P0 in front of the cabin, 2.2 m at 40 degrees.
    boom_len, boom_ang = 2.2, math.radians(40)
    p0 = [cab_c[0] + cab_half[0] + 0.15, 1.05, 0.0]
    db = [math.cos(boom_ang), math.sin(boom_ang), 0.0]
    nb = [-db[1], db[0], 0.0]  # the boom's upper side
    p1 = add(p0, scale(db, boom_len))
    bodies.append(g.box("boom", [boom_len / 2, 0.12, 0.12], round_pos(scale(add(p0, p1), 0.5)), density=600,
                        orientation=round_pos(quat_z(boom_ang), 12)))
    joints.append(joint("hinge", ["cabin", "boom"], round_pos(p0), axis=[0, 0, 1], name="boom_pin"))

    # Arm: from the boom's tip P1, 1.6 m down and forward at -70 degrees, with a 0.4 m lever behind P1.
    arm_len, arm_back, arm_ang = 1.6, 0.4, math.radians(-70)
    da = [math.cos(arm_ang), math.sin(arm_ang), 0.0]
    na = [-da[1], da[0], 0.0]  # the arm's front side (towards +x)
    p2 = add(p1, scale(da, arm_len))
    lever = sub(p1, scale(da, arm_back))
    bodies.append(g.box("arm", [(arm_len + arm_back) / 2, 0.09, 0.09], round_pos(scale(add(lever, p2), 0.5)),
                        density=600, orientation=round_pos(quat_z(arm_ang), 12)))
    joints.append(joint("hinge", ["boom", "arm"], round_pos(p1), axis=[0, 0, 1], name="arm_pin"))

    # Bucket: an open steel box (a scoop) of four plates joined by fixed joints: a back plate pinned at its
    # top edge to the arm's tip P2, a bottom plate ending in the lip at the front, and two side plates; open
    # at the top and at the front. It starts in the digging pose (bottom level, mouth forward): lowered onto
    # the ground and pushed forward it takes rocks onto its bottom; turning it counter-clockwise about z
    # curls them against the back plate (carrying), clockwise tips them out over the lip. The side plates
    # keep 2 mm clear of the back and bottom plates (they are joined to the back plate only, and plates
    # that are not joined collide).
    width, depth, height, t = 0.7, 0.55, 0.4, 0.03  # inside, and the plates' thickness
    gap = 0.002
    bx, by = p2[0], p2[1]
    bucket_plates = [
        ("bucket", [t / 2, (height + t) / 2, width / 2 + t], [bx - t / 2, by - (height + t) / 2, 0.0]),
        ("bucket_bottom", [(depth + t) / 2, t / 2, width / 2 + t], [bx - t + (depth + t) / 2, by - height - t / 2, 0.0]),
        ("bucket_side_l", [(depth - gap) / 2, (height - gap) / 2, t / 2],
         [bx + gap + (depth - gap) / 2, by - (height - gap) / 2, width / 2 + t / 2]),
        ("bucket_side_r", [(depth - gap) / 2, (height - gap) / 2, t / 2],
         [bx + gap + (depth - gap) / 2, by - (height - gap) / 2, -width / 2 - t / 2]),
    ]
    for name, half, centre in bucket_plates:
        bodies.append(g.box(name, half, round_pos(centre), density=2000))
    joints.append(joint("hinge", ["arm", "bucket"], round_pos(p2), axis=[0, 0, 1], name="bucket_pin"))
    for name, _, centre in bucket_plates[1:]:
        joints.append(joint("fixed", ["bucket", name], round_pos(centre), name=name))

    # Cylinders: (X, Y, pivot of X-Y, A on X, B on Y, plane z, range of the X-Y angle, keys [extend, retract]).
    # Each lever (B - pivot) is about perpendicular to its cylinder in the middle of its range. The boom and
    # arm cylinders (below and above the boom) share the side z = +0.3; the bucket's is on the other side,
    # outside the bucket.
    stiffness, damping = 500000, 50000
    boom_a = [cab_c[0] + cab_half[0] + 0.08, cab_bottom + 0.15, 0.0]
    boom_b = sub(add(p0, scale(db, 1.2)), scale(nb, 0.2))
    hydraulic("boom", "cabin", "boom", p0, boom_a, boom_b, 0.3, [math.radians(-40), math.radians(25)],
              bodies, joints, ["w", "s"], 0.25, stiffness, damping)
    arm_a = add(add(p0, scale(db, 1.0)), scale(nb, 0.25))
    arm_b = add(lever, scale(na, -0.05))
    hydraulic("arm", "boom", "arm", p1, arm_a, arm_b, 0.3, [math.radians(-40), math.radians(45)],
              bodies, joints, ["i", "k"], 0.25, stiffness, damping)
    # The bucket's rod is pinned to the side plate at z < 0 (in a plane 8 cm outside it), 0.3 m from P2 and
    # 17 degrees above the pin's level, so that the lever is square to the cylinder in the middle of the
    # range: 60 degrees tipped to 70 degrees curled.
    bucket_a = add(add(p1, scale(da, 0.35)), scale(na, 0.2))
    bucket_b = add(p2, rot2([0.3, 0.0, 0.0], math.radians(17)))
    hydraulic("bucket", "arm", "bucket_side_r", p2, bucket_a, bucket_b, -(width / 2 + t + 0.08),
              [math.radians(-60), math.radians(70)], bodies, joints, ["l", "o"], 0.25, stiffness, damping)

    # Nine rocks resting on the ground in front (on a face of their hull, see ROCKS).
    rng = random.Random(2)
    for i, (r, seed, height, q) in enumerate(ROCKS):
        row, col = divmod(i, 3)
        x = 3.9 + 0.45 * row + rng.uniform(-0.05, 0.05)
        z = (col - 1) * 0.45 + rng.uniform(-0.05, 0.05)
        bodies.append(mesh_body(f"rock_{i}", {"type": "rock", "radius": r, "roughness": 0.25, "seed": seed,
                                              "subdivisions": 3}, round_pos([x, height, z]), q, density=2500))
    params = {"stiffness": 50000, "damping": 100, "gradients": "exact", "integrator": "implicit",
              "stiffness_threshold": 50, "friction_stiffness": 500, "dynamic_friction": 1, "slip_speed": 0.01,
              "point_spacing": 0.04, "joint_projection": 0, "baumgarte": 1}
    desc = ("An excavator built from parts (the implicit penalty paper's Fig. 2): a fixed base, a cabin on a "
            "vertical hinge whose servo holds its swing angle (a rotation constraint), a boom pinned to the "
            "cabin, an arm pinned to the boom, a bucket pinned to the arm (an open steel box: back, bottom and "
            "two side plates on fixed joints), and three hydraulic cylinders (barrel and rod on a slider whose "
            "PD servo sets the extension, each end pinned), which close three loops: 13 moving parts, 10 "
            "hinges, 3 sliders, 3 fixed joints. Nine rocks lie in front within reach. Keys: A / D swing the "
            "cabin left / right; W / S raise / lower the boom; I / K pull the arm in / push it out; O curls "
            "the bucket up, L tips it forward. To dig: lower the boom until the bucket's lip is on the ground, "
            "push the arm out to take rocks onto its bottom, curl, raise, swing, tip. The servo ranges keep "
            "the parts clear of each other. Contact stiffness is scaled down for pairs with more than 50 "
            "penetrating points (the paper's N0), so a rock in the bucket is held stiffly while the bucket "
            "flat on the ground stays stable.")
    return scene("excavator", desc, bodies, 0.005, params, joints=joints,
                 materials={"default": {"friction": 0.6, "restitution": 0}})


SCENES = {
    "bowls20.json": bowls20,
    "bowl_drop.json": bowl_drop,
    "bolt_screwdriver.json": bolt_screwdriver,
    "perforated_chains.json": perforated_chains,
    "excavator.json": excavator,
}


def main():
    args = sys.argv[1:]
    out_dir = os.path.dirname(os.path.abspath(__file__))
    while args:
        a = args.pop(0)
        if a == "--solver":
            OPTIONS["solver"] = args.pop(0)
        elif a == "--no-keys":
            OPTIONS["keys"] = False
        elif a.startswith("--"):
            sys.exit(f"unknown option {a}\n" + __doc__)
        else:
            out_dir = a
    g.write_scenes(out_dir, SCENES, "Implicit penalty paper")


if __name__ == "__main__":
    main()
