#!/usr/bin/env python3
"""The speed targets of issue 37, each measured beside Bullet in one run of contactlab_peers (--interleave: the
runs of a scene step in turn, so that the shared machine's load falls on each alike), and whether each is met.

Usage: python3 bench/peers/targets.py [CONTACTLAB_PEERS] [--steps N] [--threads N] [--csv FILE] [--only SCENE]
                                     [--with NAME=VALUE]...   (an lcp parameter for every lcp run, e.g.
                                                               solver_precision=float)

| scene | target |
| pyramid20, plain PGS (shock_propagation=false) | at most 0.5 x Bullet's median step |
| pyramid20, full method (shock propagation) | at most 1.0 x Bullet's |
| pyramid20, both | largest drift under 1 cm in 10 s |
| large_pyramid (zero gaps), one thread | at most 0.75 x Bullet's, the top box within 5 cm |
| pyramid100_gaps (5 cm gaps), one thread | at most 0.5 x Bullet's, the top box within 1 cm in 10 s |

Every run is 10 s (600 steps at 1/60 s) unless --steps says otherwise, every body awake, 10 iterations. Prints one
line per target, "met" or "NOT met" with the numbers (the ratio of the CPU time medians, and of the wall times); exits 0 whether or not the targets are met (they are
benchmarks, not tests), 2 for bad input or when contactlab_peers fails. Takes about 10-20 minutes on the 2-core
machine (the 100-row pyramids: about 5,050 x 600 body steps per engine).
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAIN = "lcp:shock_propagation=false"
FULL = "lcp"

# scene file, methods, then per target: (label, method, largest ratio to Bullet, drift column, largest drift in m)
TARGETS = [
    ("scenes/pyramid20.json", [PLAIN, FULL], [
        ("pyramid20, plain PGS", PLAIN, 0.5, "drift", 0.01),
        ("pyramid20, full method", FULL, 1.0, "drift", 0.01),
    ]),
    ("scenes/large/large_pyramid.json", [FULL], [
        ("large_pyramid, full method, one thread", FULL, 0.75, "top_drift", 0.05),
    ]),
    ("scenes/large/pyramid100_gaps.json", [FULL], [
        ("pyramid100_gaps, full method, one thread", FULL, 0.5, "top_drift", 0.01),
    ]),
]


def label_of(method):
    """The method column contactlab_peers writes for a --methods entry."""
    name, *params = method.split(":")
    return name + (f" [{' '.join(params)}]" if params else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("exe", nargs="?", default=os.path.join(ROOT, "build", "bench", "peers", "contactlab_peers"))
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--csv", help="write every run's row (contactlab_peers --csv columns) here")
    ap.add_argument("--only", help="only the targets of this scene (its file's stem, e.g. pyramid20)")
    ap.add_argument("--with", dest="extra", action="append", default=[], metavar="NAME=VALUE",
                    help="an lcp parameter for every lcp run (repeatable)")
    a = ap.parse_args()
    if not os.access(a.exe, os.X_OK):
        sys.exit(f"targets.py: {a.exe}: not built (cmake --build build --target contactlab_peers)")
    rows_all = []
    lines = []
    suffix = "".join(":" + x for x in a.extra)
    for scene, methods, targets in TARGETS:
        methods = [m + suffix for m in methods]
        targets = [(label, method + suffix, *rest) for label, method, *rest in targets]
        stem = os.path.splitext(os.path.basename(scene))[0]
        if a.only and a.only != stem:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "runs.csv")
            cmd = [a.exe, os.path.join(ROOT, scene), "--steps", str(a.steps), "--methods", ",".join(methods),
                   "--engines", "bullet", "--interleave", "--threads", str(a.threads), "--budget", "100000",
                   "--csv", out]
            print("$", " ".join(cmd), flush=True)
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            print(r.stdout.split("\n\nms:")[0], flush=True)
            if r.returncode != 0:
                sys.stderr.write(r.stderr)
                sys.exit(2)
            with open(out, encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
        rows_all += rows
        bullet = next(x for x in rows if x["engine"] == "bullet")
        for label, method, most_ratio, drift_column, most_drift in targets:
            run = next(x for x in rows if x["engine"] == "contactlab" and x["method"] == label_of(method))
            # Judged by CPU time (the process's, per step): on a loaded machine a wall time also holds the waits for
            # a core, which fall on whichever step is running when the scheduler takes the core away.
            ratio = float(run["cpu_ratio_to_bullet"])
            wall_ratio = float(run["ratio_to_bullet"])
            drift = float(run[drift_column])
            met = ratio <= most_ratio and drift < most_drift and run["status"] == "ok"
            what = "largest drift" if drift_column == "drift" else "top box drift"
            lines.append(f"{'met    ' if met else 'NOT met'}  {label}: CPU {float(run['cpu_ms_median']):.3f} ms a step "
                         f"against Bullet's {float(bullet['cpu_ms_median']):.3f} ms = {ratio:.3f} x (target <= "
                         f"{most_ratio}; wall medians {wall_ratio:.3f} x); "
                         f"{what} {drift * 100:.3g} cm (target < {most_drift * 100:g} cm; Bullet's "
                         f"{float(bullet[drift_column]) * 100:.3g} cm)")
    print("\n".join(lines))
    if a.csv:
        with open(a.csv, "w", encoding="utf-8", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows_all[0].keys()))
            w.writeheader()
            w.writerows(rows_all)


if __name__ == "__main__":
    main()
