#!/usr/bin/env python3
"""Turns the scaling benchmark's JSON (bench/scaling_bench.cpp) into a CSV and a plot, and prints the tables.

Usage: /usr/bin/python3 bench/plot_scaling.py scaling.json [bench/results/scaling.csv] [assets/scaling.svg]
where scaling.json comes from
  ./build/bench/contactlab_bench --benchmark_filter='^BM_Scale' --benchmark_format=json --benchmark_out=scaling.json
Needs numpy and matplotlib (Debian: python3-matplotlib).

CSV: two comment lines (# machine: the benchmark JSON's host and its context; # command: what made it), then one
row per run: series (pyramid, tower, iterations), method, size (rows, boxes or iterations), then the
benchmark's counters, and status: ok, budget (stopped by the time budget, fewer steps), too slow (not started:
the previous size's time per step says it would not fit), failed (the step failed; note says why).
The slope of ms per step against contacts is fitted per method and family (least squares over the runs with
status ok or budget) and printed as us per contact.
"""

import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "contactlab"  # fixed ids in the SVG, so the same JSON gives the same file
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The colours of bench/peers/plot_results.py for ContactLab's methods.
COLOURS = {"lcp": "#1f4e99", "implicit-penalty": "#4a90d9", "volume": "#2a9d8f", "pid-penalty": "#8ecae6"}
METHODS = ["lcp", "implicit-penalty", "volume", "pid-penalty"]
SERIES = {"BM_ScalePyramid": "pyramid", "BM_ScaleTower": "tower", "BM_ScaleIterations": "iterations"}
COLUMNS = ["series", "method", "size", "bodies", "contacts_mean", "contacts_last", "ms_median", "ms_p95", "steps",
           "cpu_ms_per_step", "status", "heap_world_B", "heap_steps_B", "heap_per_body_B", "heap_per_contact_B", "note"]


def read_runs(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    rows = []
    for b in doc["benchmarks"]:
        # run_name: BM_ScalePyramid/lcp/10/iterations:1 (the method with '_' for '-').
        parts = b["run_name"].split("/")
        if parts[0] not in SERIES:
            continue
        row = {"series": SERIES[parts[0]], "method": parts[1].replace("_", "-"), "size": int(parts[2])}
        if b.get("error_occurred"):
            message = b.get("error_message", "")
            row["status"] = "too slow" if message.startswith("too slow") else "failed"
            row["note"] = message
        else:
            for c in COLUMNS[3:]:
                if c in b:
                    row[c] = b[c]
            # Google Benchmark's CPU time of the run per step (the benchmark's thread only, so not volume's image
            # workers; the world copy included): on a loaded machine the wall time per step is larger than this
            # by the time other processes ran.
            cpu_ms = b["cpu_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b["time_unit"]]
            row["cpu_ms_per_step"] = cpu_ms / b["steps"]
            row["status"] = "budget" if b.get("budget_stopped") else "ok"
            row["note"] = ""
        rows.append(row)
    return rows


def fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


def slope(runs, x_key="contacts_mean", y_key="ms_median"):
    """Least-squares slope and intercept of y against x over the runs that stepped, or None (fewer than 2)."""
    runs = [r for r in runs if r["status"] in ("ok", "budget")]
    if len(runs) < 2:
        return None
    x = np.array([r[x_key] for r in runs])
    y = np.array([r[y_key] for r in runs])
    if np.ptp(x) == 0:
        return None
    k, c = np.polyfit(x, y, 1)
    return k, c


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    out_csv = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "results", "scaling.csv")
    out_svg = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, "assets", "scaling.svg")
    rows = read_runs(src)
    with open(src, encoding="utf-8") as f:
        context = json.load(f).get("context", {})
    with open(out_csv, "w", newline="", encoding="utf-8") as f:
        f.write(f"# machine: {context.get('host_name', '?')}, {context.get('num_cpus', '?')} CPUs at "
                f"{context.get('mhz_per_cpu', '?')} MHz, {context.get('date', '?')}\n")
        f.write("# command: ./build/bench/contactlab_bench --benchmark_filter='^BM_Scale' --benchmark_out_format=json "
                "--benchmark_out=scaling.json && /usr/bin/python3 bench/plot_scaling.py scaling.json\n")
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({c: fmt(r.get(c, "")) for c in COLUMNS})
    print(out_csv)

    def runs(series, method):
        return [r for r in rows if r["series"] == series and r["method"] == method]

    def good(rs):
        return [r for r in rs if r["status"] in ("ok", "budget")]

    # Tables for docs/performance.md.
    print("\n| series | method | size | bodies | contacts (mean) | ms/step median (p95) | CPU ms/step | steps | "
          "heap B/body | heap B/contact |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["status"] in ("ok", "budget"):
            cells = [f"{r['bodies']:.0f}", f"{r['contacts_mean']:,.0f}",
                     f"{r['ms_median']:.3g} ({r['ms_p95']:.3g})", f"{r['cpu_ms_per_step']:.3g}",
                     f"{r['steps']:.0f}" + (" (budget)" if r["status"] == "budget" else ""),
                     f"{r['heap_per_body_B']:,.0f}", f"{r['heap_per_contact_B']:,.0f}"]
        else:
            cells = ["", "", r["status"], "", "", "", ""]
        print(f"| {r['series']} | `{r['method']}` | {r['size']} | " + " | ".join(cells) + " |")
    # Slopes: wall ms per step against the mean contacts (as us per contact), CPU ms per step against them, and
    # the heap grown over the steps against the last step's contacts (bytes per further contact), and the heap of
    # the world copy against the bodies (bytes per further body).
    print("\n| method | family | runs | wall us per contact (intercept ms) | CPU us per contact | "
          "heap B per further contact | heap B per further body |")
    print("|---|---|---|---|---|---|---|")
    fits = {}
    for m in METHODS:
        for family in ("pyramid", "tower"):
            rs = runs(family, m)
            fit = slope(rs)
            cpu = slope(rs, y_key="cpu_ms_per_step")
            heap = slope(rs, x_key="contacts_last", y_key="heap_steps_B")
            body = slope(rs, x_key="bodies", y_key="heap_world_B")
            fits[(m, family)] = (fit[0] * 1000.0, fit[1]) if fit else None
            cells = [f"{fit[0] * 1000.0:.3g} ({fit[1]:.3g})" if fit else "-",
                     f"{cpu[0] * 1000.0:.3g}" if cpu else "-", f"{heap[0]:,.0f}" if heap else "-",
                     f"{body[0]:,.0f}" if body else "-"]
            print(f"| `{m}` | {family} | {len(good(rs))} | " + " | ".join(cells) + " |")

    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    (a_bodies, a_iter), (a_contacts, a_memory) = axes
    for m in METHODS:
        colour = COLOURS[m]
        # ms/step against bodies, pyramids of 10 to 40 rows.
        rs = good(runs("pyramid", m))
        if rs:
            a_bodies.plot([r["bodies"] for r in rs], [r["ms_median"] for r in rs], "o-", color=colour, label=m)
            for r in rs:
                if r["status"] == "budget":
                    a_bodies.plot(r["bodies"], r["ms_median"], "o", mfc="white", color=colour)
        # ms/step against iterations.
        rs = good(runs("iterations", m))
        if rs:
            a_iter.plot([r["size"] for r in rs], [r["ms_median"] for r in rs], "o-", color=colour,
                        label=f"{m}, {rs[0]['bodies']:.0f} boxes")
        # ms/step against contacts: pyramids filled, towers hollow; the fitted slope in the legend.
        for family, marker in (("pyramid", "o-"), ("tower", "s--")):
            rs = good(runs(family, m))
            if not rs:
                continue
            fit = fits[(m, family)]
            label = f"{m}, {family}s" + (f": {fit[0]:.3g} us/contact" if fit else "")
            rs = sorted(rs, key=lambda r: r["contacts_mean"])
            a_contacts.plot([r["contacts_mean"] for r in rs], [r["ms_median"] for r in rs], marker, lw=0.8,
                            color=colour, mfc=colour if family == "pyramid" else "white", label=label)
    # Memory: heap bytes per body and per contact of each method, on the largest pyramid it ran (else tower).
    labels, per_body, per_contact = [], [], []
    for m in METHODS:
        rs = good(runs("pyramid", m)) or good(runs("tower", m))
        if not rs:
            continue
        r = max(rs, key=lambda r: r["bodies"])
        family = "pyramid" if r["series"] == "pyramid" else "tower"
        labels.append(f"{m}\n{family} {r['size']}")
        per_body.append(r["heap_per_body_B"])
        per_contact.append(r["heap_per_contact_B"])
    x = np.arange(len(labels))
    a_memory.bar(x - 0.2, per_body, 0.4, color="#1f4e99", label="heap per body (world copy)")
    a_memory.bar(x + 0.2, per_contact, 0.4, color="#e76f51", label="heap per contact (growth over the steps)")
    a_memory.set_xticks(x)
    a_memory.set_xticklabels(labels, fontsize=8)
    a_memory.set_ylabel("bytes")
    a_memory.legend(fontsize=8)
    a_memory.set_title("heap (mallinfo2) per body and per contact", fontsize=10)

    a_bodies.set(xscale="log", yscale="log", xlabel="dynamic bodies (pyramids of 10, 20, 30, 40 rows)",
                 ylabel="ms per step (median)")
    a_bodies.set_title("ms/step against bodies (hollow: stopped by the budget)", fontsize=10)
    a_iter.set(yscale="log", xlabel="iterations", ylabel="ms per step (median)")
    a_iter.set_title("ms/step against iterations (lcp: pyramid of 20 rows, volume: 10 rows)", fontsize=10)
    a_contacts.set(xscale="log", yscale="log", xlabel="contacts per step (mean)", ylabel="ms per step (median)")
    a_contacts.set_title("ms/step against contacts (filled: pyramids, hollow: towers; slope of a linear fit)",
                         fontsize=10)
    for ax in (a_bodies, a_iter, a_contacts):
        ax.grid(which="major", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("ContactLab scaling (bench/scaling_bench.cpp): dt 1/60 s, each method's defaults, every body awake",
                 fontsize=11)
    fig.tight_layout()
    # No creation date in the file, so the same JSON gives the same picture.
    fig.savefig(out_svg, metadata={"Date": None} if out_svg.endswith(".svg") else None)
    print(out_svg)


if __name__ == "__main__":
    main()
