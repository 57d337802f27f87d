#!/usr/bin/env python3
"""Scaling curves beside the peers (issue 37): ms per step against body count for pyramids of 10 to 5,050 boxes of
1 m (zero gaps, the layout of pyramid20 and large_pyramid), under ContactLab's `lcp` on one and on two world
threads and under every peer engine of the build (Bullet, ODE, MuJoCo, DART), each run with every body awake and 10
iterations. Each run steps in turn with a Bullet run (contactlab_peers --interleave), so the shared machine's load
falls on both alike, and ratio_to_bullet is each lane's median over that Bullet's.

Usage: /usr/bin/python3 bench/peers/scaling.py [CONTACTLAB_PEERS] [--steps N] [--budget S] [--rows 4,9,...] [--csv FILE]
                                     [--plot FILE] [--mujoco-rows N] [--dart-rows N] [--only mujoco|dart]
  default CSV bench/results/peers_scaling.csv, plot docs/images/peers_scaling.svg (needs python3-matplotlib,
  Debian's, hence /usr/bin/python3); --plot-only redraws the plot from the CSV; --only ENGINE runs that engine's
  lane alone (with its Bullet) and puts its rows into the CSV there is in place of its old ones, the command added
  to the CSV's header

The pyramids are written into a temporary folder by scenes/generate_large.py's helpers. MuJoCo 2.2.2 declines the
large ones (its dense constraint arrays; contactlab_peers --mujoco-max-gb) and takes seconds a step from 210 boxes
on, so it runs only up to --mujoco-rows (default 20), on its own. DART's Dantzig solver builds and factors a dense LCP of
every contact row of a touching group (about 3 rows per contact point), seconds a step from 105 boxes on, so it runs
up to --dart-rows (default 14), interleaved with a Bullet run of its own for its ratio.
"""
import argparse
import csv
import datetime
import os
import platform
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scenes"))
import generate as g  # noqa: E402
import generate_large as large  # noqa: E402


def pyramid(rows):
    bodies = [dict(g.GROUND)] + g.pyramid_rows(rows, 1.0)
    return g.scene(f"pyramid{rows}", f"{rows}-row pyramid of 1 m boxes, zero gaps", bodies, materials=large.MATERIALS)


def run(cmd):
    print("$", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    print(r.stdout.split("\n\nms:")[0], flush=True)
    if r.returncode not in (0, 3):
        sys.stderr.write(r.stderr)
        sys.exit(2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("exe", nargs="?", default=os.path.join(ROOT, "build", "bench", "peers", "contactlab_peers"))
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--budget", type=float, default=60, help="s of its own step time after which a run stops")
    ap.add_argument("--rows", default="4,9,14,20,31,44,63,100", help="pyramid rows (boxes: rows (rows + 1) / 2)")
    ap.add_argument("--csv", default=os.path.join(ROOT, "bench", "results", "peers_scaling.csv"))
    ap.add_argument("--plot", default=os.path.join(ROOT, "docs", "images", "peers_scaling.svg"))
    ap.add_argument("--mujoco-rows", type=int, default=20, help="largest pyramid MuJoCo runs")
    ap.add_argument("--dart-rows", type=int, default=14, help="largest pyramid DART runs")
    ap.add_argument("--only", choices=("mujoco", "dart"), help="run this engine's lane alone, into the CSV there is")
    ap.add_argument("--plot-only", action="store_true", help="plot the CSV there is, without running anything")
    a = ap.parse_args()
    if a.plot_only:
        head, rows = read_csv(a.csv)
        plot(rows, a.plot, head[1].split("--steps ")[1].split()[0])
        return
    rows_list = [int(x) for x in a.rows.split(",")]
    out_rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for rows in rows_list:
            path = os.path.join(tmp, f"pyramid{rows}.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(g.dump(pyramid(rows)))
            # Per size, three interleaved runs: lcp on one thread with Bullet and ODE; lcp on two threads with Bullet
            # (a second thread's lane would take the machine's second core from the others' steps); MuJoCo alone
            # up to --mujoco-rows (its dense arrays, gigabytes at 500 boxes, would evict the others' caches).
            runs = [("lcp:threads=1", "bullet,ode"), ("lcp:threads=2", "bullet")]
            if rows <= a.mujoco_rows:
                runs.append(("none", "mujoco"))
            if rows <= a.dart_rows:
                runs.append(("none", "bullet,dart"))
            if a.only:
                runs = [r for r in runs if a.only in r[1]]
            for k, (methods, engines) in enumerate(runs):
                out = os.path.join(tmp, f"runs{rows}_{k}.csv")
                run([a.exe, path, "--steps", str(a.steps), "--methods", methods, "--engines", engines, "--interleave",
                     "--budget", str(a.budget), "--csv", out])
                with open(out, encoding="utf-8") as f:
                    for r in csv.DictReader(f):
                        lane = r["engine"]
                        if lane == "contactlab":
                            lane = "lcp, 2 threads" if "threads=2" in r["method"] else "lcp, 1 thread"
                        elif lane == "bullet" and (k > 0 or a.only):
                            continue  # a further Bullet run: only the ratio of the lane beside it uses it
                        out_rows.append({"lane": lane, "rows": rows, "boxes": int(r["bodies"]) - 1, **{
                            k2: r[k2] for k2 in ("steps", "status", "wall_ms_median", "wall_ms_p95", "ratio_to_bullet",
                                                 "cpu_ms_median", "drift", "contacts")}})
    machine = (f"machine: {platform.node() or 'dev VM'}, {os.cpu_count()} hardware threads, "
               f"load average {os.getloadavg()[0]:.1f} at the end; {datetime.date.today()}")
    command = (f"command: /usr/bin/python3 bench/peers/scaling.py --steps {a.steps} --budget {a.budget:g} --rows {a.rows} "
               f"--mujoco-rows {a.mujoco_rows} --dart-rows {a.dart_rows}" + (f" --only {a.only}" if a.only else ""))
    head = [f"# {machine}\n", f"# {command}\n"]
    steps = a.steps
    if a.only:
        # The other lanes' rows stay, in their order; this engine's rows follow them.
        head, old = read_csv(a.csv)
        head = [h for h in head if not h.startswith(f"# --only {a.only}:")] + [f"# --only {a.only}: {command}; {machine}\n"]
        out_rows = [r for r in old if r["lane"] != a.only] + out_rows
        steps = head[1].split("--steps ")[1].split()[0]
    os.makedirs(os.path.dirname(a.csv), exist_ok=True)
    with open(a.csv, "w", encoding="utf-8", newline="") as f:
        f.writelines(head)
        w = csv.DictWriter(f, fieldnames=list(out_rows[0].keys()))
        w.writeheader()
        w.writerows(out_rows)
    print("wrote", a.csv)
    plot(out_rows, a.plot, steps)


def read_csv(path):
    """The CSV's header comments ('#' lines) and its rows, boxes as numbers."""
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    head = [x for x in lines if x.startswith("#")]
    rows = [dict(r, boxes=int(r["boxes"])) for r in csv.DictReader(x for x in lines if not x.startswith("#"))]
    return head, rows


def plot(out_rows, path, steps):
    """ms per step against boxes, one line per lane, log-log."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.hashsalt"] = "contactlab"
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no plot (apt-get install python3-matplotlib)")
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    panels = [("cpu_ms_median", "CPU ms per step (the process's, all threads)"),
              ("wall_ms_median", "wall ms per step (shared machine)")]
    for ax, (column, label) in zip(axes, panels):
        for lane in dict.fromkeys(r["lane"] for r in out_rows):
            pts = [(r["boxes"], float(r[column])) for r in out_rows
                   if r["lane"] == lane and r["status"] in ("ok", "budget") and int(r["steps"]) > 0 and r.get(column)]
            if pts:
                ax.plot(*zip(*pts), marker="o", label=lane)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("boxes (pyramid, zero gaps)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"Step time against bodies: every body awake, 10 iterations, medians of {steps} steps")
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, metadata={"Date": None})
    print("wrote", path)


if __name__ == "__main__":
    main()
