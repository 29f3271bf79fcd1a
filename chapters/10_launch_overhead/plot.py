#!/usr/bin/python3
"""Draws the figures of chapter 10 from the measurements in data/.

    /usr/bin/python3 chapters/10_launch_overhead/plot.py

needs Debian's python3-matplotlib and writes launch_costs.svg,
param_size.svg and latency_drift.svg next to this script.
data/launch_overhead_h200.csv is launch_bench --all's output,
data/latency_drift_h200.csv launch_bench --drift 20's, and
data/latency_runs_h200*.csv hold the runs of launch_bench --latency-only
(see the chapter); without its data, a figure says that they are missing.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import measurements  # noqa: E402  (chapters/measurements.py)

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "launch_overhead_h200.csv"
DRIFT = HERE / "data" / "latency_drift_h200.csv"
RUNS = [HERE / "data" / "latency_runs_h200.csv", HERE / "data" / "latency_runs_h200_repeat.csv"]
plt.rcParams["svg.hashsalt"] = "launchlab"  # the same data give the same file
plt.rcParams["svg.fonttype"] = "none"


def missing(name, what, data=DATA):
    measurements.save_missing(HERE / name, what, data.name)


def launch_costs(rows, source):
    def median(name, clock="host"):
        for r in rows:
            if r["name"] == name and r["clock"] == clock:
                return float(r["median_us"]), float(r["p10_us"]), float(r["p90_us"])
        return None

    bars = [("launch + synchronize", "launch_latency"),
            ("back-to-back launches", "launch_throughput"),
            ("graph of 1 kernel", "graph_1"),
            ("graph of 10 kernels", "graph_10"),
            ("graph of 100 kernels", "graph_100"),
            ("graph of 1000 kernels", "graph_1000")]
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    labels, values, lows, highs = [], [], [], []
    for label, name in bars:
        m = median(name)
        if m is None:
            continue
        labels.append(label)
        values.append(m[0])
        lows.append(m[0] - m[1])
        highs.append(m[2] - m[0])
    y = range(len(labels))
    ax.barh(y, values, xerr=[lows, highs], color="#4c72b0", ecolor="#333333", capsize=3)
    # Each label starts a little past the end of its bar's error bar, so
    # that the bar's cap never runs through the digits.
    for i, v, hi in zip(y, values, highs):
        ax.annotate(f"{v:.2f} µs", (v + hi, i), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize=9)
    ax.set_yticks(list(y), labels)
    ax.invert_yaxis()
    ax.set_xlabel("microseconds per kernel (median; bars: 10th to 90th percentile)")
    ax.set_xlim(0, max(values) * 1.35)
    ax.set_title("An empty kernel <<<1, 1>>>, host clock", fontsize=10)
    measurements.save_figure(fig, HERE / "launch_costs.svg", source)


def param_size(rows, source):
    points = sorted((int(r["param_bytes"]), float(r["median_us"]), float(r["p10_us"]), float(r["p90_us"]))
                    for r in rows if r["name"] == "param_launch")
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    x = [max(p[0], 1) for p in points]  # 0 bytes is drawn at 1 on the log axis
    ax.errorbar(x, [p[1] for p in points],
                yerr=[[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]],
                marker="o", color="#c44e52", capsize=3)
    ax.set_xscale("log", base=2)
    ax.set_xticks(x, ["0" if p[0] == 0 else f"{p[0]:,}" for p in points], rotation=30, fontsize=8)
    ax.set_xlabel("parameter bytes (one struct passed by value)")
    ax.set_ylabel("µs per back-to-back launch")
    ax.set_ylim(0, max(p[3] for p in points) * 1.15)
    ax.grid(True, alpha=0.3)
    ax.set_title("Launches of 200 kernels in a row, host clock", fontsize=10)
    measurements.save_figure(fig, HERE / "param_size.svg", source)


def latency_drift(windows, source, run_sets):
    """Left: each half second of one process, the round trip cut in two.
    Right: the median of each whole run, one process each."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.5, 3.6), width_ratios=(3, 1), sharey=True)
    t = [float(w["start_s"]) + 0.25 for w in windows]
    for key, label, color in (("median_us", "round trip", "#4c72b0"),
                              ("wait_us", "cudaStreamSynchronize", "#55a868"),
                              ("launch_call_us", "launch call <<<>>>", "#c44e52")):
        left.plot(t, [float(w[key]) for w in windows], marker=".", color=color, label=label)
    left.set_xlabel("seconds into one process (median of each half second)")
    left.set_ylabel("microseconds")
    left.set_ylim(0, max(float(w["median_us"]) for w in windows) * 1.15)
    left.grid(True, alpha=0.3)
    left.legend(fontsize=8, loc="lower right")
    left.set_title("An empty kernel <<<1, 1>>>, launched and waited for", fontsize=10)
    for i, (label, medians) in enumerate(run_sets):
        # Side by side in the order they ran, so that no point hides another.
        offsets = [(k - (len(medians) - 1) / 2) * 0.08 for k in range(len(medians))]
        right.plot([i + o for o in offsets], medians, "o", color="#4c72b0")
    right.set_xticks(range(len(run_sets)), [label for label, _ in run_sets], fontsize=8)
    right.set_xlim(-0.6, len(run_sets) - 0.4)
    right.grid(True, axis="y", alpha=0.3)
    right.set_title("medians of whole runs", fontsize=10)
    measurements.save_figure(fig, HERE / "latency_drift.svg", source)


def main():
    if DRIFT.exists() and all(r.exists() for r in RUNS):
        windows, comments = measurements.read_measurements(DRIFT)[:2]
        run_sets = [(label, [float(r["median_us"]) for r in measurements.read_measurements(path)[0] if r["median_us"]])
                    for label, path in zip(("five runs", "five more"), RUNS)]
        latency_drift(windows, comments[0] if comments else "", run_sets)
    else:
        missing("latency_drift.svg", "the latency over time and across runs", DRIFT)
    if not DATA.exists():
        missing("launch_costs.svg", "launch latency, throughput and graphs")
        missing("param_size.svg", "launch cost against parameter size")
        return 0
    rows, comments = measurements.read_measurements(DATA)[:2]
    source = comments[0] if comments else ""
    launch_costs(rows, source)
    param_size(rows, source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
