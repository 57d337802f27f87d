#!/usr/bin/env python3
"""Draws the accuracy-against-cost plot of a `contactlab --sweep` CSV: error against CPU time per run, one line
per method (and per iteration count for a method swept over its iterations), each point labelled with its time
step.

Usage: python3 bench/plot_sweep.py sweep.csv out.png [title]
where sweep.csv comes from e.g.
  build/app/contactlab --sweep incline_friction --dt 1/30,1/60,1/100,1/200,1/500,1/1000 --out sweep.csv
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
    failed = []
    for r in rows:
        if r["error"] == "":
            print(f"left out: {r['solver']} dt {r['dt']}: {r['message']}", file=sys.stderr)
            failed.append(f"{r['solver']} at dt 1/{1 / float(r['dt']):.0f}: {r['message'].split(' (')[0]}")
            continue
        key = r["solver"] + (f" ({r['iterations']} iterations)" if r["iterations"] else "")
        series.setdefault(key, []).append((float(r["cpu_s"]), float(r["error"]), float(r["dt"])))
    fig, ax = plt.subplots(figsize=(9, 5.2), dpi=100)
    tiny = 1e-12  # an exact figure (error 0) drawn at the floor of the log axis
    for key, points in sorted(series.items()):
        points.sort(key=lambda p: -p[2])
        xs = [max(p[0], 1e-6) for p in points]
        ys = [max(p[1], tiny) for p in points]
        ax.plot(xs, ys, marker="o", label=key)
        for x, y, p in zip(xs, ys, points):
            ax.annotate(f"1/{1 / p[2]:.0f}", (x, y), textcoords="offset points", xytext=(4, 3), fontsize=7)
    ax.axhline(tiny, color="grey", linewidth=0.8, linestyle=":")
    ax.annotate("1e-12 and below: exact to rounding", (0.01, tiny), xycoords=("axes fraction", "data"),
                textcoords="offset points", xytext=(0, 4), fontsize=7, color="grey")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("CPU time of the run, s")
    unit = rows[0]["unit"] or "-"
    ax.set_ylabel(f"error, {unit} ({rows[0]['reference']})")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else f"{rows[0]['target']}: accuracy against cost")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if failed:  # the runs that gave no figure, named under the plot
        fig.text(0.01, 0.01, "no figure: " + "; ".join(failed), fontsize=7, wrap=True)
    fig.tight_layout(rect=(0, 0.05 if failed else 0, 1, 1))
    fig.savefig(sys.argv[2])


if __name__ == "__main__":
    main()
