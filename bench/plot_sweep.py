#!/usr/bin/env python3
"""Draws the accuracy-against-cost plot of a `contactlab --sweep` CSV: error against CPU time per run, one line
per method (and per iteration count for a method swept over its iterations), each point labelled with its time
step.

Usage: python3 bench/plot_sweep.py sweep.csv out.png [title]
where sweep.csv comes from e.g.
  build/app/contactlab --sweep incline_friction --dt 0.0333,0.01667,0.01,0.005,0.002,0.001 --out sweep.csv
Needs matplotlib (Debian: python3-matplotlib). Failed runs (no error) are left out and listed on stderr.
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    if not rows:
        sys.exit(f"{sys.argv[1]}: no runs")
    series = {}
    for r in rows:
        if r["error"] == "":
            print(f"left out: {r['solver']} dt {r['dt']}: {r['message']}", file=sys.stderr)
            continue
        key = r["solver"] + (f" ({r['iterations']} iterations)" if r["iterations"] else "")
        series.setdefault(key, []).append((float(r["cpu_s"]), float(r["error"]), float(r["dt"])))
    fig, ax = plt.subplots(figsize=(7.5, 5), dpi=100)
    tiny = 1e-12  # an exact figure (error 0) drawn at the floor of the log axis
    for key, points in sorted(series.items()):
        points.sort(key=lambda p: -p[2])
        xs = [max(p[0], 1e-6) for p in points]
        ys = [max(p[1], tiny) for p in points]
        ax.plot(xs, ys, marker="o", label=key)
        for x, y, p in zip(xs, ys, points):
            ax.annotate(f"1/{1 / p[2]:.0f}", (x, y), textcoords="offset points", xytext=(4, 3), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("CPU time of the run, s")
    unit = rows[0]["unit"] or "-"
    ax.set_ylabel(f"error, {unit} ({rows[0]['reference']})")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else f"{rows[0]['target']}: accuracy against cost")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2])


if __name__ == "__main__":
    main()
