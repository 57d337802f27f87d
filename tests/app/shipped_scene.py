#!/usr/bin/env python3
"""One shipped scene under every registered method, at the method's default parameters and the scene's dt.

Each method runs STEPS steps headless (default 600, 10 s at 1/60 s; pile1000 300, as issue 30 asks) and must
- exit 0 (no bad input, no non-finite value, no blow-up past max_speed);
- sink no body deeper than 0.2 m: the deepest contact (the --metrics column max_penetration) after the first
  simulated second (or third of the run, if shorter), once bodies that start overlapping have been pushed apart;
- create no energy where nothing feeds the scene (no scripts, applied forces, kinematic bodies, motors,
  servos or models, whose drives become motors and servos) and no body starts overlapping another: the total energy (kinetic plus potential) never rises above its
  first value by more than 1 % of what the run dissipates plus 0.1 % of the potential energy's size (the small
  stored-energy exchanges of compliant contacts settling).
No shipped scene may list "methods": every method runs every scene.

A cell that fails today because of a bug in a method is listed in shipped_scenes_awaiting_fix.txt (scene, method,
what fails); it is not run (it may take minutes) but reported, and `--awaiting` runs only those cells, reporting
each that now passes, so that the list only shrinks as fixes land.

Each run's CPU time is printed, to keep an eye on what the suite costs. A run may take RUN_CPU_LIMIT s of CPU on the
reference machine, scaled by this machine's slowness (docs/testing.md, "CPU budgets").

With --method NAME only that method runs; with --skip NAME[,NAME...] those methods do not. The build registers
the longest cells (tests/test_costs.cmake, CONTACTLAB_SLOW_SCENE_CELLS) as tests of their own in the `slow` group,
and skips them in the scene's test (docs/testing.md, "Test groups").

Usage: shipped_scene.py CONTACTLAB SCENE.json [STEPS] [--awaiting] [--method NAME | --skip NAME[,NAME...]]
"""
import csv
import json
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
AWAITING = os.path.join(HERE, "shipped_scenes_awaiting_fix.txt")
STEPS = {"pile1000": 300}  # steps per scene where not 600
MAX_DEPTH = 0.2          # m
SETTLE_TIME = 1.0        # s: overlap of the first second is bodies placed into each other being pushed apart
START_OVERLAP = 0.01     # m: a scene whose first step has a contact deeper than this starts overlapping
RUN_CPU_LIMIT = 300      # s of CPU time on the reference machine for one method's run: a guard against a run that
                         # crawls or hangs, counted in CPU time so that a busy machine does not fail a run, and
                         # scaled by this machine's slowness (contactlab --machine-speed; speed targets are
                         # benchmarks: bench/scenes_bench.py)
MIN_SLOWNESS, MAX_SLOWNESS = 0.25, 4.0  # the range of --machine-speed (engine/conformance/cpu_budget.h)
RUN_WALL_LIMIT = 1500    # s of wall time: the guard for a run that waits instead of computing


def limit_cpu():
    """In the child, before exec: stop the run (SIGXCPU, then SIGKILL) past the CPU limit on the slowest machine."""
    hard = int(RUN_CPU_LIMIT * MAX_SLOWNESS)
    resource.setrlimit(resource.RLIMIT_CPU, (hard, hard + 5))


def over_cpu_limit(exe, cpu):
    """Why a run of `cpu` s of CPU time is over RUN_CPU_LIMIT on this machine, or None. The machine's slowness is
    measured (now, under the same load) only for a run long enough to be over the limit on a fast machine."""
    if cpu <= RUN_CPU_LIMIT * MIN_SLOWNESS:
        return None
    speed = subprocess.run([exe, "--machine-speed"], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           check=True)
    slowness = float(speed.stdout.strip())
    if cpu <= RUN_CPU_LIMIT * slowness:
        return None
    return (f"{cpu:.1f} s of CPU time, more than {RUN_CPU_LIMIT} s on the reference machine "
            f"({RUN_CPU_LIMIT * slowness:.1f} s here, {slowness:.3g} times slower)")


def awaiting_cells():
    cells = {}
    if os.path.exists(AWAITING):
        with open(AWAITING, encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    scene, solver, *why = line.split(None, 2)
                    cells[(scene, solver)] = why[0] if why else ""
    return cells


def energy_sources(doc):
    """What feeds the scene energy, by name of the feature; empty when nothing does."""
    found = []
    if doc.get("scripts"):
        found.append("scripts")
    if doc.get("forces"):
        found.append("applied forces")
    if any(b.get("kinematic") for b in doc.get("bodies", [])):
        found.append("kinematic bodies")
    joints = doc.get("joints", [])
    if any("motor" in j for j in joints):
        found.append("motors")
    if any("servo" in j for j in joints):
        found.append("servos")
    if doc.get("models"):
        found.append("models (their actuators and joint damping become motors and servos)")
    return found


def check_run(rows, dt, doc):
    """The first law the run's metrics break, or None."""
    if not rows:
        return "no steps in the metrics"
    settle_step = min(math.ceil(round(SETTLE_TIME / dt, 6)), len(rows) // 3)
    deepest = max((float(r["max_penetration"]), int(r["step"])) for r in rows[settle_step:] or rows[-1:])
    if deepest[0] > MAX_DEPTH:
        return f"a contact {deepest[0]:.3g} m deep at step {deepest[1]} (at most {MAX_DEPTH} m)"
    sources = energy_sources(doc)
    if sources or float(rows[0]["max_penetration"]) > START_OVERLAP:
        return None
    energy = [float(r["kinetic_energy"]) + float(r["potential_energy"]) for r in rows]
    first, lowest = energy[0], min(energy)
    allowed = 0.01 * (first - lowest) + 1e-3 * abs(float(rows[0]["potential_energy"])) + 1e-6
    peak = max(range(len(energy)), key=lambda i: energy[i])
    if energy[peak] - first > allowed:
        return (f"energy created: {energy[peak]:.6g} J at step {rows[peak]['step']} against {first:.6g} J at the "
                f"first step (at most {allowed:.3g} J more)")
    return None


def take_option(args, name):
    """The value of `name VALUE` in args (removed from them), or None."""
    if name not in args:
        return None
    i = args.index(name)
    if i + 1 >= len(args):
        sys.exit(f"{name} needs a value\n{__doc__}")
    value = args[i + 1]
    del args[i:i + 2]
    return value


def main():
    args = [a for a in sys.argv[1:] if a != "--awaiting"]
    only_awaiting = "--awaiting" in sys.argv[1:]
    only_method = take_option(args, "--method")
    skip = take_option(args, "--skip")
    skipped = set(skip.split(",")) if skip else set()
    if len(args) not in (2, 3) or (only_method and skipped):
        sys.exit(__doc__)
    exe, scene = args[0], args[1]
    with open(scene, encoding="utf-8") as f:
        doc = json.load(f)
    stem = os.path.splitext(os.path.basename(scene))[0]
    dt = float(doc.get("dt", 1.0 / 60.0))
    steps = int(args[2]) if len(args) == 3 else STEPS.get(stem, 600)
    failures = 0
    if "methods" in doc:
        print(f"FAIL the scene lists \"methods\" {doc['methods']}: shipped scenes run under every method")
        failures += 1
    listing = subprocess.run([exe, "--list-solvers"], capture_output=True, text=True, check=False).stdout
    solvers = [line.split(":", 1)[0] for line in listing.splitlines()
               if line and not line[0].isspace() and ":" in line]
    if not solvers:
        sys.exit(f"no solvers listed by {exe} --list-solvers")
    for name in ([only_method] if only_method else []) + sorted(skipped):
        if name not in solvers:
            sys.exit(f"unknown method {name!r}: {exe} --list-solvers lists {', '.join(solvers)}")
    if only_method:
        solvers = [only_method]
    for name in sorted(skipped):
        print(f"skipped {name}: a test of its own (scenes.{stem}.{name}, group slow)")
    solvers = [s for s in solvers if s not in skipped]
    awaiting = awaiting_cells()
    with tempfile.TemporaryDirectory() as tmp:
        for solver in solvers:
            why = awaiting.get((stem, solver))
            if (why is not None) != only_awaiting:
                if why is not None:
                    print(f"awaiting fix {solver}: {why}")
                continue
            metrics = os.path.join(tmp, f"{solver}.csv")
            cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
            try:
                run = subprocess.run([exe, "--headless", scene, "--steps", str(steps), "--solver", solver,
                                      "--metrics", metrics], stdin=subprocess.DEVNULL, capture_output=True,
                                     text=True, timeout=RUN_WALL_LIMIT, check=False, preexec_fn=limit_cpu)
                code, err = run.returncode, run.stderr
                if code in (-signal.SIGXCPU, -signal.SIGKILL):
                    code, err = None, f"no result in {int(RUN_CPU_LIMIT * MAX_SLOWNESS)} s of CPU time"
            except subprocess.TimeoutExpired:
                code, err = None, f"no result in {RUN_WALL_LIMIT} s of wall time"
            cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - cpu_before
            if code != 0:
                lines = [l for l in err.splitlines() if "warning:" not in l]
                problem = f"exit {code}: {' '.join(lines)[:500]}"
            else:
                problem = over_cpu_limit(exe, cpu)
                if problem is None:
                    with open(metrics, encoding="utf-8") as f:
                        problem = check_run(list(csv.DictReader(f)), dt, doc)
            if only_awaiting:
                print(f"{'still failing' if problem else 'NOW PASSES, remove it from the list'} {solver}: "
                      f"{problem or ''}")
                failures += problem is None
            elif problem:
                print(f"FAIL {solver}: {steps} steps: {problem} ({cpu:.1f} s CPU)")
                failures += 1
            else:
                print(f"ok   {solver}: {steps} steps ({steps * dt:g} s simulated, {cpu:.1f} s CPU)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
