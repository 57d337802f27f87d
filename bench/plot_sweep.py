#!/usr/bin/env python3
"""Draws the accuracy-against-cost plot of a `contactlab --sweep` CSV: error against CPU time per run, one line
per method (and per iteration count for a method swept over its iterations), each point labelled with its time
step where the label has room (overlapping labels, as of several runs exact to rounding, are left out).

Usage: python3 bench/plot_sweep.py sweep.csv out.png [title]
where sweep.csv comes from e.g.
  build/app/contactlab --sweep incline_friction --dt 1/30,1/60,1/100,1/200,1/500,1/1000 --out sweep.csv
Needs matplotlib (Debian: python3-matplotlib). Failed runs (no error) are left out and listed on stderr; lines
starting with '#' (the `# machine:` and `# command:` lines of bench/results/*.csv) are skipped.
"""

import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    # Lines starting with '#' (the machine and the command, as every CSV of bench/results/ opens) are not runs.
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
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
    labels = []  # (x, y, time step) of every point, labelled once the axes are laid out
    for key, points in sorted(series.items()):
        points.sort(key=lambda p: -p[2])
        xs = [max(p[0], 1e-6) for p in points]
        ys = [max(p[1], tiny) for p in points]
        ax.plot(xs, ys, marker="o", label=key)
        labels += [(x, y, p[2]) for x, y, p in zip(xs, ys, points)]
    ax.set_xscale("log")
    ax.set_yscale("log")
    if any(y <= tiny for _, y, _ in labels):  # the floor, only where a run reached it
        ax.axhline(tiny, color="grey", linewidth=0.8, linestyle=":")
        ax.annotate("1e-12 and below: exact to rounding", (0.01, tiny), xycoords=("axes fraction", "data"),
                    textcoords="offset points", xytext=(0, -10), fontsize=7, color="grey")
        bottom, top = ax.get_ylim()
        ax.set_ylim(min(bottom, tiny / 8), top)  # room under the floor for its note
    ax.set_xlabel("CPU time of the run, s")
    unit = rows[0]["unit"] or "-"
    ax.set_ylabel(f"error, {unit} ({rows[0]['reference']})")
    ax.set_title(sys.argv[3] if len(sys.argv) > 3 else f"{rows[0]['target']}: accuracy against cost")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if failed:  # the runs that gave no figure, named under the plot
        fig.text(0.01, 0.01, "no figure: " + "; ".join(failed), fontsize=7, wrap=True)
    fig.tight_layout(rect=(0, 0.05 if failed else 0, 1, 1))
    # Each point's time step beside it, unless the label would overlap one already placed (points that lie
    # together, such as several runs exact to rounding at the floor); the points off the floor are labelled first.
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    placed = []
    markers = {}  # each point's marker, in pixels: a label covers no other point's marker
    for x, y, _ in labels:
        px, py = ax.transData.transform((x, y))
        markers[(x, y)] = Bbox.from_extents(px - 4, py - 4, px + 4, py + 4)
    for x, y, dt in sorted(labels, key=lambda l: (l[1] <= tiny, l[0])):
        text = ax.annotate(f"1/{1 / dt:.0f}", (x, y), textcoords="offset points", xytext=(4, 3), fontsize=7)
        box = text.get_window_extent(renderer).expanded(1.05, 1.1)
        others = [m for point, m in markers.items() if point != (x, y)]
        if any(box.overlaps(other) for other in placed + others):
            text.remove()
        else:
            placed.append(box)
    fig.savefig(sys.argv[2])


if __name__ == "__main__":
    main()
