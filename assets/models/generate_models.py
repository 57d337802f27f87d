#!/usr/bin/env python3
"""Writes ContactLab's own models twice, as URDF and as MJCF, from one description each, and a scene for each
file in scenes/models/ (docs/models.md). Run from anywhere: python3 assets/models/generate_models.py

Every model is z up, in metres and kilograms, with its links' frames unrotated at the zero pose. The URDF gives
each link its mass and inertia (computed here from its collision shapes, so ContactLab, which derives them from
the shapes, agrees); the MJCF gives densities through default classes and drives its joints with actuators, the
URDF scenes drive the same joints with the scene's "servos" and "motors", with the same gains.
"""
import json
import math
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
SCENES = HERE.parent.parent / "scenes" / "models"


def fmt(x):
    """The shortest text that reads back as the same double (so both formats give the same masses)."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def vec(v):
    return " ".join(fmt(x) for x in v)


# --- shapes: volume, inertia per kg about the centre (axes of the geom; cylinders along z) -------------------------

def volume(g):
    t = g["type"]
    if t == "box":
        x, y, z = g["half"]
        return 8 * x * y * z
    if t == "sphere":
        return 4 / 3 * math.pi * g["r"] ** 3
    if t == "cylinder":
        return math.pi * g["r"] ** 2 * 2 * g["h"]
    if t == "mesh":
        return g["volume"]
    raise ValueError(t)


def unit_inertia(g):
    t = g["type"]
    if t == "box":
        x, y, z = (2 * a for a in g["half"])
        return [(y * y + z * z) / 12, (x * x + z * z) / 12, (x * x + y * y) / 12]
    if t == "sphere":
        return [0.4 * g["r"] ** 2] * 3
    if t == "cylinder":
        r, h = g["r"], 2 * g["h"]
        side = r * r / 4 + h * h / 12
        return [side, side, r * r / 2]
    if t == "mesh":
        return g["unit_inertia"]
    raise ValueError(t)


def link_mass_properties(link, density):
    """Mass, centre (link frame) and inertia diagonal about it (geoms are unrotated, so it is diagonal)."""
    parts = []
    for g in link["geoms"]:
        m = density * volume(g)
        parts.append((m, g["pos"], unit_inertia(g)))
    mass = sum(p[0] for p in parts)
    c = [sum(p[0] * p[1][k] for p in parts) / mass for k in range(3)]
    inertia = [0.0, 0.0, 0.0]
    for m, pos, ui in parts:
        d = [pos[k] - c[k] for k in range(3)]
        for k in range(3):
            others = sum(d[j] ** 2 for j in range(3) if j != k)
            inertia[k] += m * ui[k] + m * others
    return mass, c, inertia


# --- writers ---------------------------------------------------------------------------------------------------

def rel(a, b):
    return [a[k] - b[k] for k in range(3)]


def urdf_geometry(g):
    t = g["type"]
    if t == "box":
        return f'<box size="{vec([2 * a for a in g["half"]])}"/>'
    if t == "sphere":
        return f'<sphere radius="{fmt(g["r"])}"/>'
    if t == "cylinder":
        return f'<cylinder radius="{fmt(g["r"])}" length="{fmt(2 * g["h"])}"/>'
    return f'<mesh filename="{g["file"]}"/>'


def write_urdf(model):
    out = [f'<?xml version="1.0"?>', f'<!-- {model["title"]} Written by generate_models.py; the MJCF twin is '
           f'{model["name"]}.xml. -->', f'<robot name="{model["name"]}">']
    if model.get("world_root"):
        out.append('  <link name="world"/>')
    for link in model["links"]:
        density = link.get("density", model["density"])
        mass, c, inertia = link_mass_properties(link, density)
        # A root link without a joint has the model's frame: its shapes sit at the link's place in it.
        shift = link["pos"] if "joint" not in link else [0, 0, 0]
        c = [c[k] + shift[k] for k in range(3)]
        out.append(f'  <link name="{link["name"]}">')
        out.append(f'    <inertial>\n      <origin xyz="{vec(c)}"/>\n      <mass value="{fmt(mass)}"/>\n'
                   f'      <inertia ixx="{fmt(inertia[0])}" ixy="0" ixz="0" iyy="{fmt(inertia[1])}" iyz="0" '
                   f'izz="{fmt(inertia[2])}"/>\n    </inertial>')
        for g in link["geoms"]:
            out.append(f'    <collision>\n      <origin xyz="{vec([g["pos"][k] + shift[k] for k in range(3)])}"/>\n      <geometry>{urdf_geometry(g)}'
                       f'</geometry>\n    </collision>')
        out.append('  </link>')
    by_name = {l["name"]: l for l in model["links"]}
    for link in model["links"]:
        j = link.get("joint")
        if not j:
            continue
        parent = j.get("parent", "world")
        # A root link's frame is the model's (its shapes are shifted instead).
        frame = by_name[parent]["pos"] if parent in by_name and "joint" in by_name[parent] else [0, 0, 0]
        origin = rel(link["pos"], frame)
        kind = {"hinge": "revolute" if "range" in j else "continuous", "slide": "prismatic", "fixed": "fixed"}[j["type"]]
        out.append(f'  <joint name="{j["name"]}" type="{kind}">')
        out.append(f'    <parent link="{parent}"/>\n    <child link="{link["name"]}"/>\n    <origin xyz="{vec(origin)}"/>')
        if j["type"] != "fixed":
            out.append(f'    <axis xyz="{vec(j["axis"])}"/>')
            lo, hi = j.get("range", (0, 0))
            if j["type"] == "hinge" and "range" in j:
                lo, hi = math.radians(lo), math.radians(hi)
            limit = f' lower="{fmt(lo)}" upper="{fmt(hi)}"' if "range" in j else ""
            out.append(f'    <limit{limit} effort="{fmt(j["effort"])}" velocity="{fmt(j["velocity"])}"/>')
            if j.get("damping"):
                out.append(f'    <dynamics damping="{fmt(j["damping"])}"/>')
        out.append('  </joint>')
    out.append('</robot>')
    (HERE / f'{model["name"]}.urdf').write_text("\n".join(out) + "\n")


def mjcf_geom(g, indent):
    t = g["type"]
    if t == "box":
        size = f'type="box" size="{vec(g["half"])}"'
    elif t == "sphere":
        size = f'type="sphere" size="{fmt(g["r"])}"'
    elif t == "cylinder":
        size = f'type="cylinder" size="{fmt(g["r"])} {fmt(g["h"])}"'
    else:
        size = f'type="mesh" mesh="{pathlib.Path(g["file"]).stem}"'
    cls = f' class="{g["class"]}"' if "class" in g else ""
    return f'{indent}<geom{cls} {size} pos="{vec(g["pos"])}"/>'


def write_mjcf(model):
    angle = model.get("mjcf_angle", "degree")
    out = [f'<!-- {model["title"]} Written by generate_models.py; the URDF twin is {model["name"]}.urdf. -->',
           f'<mujoco model="{model["name"]}">', f'  <compiler angle="{angle}"/>', '  <default>',
           f'    <geom density="{fmt(model["density"])}" friction="{fmt(model["friction"])} 0.005 0.0001"/>']
    for cls, body in model.get("mjcf_classes", {}).items():
        out.append(f'    <default class="{cls}">')
        for line in body:
            out.append(f'      {line}')
        out.append('    </default>')
    out.append('  </default>')
    meshes = sorted({g["file"] for l in model["links"] for g in l["geoms"] if g["type"] == "mesh"})
    if meshes:
        out.append('  <asset>')
        for m in meshes:
            out.append(f'    <mesh name="{pathlib.Path(m).stem}" file="{m}"/>')
        out.append('  </asset>')
    out.append('  <worldbody>')
    children = {}
    for link in model["links"]:
        parent = link.get("joint", {}).get("parent", "world")
        children.setdefault(parent, []).append(link)
    by_name = {l["name"]: l for l in model["links"]}

    def body(link, depth):
        ind = "  " * depth
        parent = link.get("joint", {}).get("parent", "world")
        pos = rel(link["pos"], by_name[parent]["pos"] if parent in by_name else [0, 0, 0])
        cls = f' childclass="{link["class"]}"' if "class" in link else ""
        out.append(f'{ind}<body name="{link["name"]}" pos="{vec(pos)}"{cls}>')
        j = link.get("joint")
        if j is None:
            out.append(f'{ind}  <freejoint name="{link["name"]}_free"/>')
        elif j["type"] != "fixed":
            rng = f' range="{vec(j["range"])}"' if "range" in j else ""
            if "range" in j and model.get("mjcf_angle") == "radian" and j["type"] == "hinge":
                rng = f' range="{vec([math.radians(a) for a in j["range"]])}"'
            damping = f' damping="{fmt(j["damping"])}"' if j.get("damping") else ""
            if "class" in link:  # the class gives them (checked equal in main)
                rng, damping = "", ""
            kind = "hinge" if j["type"] == "hinge" else "slide"
            out.append(f'{ind}  <joint name="{j["name"]}" type="{kind}" axis="{vec(j["axis"])}"{rng}{damping}/>')
        if "density" in link and "class" not in link:
            for g in link["geoms"]:
                g = dict(g)
                out.append(mjcf_geom(g, ind + "  ")[:-2] + f' density="{fmt(link["density"])}"/>')
        else:
            for g in link["geoms"]:
                out.append(mjcf_geom(g, ind + "  "))
        for c in children.get(link["name"], []):
            body(c, depth + 1)
        out.append(f'{ind}</body>')

    for root in children.get("world", []):
        body(root, 2)
    out.append('  </worldbody>')
    acts = [l["joint"] for l in model["links"] if l.get("joint", {}).get("drive")]
    if acts:
        out.append('  <actuator>')
        for j in acts:
            d = j["drive"]
            if d["kind"] == "servo":
                rng = f' ctrlrange="{vec(d["ctrlrange"])}"' if "ctrlrange" in d else ""
                out.append(f'    <position name="{j["name"]}" joint="{j["name"]}" kp="{fmt(d["kp"])}"'
                           f' forcerange="{fmt(-j["effort"])} {fmt(j["effort"])}"{rng}/>')
            else:
                out.append(f'    <velocity name="{j["name"]}" joint="{j["name"]}" kv="1" '
                           f'forcerange="{fmt(-j["effort"])} {fmt(j["effort"])}"/>')
        out.append('  </actuator>')
    out.append('</mujoco>')
    (HERE / f'{model["name"]}.xml').write_text("\n".join(out) + "\n")


def drives_for_urdf(model):
    motors, servos = {}, {}
    for link in model["links"]:
        j = link.get("joint", {})
        d = j.get("drive")
        if not d:
            continue
        if d["kind"] == "servo":
            target = d.get("target", 0)
            servos[j["name"]] = {"target": target, "stiffness": d["kp"], "damping": j.get("damping", 0)}
            if "ctrlrange" in d:
                servos[j["name"]]["range"] = d["ctrlrange"]
        else:
            motors[j["name"]] = {"speed": d.get("target", 0)}
    return motors, servos


def write_scenes(model):
    SCENES.mkdir(parents=True, exist_ok=True)
    for fmt_name in ("mjcf", "urdf"):
        ext = "xml" if fmt_name == "mjcf" else "urdf"
        entry = {"file": f"models/{model['name']}.{ext}", "name": model["name"],
                 "position": model.get("scene_position", [0, 0, 0])}
        if fmt_name == "urdf":
            entry["material"] = "model"
            if model.get("fixed_base"):
                entry["fixed_base"] = True
            motors, servos = drives_for_urdf(model)
            if motors:
                entry["motors"] = motors
            if servos:
                entry["servos"] = servos
        else:
            controls = {l["joint"]["name"]: l["joint"]["drive"].get("target", 0) for l in model["links"]
                        if l.get("joint", {}).get("drive") and l["joint"]["drive"].get("target", 0) != 0}
            if controls:
                entry["controls"] = controls
        if model.get("attach"):
            entry["attach_to"] = "ground"
        scene = {"format": 1, "name": f"{model['name']}_{fmt_name}",
                 "description": model["title"] + f" Read from {model['name']}.{ext} ({fmt_name.upper()}).",
                 "topic": "Models", "dt": model.get("dt", 0.005),
                 "materials": {"model": {"friction": model["friction"]}, "block": {"friction": 0.5}},
                 "bodies": [{"name": "ground", "shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0},
                             "fixed": True}] + model.get("scene_bodies", []),
                 "models": [entry]}
        (SCENES / f"{model['name']}_{fmt_name}.json").write_text(dumps(scene) + "\n")


def dumps(value, indent=0):
    """JSON with objects and arrays of scalars on one line when they fit in 100 characters."""
    flat = json.dumps(value)
    if len(flat) + indent <= 100 or not isinstance(value, (dict, list)):
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, list):
        return "[\n" + ",\n".join(pad + dumps(v, indent + 2) for v in value) + "\n" + " " * indent + "]"
    return "{\n" + ",\n".join(pad + json.dumps(k) + ": " + dumps(v, indent + 2) for k, v in value.items()) + "\n" + \
        " " * indent + "}"


# --- the models ------------------------------------------------------------------------------------------------

def box(half, pos, **kw):
    return dict(type="box", half=half, pos=pos, **kw)


GRIPPER = {
    "name": "gripper", "title": "A two-finger gripper on a lift: the fingers close on a 10 cm box, then the lift raises "
    "it.", "density": 600, "friction": 1.0, "attach": True, "world_root": True, "dt": 0.004,
    "links": [
        {"name": "palm", "pos": [0, 0, 0.2], "geoms": [box([0.15, 0.05, 0.03], [0, 0, 0])],
         # A slow lift (time constant damping/stiffness = 2 s) after a quick grasp.
         "joint": {"name": "lift", "type": "slide", "axis": [0, 0, 1], "range": [-0.1, 0.5], "effort": 200,
                   "velocity": 1, "damping": 3000, "drive": {"kind": "servo", "kp": 1500, "target": 0.25,
                                                             "ctrlrange": [-0.1, 0.5]}}},
        {"name": "finger_left", "pos": [-0.1, 0, 0.09], "geoms": [box([0.015, 0.04, 0.08], [0, 0, 0])],
         "joint": {"name": "left", "type": "slide", "parent": "palm", "axis": [1, 0, 0], "range": [0, 0.09],
                   "effort": 40, "velocity": 0.5, "damping": 40,
                   "drive": {"kind": "servo", "kp": 2000, "target": 0.05, "ctrlrange": [0, 0.09]}}},
        {"name": "finger_right", "pos": [0.1, 0, 0.09], "geoms": [box([0.015, 0.04, 0.08], [0, 0, 0])],
         "joint": {"name": "right", "type": "slide", "parent": "palm", "axis": [-1, 0, 0], "range": [0, 0.09],
                   "effort": 40, "velocity": 0.5, "damping": 40,
                   "drive": {"kind": "servo", "kp": 2000, "target": 0.05, "ctrlrange": [0, 0.09]}}},
    ],
    "scene_bodies": [{"name": "box", "shape": {"type": "box", "half_extents": [0.05, 0.05, 0.05]}, "density": 500,
                      "position": [0, 0.05, 0], "material": "block"}],
}

# Legs: a thigh box on a hip hinge, a shin box with a ball foot on a knee hinge; all eight joints held at the
# standing pose by position servos.
LEG_CORNERS = {"fl": (0.25, 0.17), "fr": (0.25, -0.17), "hl": (-0.25, 0.17), "hr": (-0.25, -0.17)}
WALKER = {
    "name": "walker", "title": "A four-legged walker standing on its feet, its hips and knees held by position servos.",
    "density": 500, "friction": 0.9, "scene_position": [0, 0.001, 0], "dt": 0.004,
    "mjcf_classes": {"leg": ['<geom density="800"/>', '<joint damping="4" range="-60 60"/>']},
    "links": [{"name": "torso", "pos": [0, 0, 0.5], "geoms": [box([0.32, 0.14, 0.05], [0, 0, 0])]}],
}
for leg, (x, y) in LEG_CORNERS.items():
    WALKER["links"].append({"name": f"thigh_{leg}", "pos": [x, y + (0.05 if y > 0 else -0.05), 0.45], "class": "leg",
                            "density": 800, "geoms": [box([0.025, 0.025, 0.08], [0, 0, -0.1])],
                            "joint": {"name": f"hip_{leg}", "type": "hinge", "parent": "torso", "axis": [0, 1, 0],
                                      "range": [-60, 60], "effort": 150, "velocity": 8, "damping": 4,
                                      "drive": {"kind": "servo", "kp": 300}}})
    WALKER["links"].append({"name": f"shin_{leg}", "pos": [x, y + (0.05 if y > 0 else -0.05), 0.25], "class": "leg",
                            "density": 800, "geoms": [box([0.02, 0.02, 0.08], [0, 0, -0.1]),
                                                      {"type": "sphere", "r": 0.035, "pos": [0, 0, -0.215]}],
                            "joint": {"name": f"knee_{leg}", "type": "hinge", "parent": f"thigh_{leg}",
                                      "axis": [0, 1, 0], "range": [-60, 60], "effort": 150, "velocity": 8,
                                      "damping": 4, "drive": {"kind": "servo", "kp": 300}}})

# A six-link arm on a fixed base: the base turns it at 0.4 rad/s (a velocity motor) while position servos hold the
# other five joints, so the paddle at its end sweeps blocks along the ground.
ARM = {
    "name": "arm", "title": "A six-link arm on a fixed base sweeps its paddle through a row of blocks.",
    "density": 400, "friction": 0.8, "world_root": True, "mjcf_angle": "radian", "dt": 0.004,
    "links": [
        {"name": "base", "pos": [0, 0, 0.05], "geoms": [{"type": "cylinder", "r": 0.12, "h": 0.05, "pos": [0, 0, 0]}],
         "joint": {"name": "base_weld", "type": "fixed"}},
        {"name": "turret", "pos": [0, 0, 0.16], "geoms": [{"type": "mesh", "file": "arm_turret.obj", "pos": [0, 0, 0],
                                                           "volume": None, "unit_inertia": None}],
         "joint": {"name": "yaw", "type": "hinge", "parent": "base", "axis": [0, 0, 1], "effort": 60, "velocity": 2,
                   "drive": {"kind": "motor", "target": 0.4}}},
        {"name": "upper_arm", "pos": [0, 0, 0.26], "geoms": [box([0.2, 0.04, 0.04], [0.25, 0, 0])],
         "joint": {"name": "shoulder", "type": "hinge", "parent": "turret", "axis": [0, 1, 0], "range": [-90, 90],
                   "effort": 200, "velocity": 2, "damping": 60, "drive": {"kind": "servo", "kp": 3000}}},
        {"name": "forearm", "pos": [0.5, 0, 0.26], "geoms": [box([0.14, 0.035, 0.035], [0.18, 0, 0])],
         "joint": {"name": "elbow", "type": "hinge", "parent": "upper_arm", "axis": [0, 1, 0], "range": [-120, 120],
                   "effort": 120, "velocity": 2, "damping": 30, "drive": {"kind": "servo", "kp": 1500}}},
        {"name": "wrist", "pos": [0.86, 0, 0.26], "geoms": [box([0.03, 0.04, 0.04], [0.035, 0, 0])],
         "joint": {"name": "wrist_roll", "type": "hinge", "parent": "forearm", "axis": [1, 0, 0], "range": [-170, 170],
                   "effort": 40, "velocity": 3, "damping": 5, "drive": {"kind": "servo", "kp": 400}}},
        {"name": "hand", "pos": [0.98, 0, 0.26], "geoms": [box([0.03, 0.03, 0.06], [0, 0, -0.08])],
         "joint": {"name": "wrist_pitch", "type": "hinge", "parent": "wrist", "axis": [0, 1, 0], "range": [-90, 90],
                   "effort": 40, "velocity": 3, "damping": 5, "drive": {"kind": "servo", "kp": 400}}},
        {"name": "paddle", "pos": [0.98, 0, 0.07], "geoms": [box([0.14, 0.015, 0.05], [0, 0, -0.01])],
         "joint": {"name": "paddle_roll", "type": "hinge", "parent": "hand", "axis": [0, 0, 1], "range": [-170, 170],
                   "effort": 20, "velocity": 3, "damping": 2, "drive": {"kind": "servo", "kp": 200}}},
    ],
    # Blocks on the paddle's circle (radius 0.98 m), ahead of it as the arm turns counter-clockwise seen from above
    # (the scene's y is the model's z: the model's +x to -z in the scene).
    "scene_bodies": [{"name": f"block{i}", "shape": {"type": "box", "half_extents": [0.04, 0.04, 0.04]}, "density": 600,
                      "position": [round(0.98 * math.cos(a), 4), 0.04, round(-0.98 * math.sin(a), 4)],
                      "orientation": [round(math.cos(a / 2), 6), 0, round(math.sin(a / 2), 6), 0],
                      "material": "block"}
                     for i, a in enumerate([0.5, 0.9, 1.3, 1.7])],
}


def turret_mesh():
    """A hexagonal prism (circumradius 0.08 m, half height 0.05 m) as a closed, outward OBJ; its volume and inertia."""
    r, h, n = 0.08, 0.05, 6
    verts = []
    for z in (-h, h):
        for k in range(n):
            a = 2 * math.pi * k / n
            verts.append((r * math.cos(a), r * math.sin(a), z))
    faces = [tuple(range(n, 0, -1)), tuple(range(n + 1, 2 * n + 1))]
    for k in range(n):
        a, b = k + 1, (k + 1) % n + 1
        faces.append((a, b, b + n, a + n))
    lines = ["# The arm's turret: a hexagonal prism, written by generate_models.py"]
    lines += [f"v {x:.15g} {y:.15g} {z:.15g}" for x, y, z in verts]
    lines += ["f " + " ".join(str(i) for i in f) for f in faces]
    (HERE / "arm_turret.obj").write_text("\n".join(lines) + "\n")
    area = 1.5 * math.sqrt(3) * r * r
    vol = area * 2 * h
    # A regular hexagon's polar moment per unit mass is 5/12 r^2 (half of it about each in-plane axis).
    izz = 5 / 12 * r * r
    ixx = izz / 2 + (2 * h) ** 2 / 12
    return vol, [ixx, ixx, izz]


def main():
    vol, ui = turret_mesh()
    for link in ARM["links"]:
        for g in link["geoms"]:
            if g["type"] == "mesh":
                g["volume"], g["unit_inertia"] = vol, ui
    for model in (GRIPPER, WALKER, ARM):
        write_urdf(model)
        write_mjcf(model)
        write_scenes(model)


if __name__ == "__main__":
    main()
