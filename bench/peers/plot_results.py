#!/usr/bin/env python3
"""Plots a contactlab_peers --csv file: per scene, each engine and method's median step time, drift and deepest
penetration, on log axes (runs stopped by the time budget are hatched, failed and declined ones marked).

Usage: python3 bench/peers/plot_results.py [bench/results/peers.csv] [assets/peers.svg]
Lines starting with '#' (the machine and the command) are skipped.
Needs numpy and matplotlib (Debian: python3-matplotlib).
"""

import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Each engine and method's colour: ContactLab's methods in blues and greens, the peers in warm colours.
COLOURS = {
    "lcp": "#1f4e99", "implicit-penalty": "#4a90d9", "volume": "#2a9d8f", "pid-penalty": "#8ecae6",
    "bullet": "#e76f51", "ode": "#f4a261", "mujoco": "#9b2226", "dart": "#6d597a",
}
PANELS = [("wall_ms_median", "ms per step (median)"), ("drift", "drift: largest body displacement (m)"),
          ("max_penetration", "deepest penetration (m)")]
FLOOR = 1e-7  # values below this (and zeros) are drawn at it, so log axes can show them


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "bench", "results", "peers.csv")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "assets", "peers.svg")
    with open(src, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    scenes = list(dict.fromkeys(r["scene"] for r in rows))
    lanes = list(dict.fromkeys(r["method"] if r["engine"] == "contactlab" else r["engine"] for r in rows))
    fig, axes = plt.subplots(len(PANELS), 1, figsize=(11, 10), sharex=True)
    width = 0.8 / len(lanes)
    x = np.arange(len(scenes))
    for ax, (column, title) in zip(axes, PANELS):
        for k, lane in enumerate(lanes):
            for i, scene in enumerate(scenes):
                match = [r for r in rows if r["scene"] == scene and
                         (r["method"] if r["engine"] == "contactlab" else r["engine"]) == lane]
                if not match:
                    continue
                r = match[0]
                pos = x[i] - 0.4 + width * (k + 0.5)
                if r["status"] in ("failed", "skipped") or int(r["steps"]) == 0:
                    # At the foot of the panel: x for a run that failed, - for one the engine declined.
                    ax.text(pos, 0.02, "x" if r["status"] == "failed" else "-", ha="center", va="bottom",
                            color=COLOURS.get(lane, "grey"), transform=ax.get_xaxis_transform())
                    continue
                value = max(float(r[column]), FLOOR)
                ax.bar(pos, value, width, color=COLOURS.get(lane, "grey"),
                       hatch="//" if r["status"] == "budget" else None, edgecolor="white", linewidth=0.3,
                       label=lane if i == 0 or lane not in ax.get_legend_handles_labels()[1] else None)
        ax.set_yscale("log")
        ax.set_ylabel(title)
        ax.grid(axis="y", which="major", alpha=0.3)
    axes[-1].set_xticks(x)
    axes[-1].set_xticklabels(scenes)
    handles, labels = axes[0].get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    axes[0].legend(seen.values(), seen.keys(), ncol=len(seen), fontsize=8, loc="upper left")
    steps = sorted({r["steps"] for r in rows if r["status"] == "ok"}, key=int)
    iterations = sorted({r["iterations"] for r in rows if r["iterations"]}, key=int)
    fig.suptitle("ContactLab's methods against Bullet, ODE and MuJoCo (contactlab_peers, "
                 f"{'/'.join(steps)} steps, {'/'.join(iterations)} iterations)\nhatched: stopped by the time budget "
                 "(fewer steps), x: failed, -: declined by the engine",
                 fontsize=10)
    fig.tight_layout()
    # No creation date in the file, so the same CSV gives the same picture.
    fig.savefig(out, metadata={"Date": None} if out.endswith(".svg") else None)
    print(out)


if __name__ == "__main__":
    main()
