#!/usr/bin/env python3
"""Writes the scenes of the cross-method conformance suite (scenes/conformance/*.json).

Usage: python3 scenes/generate_conformance.py [output-dir]     (default: scenes/conformance next to this script)

Each scene is one closed-form mechanics case of engine/conformance/cases.cpp, which names the file, what it
measures, the exact value and the tolerance; `contactlab --conformance` runs every case under every solver
at that solver's default parameters. The scenes therefore name no solver and no solver parameters (the
loader's default, `lcp`, is replaced by each solver in turn); open one in the viewer to watch a case
(`contactlab scenes/conformance/bounce.json --solver volume`).

Like scenes/generate.py (whose helpers this reuses), the script exists so that resting contacts and joint
anchors are laid out exactly; re-running it rewrites the files byte for byte: edit the numbers here, not in
the JSON. Python standard library only.
"""

import math
import os
import sys

sys.dont_write_bytecode = True  # no scenes/__pycache__ from importing generate.py
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate as g  # noqa: E402  (clean, quat_axis_angle, box, sphere, joint, dump, write_scenes, GROUND)

G = 9.81
INCLINE_DEGREES = 30.0
NO_GRAVITY = [0, 0, 0]


def scene(name, description, bodies, materials=None, joints=None, gravity=None):
    """A scene at h = 1/60 s without a solver (each solver runs it at its defaults)."""
    s = {"format": 1, "name": name, "description": description,
         "gravity": gravity if gravity is not None else [0, -G, 0], "dt": g.DT_60}
    return g.finish(s, bodies, materials, joints)


def material(friction, restitution=0):
    return {"friction": friction, "restitution": restitution}


# --- the incline: a plane through the origin tilted 30 degrees about z, rising towards +x --------------------

def incline_plane(material_name, degrees=INCLINE_DEGREES):
    a = math.radians(degrees)
    return {"name": "incline", "shape": {"type": "plane", "normal": [-math.sin(a), math.cos(a), 0.0], "offset": 0},
            "fixed": True, "material": material_name}


def on_incline(height, degrees=INCLINE_DEGREES):
    """The centre of a body whose lowest point touches the incline at the origin: `height` along the normal."""
    a = math.radians(degrees)
    return [-math.sin(a) * height, math.cos(a) * height, 0.0]


def incline_box(name, friction, what, degrees=INCLINE_DEGREES, plane=None):
    # A 1 m cube of 1000 kg turned by the incline's angle so that its bottom face lies on the plane, at rest.
    # Friction combines as the geometric mean, so both bodies carry the case's material.
    bodies = [incline_plane("surface", degrees),
              g.box("box", [0.5, 0.5, 0.5], on_incline(0.5, degrees),
                    orientation=g.quat_axis_angle([0, 0, 1], degrees), material="surface")]
    plane = plane or f"a {degrees:g} degree plane"
    return scene(name, f"A 1 m box of 1000 kg released at rest on {plane}, friction {friction}: {what}",
                 bodies, materials={"surface": material(friction)})


def incline_frictionless():
    return incline_box("incline_frictionless", 0,
                       "it slides at g sin 30 = 4.905 m/s^2, so its speed after 1 s is 4.905 m/s.")


def incline_friction():
    a = math.radians(INCLINE_DEGREES)
    v = (G * math.sin(a) - 0.3 * G * math.cos(a)) * 1.0
    return incline_box("incline_friction", 0.3,
                       f"it slides at g (sin 30 - 0.3 cos 30), so its speed after 1 s is {v:.3f} m/s.")


def incline_stick():
    return incline_box("incline_stick", 0.7, "above tan 30 = 0.577, static friction holds it: it does not move.")


# The edge of sticking: a plane with tan theta = 0.5, friction just under and just over it.
EDGE_DEGREES = math.degrees(math.atan(0.5))
EDGE_PLANE = "a plane with tan theta = 0.5 (26.57 degrees)"


def incline_edge_slide():
    a = math.radians(EDGE_DEGREES)
    acceleration = G * (math.sin(a) - 0.49 * math.cos(a))
    return incline_box("incline_edge_slide", 0.49,
                       f"just under tan theta, it slides, slowly: a = g (sin - 0.49 cos) = {acceleration:.4f} m/s^2, "
                       f"{2 * acceleration:.4f} m/s after 2 s.", EDGE_DEGREES, EDGE_PLANE)


def incline_edge_hold():
    return incline_box("incline_edge_hold", 0.51, "just over tan theta, static friction holds it: it does not move.",
                       EDGE_DEGREES, EDGE_PLANE)


# A slow, steady acceleration: a frictionless plane tilted 0.1 degrees.
SLOW_DEGREES = 0.1


def slow_slide():
    a = G * math.sin(math.radians(SLOW_DEGREES))
    return incline_box("slow_slide", 0,
                       f"it accelerates at g sin 0.1 = {a:.5f} m/s^2 without end, {5 * a:.4f} m/s after 5 s; its "
                       "kinetic energy stays under a sleeping threshold for seconds, yet it is not at rest.",
                       SLOW_DEGREES)


def rolling_sphere():
    # A solid sphere (r = 0.5 m, 1000 kg/m^3) on the incline with friction 0.5, more than the 2/7 tan 30 = 0.165
    # rolling without slipping needs: it rolls at a = 5/7 g sin 30 with v = w r.
    bodies = [incline_plane("surface"), g.sphere("ball", 0.5, on_incline(0.5), material="surface")]
    return scene("rolling_sphere", "A solid sphere (r = 0.5 m) released at rest on a 30 degree plane with friction "
                 "0.5: it rolls without slipping (v = w r) at 5/7 g sin 30 = 3.504 m/s^2.", bodies,
                 materials={"surface": material(0.5)})


# --- flat ground ------------------------------------------------------------------------------------------

def slide_stop():
    bodies = [dict(g.GROUND, material="surface"),
              g.box("box", [0.5, 0.5, 0.5], [0, 0.5, 0], linear_velocity=[4, 0, 0], material="surface")]
    return scene("slide_stop", "A 1 m box of 1000 kg sliding at 4 m/s on the ground, friction 0.5: it stops after "
                 "v^2 / (2 mu g) = 1.631 m.", bodies, materials={"surface": material(0.5)})


def rolling_flat():
    # Rolling in +x at 2 m/s: w = -v / r about z, so the contact point is at rest.
    bodies = [dict(g.GROUND, material="surface"),
              g.sphere("ball", 0.5, [0, 0.5, 0], linear_velocity=[2, 0, 0], angular_velocity=[0, 0, -4],
                       material="surface")]
    return scene("rolling_flat", "A solid sphere (r = 0.5 m) rolling at 2 m/s on level ground with friction 0.5: "
                 "nothing slows a rigid ball on a rigid plane, so it keeps its speed.", bodies,
                 materials={"surface": material(0.5)})


def box_rest():
    bodies = [dict(g.GROUND), g.box("box", [0.5, 0.5, 0.5], [0, 0.5, 0])]
    return scene("box_rest", "A 1 m box of 1000 kg at rest on the ground (friction 0.5): it stays where it is.",
                 bodies)


def ball_rest():
    bodies = [dict(g.GROUND), g.sphere("ball", 0.5, [0, 0.5, 0])]
    return scene("ball_rest", "A ball (r = 0.5 m, 524 kg) at rest on the ground (friction 0.5): it stays where it "
                 "is, touching the ground at one point.", bodies)


def bounce():
    # The ball's lowest point starts 2 m above the ground; a contact takes the larger restitution (0.5).
    bodies = [dict(g.GROUND), g.sphere("ball", 0.5, [0, 2.5, 0], material="rubber")]
    return scene("bounce", "A ball (r = 0.5 m) with restitution 0.5 dropped with its lowest point 2 m above the "
                 "ground: after the first bounce its centre rises e^2 2 m = 0.5 m above its resting height "
                 "(Newton's law v' = e v).", bodies, materials={"rubber": material(0.5, 0.5)})


def head_on(name, restitution, what):
    # Two spheres of 1 kg (r = 0.25 m) without gravity or friction; a moves at 2 m/s along the line of
    # centres towards b, at rest 0.5 m away.
    bodies = [g.sphere("a", 0.25, [-0.75, 0, 0], mass=1, linear_velocity=[2, 0, 0], material="ball"),
              g.sphere("b", 0.25, [0, 0, 0], mass=1, material="ball")]
    return scene(name, f"Two spheres of 1 kg without gravity, restitution {restitution}: a hits b (at rest) "
                 f"head-on at 2 m/s; {what}", bodies, materials={"ball": material(0, restitution)},
                 gravity=NO_GRAVITY)


def head_on_elastic():
    return head_on("head_on_elastic", 1, "they swap velocities: a stops, b leaves at 2 m/s.")


def head_on_inelastic():
    return head_on("head_on_inelastic", 0, "they move on together at 1 m/s.")


# --- stacks -----------------------------------------------------------------------------------------------

def tower20_light():
    bodies = [dict(g.GROUND)] + [g.box(f"box_{i}", [0.05, 0.05, 0.05], [0, 0.05 + 0.1 * i, 0]) for i in range(20)]
    return scene("tower20_light", "A column of 20 boxes of 10 cm and 1 kg (density 1000) with zero gaps, friction "
                 "0.5, at h = 1/60 s: it stands.", bodies)


def mass_ratio():
    bodies = [dict(g.GROUND), g.box("light", [0.05, 0.05, 0.05], [0, 0.05, 0], mass=1),
              g.box("heavy", [0.05, 0.05, 0.05], [0, 0.15, 0], mass=100)]
    return scene("mass_ratio", "A 10 cm box of 100 kg resting on a 10 cm box of 1 kg on the ground (mass ratio "
                 "1:100): the stack stands.", bodies)


# --- joints -------------------------------------------------------------------------------------------------

def bar(name, pivot, angle_degrees, **extra):
    """A 1 x 0.1 x 0.1 m bar (density 1000, 10 kg) with one end at `pivot`, pointing at `angle_degrees` from +x."""
    a = math.radians(angle_degrees)
    centre = [pivot[0] + 0.5 * math.cos(a), pivot[1] + 0.5 * math.sin(a), pivot[2]]
    return g.box(name, [0.5, 0.05, 0.05], centre, orientation=g.quat_axis_angle([0, 0, 1], angle_degrees), **extra)


def frame(position):
    # The fixed body the joints hold on to, out of the way of the moving bodies.
    return {"name": "frame", "shape": {"type": "sphere", "radius": 0.05}, "fixed": True, "position": list(position)}


def hinge_pendulum():
    # The bar hangs from a hinge about z at one end, started 5 degrees from the vertical.
    pivot = [0, 3, 0]
    bodies = [frame([0, 3, -1]), bar("bar", pivot, -90 + 5)]
    joints = [g.joint("hinge", ["frame", "bar"], pivot, axis=[0, 0, 1], name="hinge")]
    return scene("hinge_pendulum", "A 1 x 0.1 x 0.1 m bar (10 kg) hanging from a hinge at one end, released 5 degrees "
                 "from the vertical: a compound pendulum of period 2 pi sqrt(I / (m g d)) (1 + theta0^2 / 16) = "
                 "1.6408 s.", bodies, joints=g.clean(joints))


def hinge_motors():
    # Two 1 m cubes (1000 kg, I = 166.7 kg m^2 about the axis) on hinges about z through their centres, so
    # gravity exerts no torque; both motors aim at 3 rad/s.
    bodies = [frame([0, 2, -2]), g.box("strong", [0.5, 0.5, 0.5], [-1.5, 2, 0]),
              g.box("weak", [0.5, 0.5, 0.5], [1.5, 2, 0])]
    joints = [g.joint("hinge", ["frame", "strong"], [-1.5, 2, 0], axis=[0, 0, 1], name="strong", motor=[3, 2000]),
              g.joint("hinge", ["frame", "weak"], [1.5, 2, 0], axis=[0, 0, 1], name="weak", motor=[3, 100])]
    return scene("hinge_motors", "Two 1 m cubes (1000 kg) on hinges through their centres, motors at 3 rad/s: the "
                 "strong one (2000 N m) reaches 3 rad/s in 0.25 s and keeps it; the weak one (100 N m) spins up at "
                 "100 / 166.7 = 0.6 rad/s^2 and turns at 0.6 rad/s after 1 s.", bodies, joints=g.clean(joints))


def hinge_limit():
    pivot = [0, 3, 0]
    bodies = [frame([0, 3, -1]), bar("bar", pivot, 0)]
    joints = [g.joint("hinge", ["frame", "bar"], pivot, axis=[0, 0, 1], name="hinge", limits=[-0.5, 0.5])]
    return scene("hinge_limit", "A 1 x 0.1 x 0.1 m bar (10 kg) on a hinge at one end, released horizontal: it falls "
                 "onto its limit at -0.5 rad and rests there under its weight.", bodies, joints=g.clean(joints))


# --- free motion --------------------------------------------------------------------------------------------

def free_rotation():
    # Principal moments about x, y, z in the ratio 0.1125 : 0.2725 : 0.34, so y is the intermediate axis: the
    # spin about it is unstable and the box tumbles over (the Dzhanibekov effect) while its kinetic energy
    # and angular momentum stay what they were.
    bodies = [g.box("box", [0.5, 0.3, 0.15], [0, 0, 0], angular_velocity=[0.02, 3, 0.02])]
    return scene("free_rotation", "A 1 x 0.6 x 0.3 m box without gravity spinning at 3 rad/s nearly about its "
                 "intermediate axis: it tumbles over and back, keeping its kinetic energy and angular momentum.",
                 bodies, gravity=NO_GRAVITY)


SCENES = {
    "incline_frictionless.json": incline_frictionless,
    "incline_friction.json": incline_friction,
    "incline_stick.json": incline_stick,
    "incline_edge_slide.json": incline_edge_slide,
    "incline_edge_hold.json": incline_edge_hold,
    "slow_slide.json": slow_slide,
    "rolling_sphere.json": rolling_sphere,
    "rolling_flat.json": rolling_flat,
    "slide_stop.json": slide_stop,
    "box_rest.json": box_rest,
    "ball_rest.json": ball_rest,
    "bounce.json": bounce,
    "head_on_elastic.json": head_on_elastic,
    "head_on_inelastic.json": head_on_inelastic,
    "tower20_light.json": tower20_light,
    "mass_ratio.json": mass_ratio,
    "hinge_pendulum.json": hinge_pendulum,
    "hinge_motors.json": hinge_motors,
    "hinge_limit.json": hinge_limit,
    "free_rotation.json": free_rotation,
}


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                  "conformance")
    os.makedirs(out_dir, exist_ok=True)
    g.write_scenes(out_dir, SCENES, topics="Conformance")


if __name__ == "__main__":
    main()
