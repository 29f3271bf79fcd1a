#!/usr/bin/python3
"""Draws the figures of chapter 11 from the measurements in data/.

    /usr/bin/python3 chapters/11_occupancy/plot.py

needs Debian's python3-matplotlib and writes heavy_tuning.svg and
vadd_tuning.svg next to this script, from data/heavy_tuning_h200.csv and
data/vadd_tuning_h200.csv (tuning_sweep's output, see the chapter); without
them, each figure says that its data are missing.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import measurements  # noqa: E402  (chapters/measurements.py)

HERE = Path(__file__).resolve().parent
HEAVY = HERE / "data" / "heavy_tuning_h200.csv"
VADD = HERE / "data" / "vadd_tuning_h200.csv"
plt.rcParams["svg.hashsalt"] = "launchlab"  # the same data give the same file
plt.rcParams["svg.fonttype"] = "none"


def missing(name, path, what):
    measurements.save_missing(HERE / name, what, path.name)


def heavy():
    rows, comments, _ = measurements.read_measurements(HEAVY)
    # One point per variant: its fastest grid.
    best = {}
    for r in rows:
        if r["kind"] != "search":
            continue
        key = (int(r["block_size"]), int(r["min_blocks_per_sm"]))
        if key not in best or float(r["median_ms"]) < float(best[key]["median_ms"]):
            best[key] = r
    variants = sorted(best.items())
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for i, ((block, min_blocks), r) in enumerate(variants):
        spills = int(r["local_bytes"]) > 0
        y = float(r["median_ms"])
        ax.bar([i], [y], color="#c44e52" if spills else "#4c72b0")
        ax.text(i, y, f"{float(r['occupancy']) * 100:.0f}%\n{r['registers']}", ha="center", va="bottom", fontsize=7)
    ax.legend(handles=[Patch(color="#4c72b0", label="no spills"),
                       Patch(color="#c44e52", label="spills to local memory")], fontsize=8, loc="upper left")
    ax.set_xticks(range(len(variants)), [f"{b},{m}" for (b, m), _ in variants], rotation=45, fontsize=8)
    ax.set_xlabel("__launch_bounds__(block size, min blocks per SM); above each bar: occupancy and registers")
    ax.set_ylabel("ms for 2^22 elements (fastest grid)")
    ax.set_ylim(0, max(float(r["median_ms"]) for r in best.values()) * 1.3)
    ax.set_title("The heavy kernel, one bar per compiled variant", fontsize=10)
    measurements.save_figure(fig, HERE / "heavy_tuning.svg", comments[0] if comments else "")


def vadd():
    rows, comments, _ = measurements.read_measurements(VADD)
    copy = next(float(r["tb_per_s"]) for r in rows if r["kind"] == "copy")
    best = {}
    for r in rows:
        if r["kind"] != "search":
            continue
        key = (int(r["vector_width"]), int(r["unroll"]))
        best[key] = max(best.get(key, 0.0), float(r["tb_per_s"]))
    widths, unrolls = [1, 2, 4], [1, 2, 4, 8]
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    colors = {1: "#8da0cb", 2: "#66c2a5", 4: "#fc8d62", 8: "#e78ac3"}
    for j, u in enumerate(unrolls):
        xs = [i + (j - 1.5) * 0.2 for i in range(len(widths))]
        ax.bar(xs, [best.get((w, u), 0) for w in widths], width=0.2, color=colors[u], label=f"unroll {u}")
    # The two reference lines are named in the legend: labels on the lines
    # themselves would sit on the bars, which reach the same heights.
    ax.axhline(copy, color="#333333", linestyle="-", linewidth=1,
               label=f"device-to-device copy, {copy:.2f}")
    ax.axhline(0.9 * copy, color="#333333", linestyle="--", linewidth=1,
               label=f"90% of the copy, {0.9 * copy:.2f}")
    ax.set_xticks(range(len(widths)), ["float", "float2", "float4"])
    ax.set_ylabel("TB/s (12 bytes per element)")
    ax.set_ylim(0, copy * 1.45)
    ax.legend(fontsize=8, ncol=3, loc="upper center")
    ax.set_title("vadd on 2^28 floats: the best block and grid for each width and unroll", fontsize=10)
    measurements.save_figure(fig, HERE / "vadd_tuning.svg", comments[0] if comments else "")


def main():
    if HEAVY.exists():
        heavy()
    else:
        missing("heavy_tuning.svg", HEAVY, "the heavy kernel's time against its occupancy")
    if VADD.exists():
        vadd()
    else:
        missing("vadd_tuning.svg", VADD, "vadd's bandwidth by vector width and unroll")
    return 0


if __name__ == "__main__":
    sys.exit(main())
