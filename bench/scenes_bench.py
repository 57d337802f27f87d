#!/usr/bin/env python3
"""Every shipped scene under every method: wall time per step and the real-time factor, one run.

Each scene of scenes/*.json runs headless under each registered method at its defaults and the scene's dt for
600 steps (pile1000: 300, as issue 30's targets), one method after the other, so that the figures
of one scene are measured in one run under the same load. Per cell it writes the steps, the exit code, the wall
time of the run (the process, loading included), the median and the mean of the steps' wall time (--metrics
wall_ms), the real-time factor (simulated time over the run's wall time; above 1: faster than real time), the
CPU time of the run (user and system, loading included: on a shared machine it moves far less with the load
than the wall time does), the CPU ms per step, and whether the cell meets issue 30's target (600 steps in
60 s, pile1000 300 steps in 300 s: at most 100 ms per step, 1000 for pile1000) by its CPU time per step.

Usage: python3 bench/scenes_bench.py BUILD/app/contactlab [--out bench/results/scenes.csv] [--markdown]
       [--scene NAME]... [--solver NAME]... [--timeout S]
--markdown prints the method x scene table of docs/performance.md from the CSV (--out) instead of running.
"""
import argparse
import csv
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS = {"pile1000": 300}  # steps per scene (default 600)
TARGET_MS = {"pile1000": 1000.0}  # issue 30: ms per step at most (default 100: 600 steps in 60 s)
COLUMNS = ["scene", "method", "dt", "steps", "exit", "run_s", "step_ms_median", "step_ms_mean", "realtime_factor",
           "cpu_s", "cpu_ms_per_step", "target"]


def machine():
    cpu = "unknown cpu"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{platform.node()}, {cpu}, {os.cpu_count()} threads, load {os.getloadavg()[0]:.1f} at start"


def solvers(exe):
    listing = subprocess.run([exe, "--list-solvers"], capture_output=True, text=True, check=True).stdout
    return [l.split(":", 1)[0] for l in listing.splitlines() if l and not l[0].isspace() and ":" in l]


def run_cell(exe, scene, method, timeout, tmp):
    with open(scene, encoding="utf-8") as f:
        dt = float(json.load(f).get("dt", 1.0 / 60.0))
    stem = os.path.splitext(os.path.basename(scene))[0]
    steps = STEPS.get(stem, 600)
    metrics = os.path.join(tmp, "m.csv")
    if os.path.exists(metrics):
        os.remove(metrics)
    start = time.perf_counter()
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        code = subprocess.run([exe, "--headless", scene, "--steps", str(steps), "--solver", method, "--metrics",
                               metrics], stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                              check=False).returncode
    except subprocess.TimeoutExpired:
        code = "timeout"
    run_s = time.perf_counter() - start
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    step_ms = []
    if os.path.exists(metrics):
        with open(metrics, encoding="utf-8") as f:
            step_ms = [float(r["wall_ms"]) for r in csv.DictReader(f)]
    done = len(step_ms)
    return {"scene": stem, "method": method, "dt": f"{dt:.6g}", "steps": done, "exit": code,
            "run_s": f"{run_s:.2f}",
            "step_ms_median": f"{statistics.median(step_ms):.3f}" if step_ms else "",
            "step_ms_mean": f"{statistics.fmean(step_ms):.3f}" if step_ms else "",
            "realtime_factor": f"{done * dt / run_s:.3g}" if done else "",
            "cpu_s": f"{cpu_s:.2f}",
            "cpu_ms_per_step": f"{1000 * cpu_s / done:.3f}" if done else "",
            "target": "met" if done == steps and code == 0 and 1000 * cpu_s / done <= TARGET_MS.get(stem, 100.0)
            else "missed"}


def markdown(path):
    with open(path, encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#"))]
    methods = list(dict.fromkeys(r["method"] for r in rows))
    scenes = list(dict.fromkeys(r["scene"] for r in rows))
    cell = {(r["scene"], r["method"]): r for r in rows}
    print("| scene | " + " | ".join(f"`{m}` CPU ms/step (x real time)" for m in methods) + " |")
    print("|---|" + "---|" * len(methods))
    for s in scenes:
        out = []
        for m in methods:
            r = cell.get((s, m))
            if r is None:
                out.append("-")
            elif str(r["exit"]) != "0":
                out.append(f"exit {r['exit']} after {r['steps']} steps")
            else:
                cpu_ms = float(r["cpu_ms_per_step"])
                dt = float(r["dt"])
                mark = "" if r["target"] == "met" else " **missed**"
                out.append(f"{cpu_ms:.3g} ({1000 * dt / cpu_ms:.2g}x){mark}")
        print(f"| `{s}` | " + " | ".join(out) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("exe")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "scenes.csv"))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--scene", action="append", default=[])
    ap.add_argument("--solver", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=600.0)
    a = ap.parse_args()
    if a.markdown:
        markdown(a.out)
        return
    scenes = sorted(os.path.join(ROOT, "scenes", f) for f in os.listdir(os.path.join(ROOT, "scenes"))
                    if f.endswith(".json") and (not a.scene or f[:-5] in a.scene))
    methods = [m for m in solvers(a.exe) if not a.solver or m in a.solver]
    with tempfile.TemporaryDirectory() as tmp, open(a.out, "w", encoding="utf-8", newline="") as f:
        f.write(f"# machine: {machine()}\n")
        f.write(f"# command: python3 bench/scenes_bench.py {' '.join(sys.argv[1:])}\n")
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        for scene in scenes:
            for method in methods:
                row = run_cell(a.exe, scene, method, a.timeout, tmp)
                w.writerow(row)
                f.flush()
                print(", ".join(f"{k} {row[k]}" for k in COLUMNS), file=sys.stderr)


if __name__ == "__main__":
    main()
