"""Draws cold_start.svg from data/cold_start_h200.csv.

The CSV is what the chapter's measurement writes
(LAUNCHLAB_COLD_START_CSV): comment lines starting with '#', then
config,trial,quantity,value with one row per sample. The figure shows, for
each configuration, the median of each step of a cold start as a bar, and
the 25th to 75th percentile as a line through it.

Run with Debian's Python and matplotlib (apt-get install python3-matplotlib):

    /usr/bin/python3 chapters/05_driver_and_modules/plot_cold_start.py
"""

import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "cold_start_h200.csv"
FIGURE = HERE / "cold_start.svg"

CONFIGS = [
    ("cubin_eager", "cubin, EAGER"),
    ("cubin_lazy", "cubin, LAZY"),
    ("ptx_eager_nocache", "PTX, EAGER, no cache"),
    ("ptx_lazy_nocache", "PTX, LAZY, no cache"),
    ("ptx_lazy_warmcache", "PTX, LAZY, warm cache"),
]
STEPS = [
    ("init_ms", "cuInit"),
    ("context_ms", "cuCtxCreate"),
    ("load_ms", "module load"),
    ("get_function_ms", "cuModuleGetFunction"),
    ("first_launch_ms", "first launch"),
    ("second_launch_ms", "second launch"),
]


def quantile(values, q):
    """Linear interpolation between the closest ranks, as the lab's quantile."""
    x = sorted(values)
    h = (len(x) - 1) * q
    lo = int(h)
    if lo + 1 >= len(x):
        return x[-1]
    return x[lo] + (h - lo) * (x[lo + 1] - x[lo])


def main():
    samples = defaultdict(list)
    comments, lines = [], []
    with DATA.open() as f:
        for line in f:
            (comments if line.startswith("#") else lines).append(line)
    for row in csv.DictReader(lines):
        samples[(row["config"], row["quantity"])].append(float(row["value"]))

    fig, ax = plt.subplots(figsize=(10, 5.5))
    height = 0.8 / len(CONFIGS)
    for c, (config, label) in enumerate(CONFIGS):
        ys, medians, lows, highs = [], [], [], []
        for s, (step, _) in enumerate(STEPS):
            values = samples.get((config, step))
            if not values:
                sys.exit(f"{DATA}: no samples of {step} for {config}")
            median = statistics.median(values)
            ys.append(s + (c - (len(CONFIGS) - 1) / 2) * height)
            medians.append(median)
            lows.append(median - quantile(values, 0.25))
            highs.append(quantile(values, 0.75) - median)
        ax.barh(ys, medians, height=height, label=label, xerr=[lows, highs], capsize=2)
    ax.set_yticks(range(len(STEPS)))
    ax.set_yticklabels([name for _, name in STEPS])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("milliseconds (median; the line spans the 25th to the 75th percentile)")
    ax.set_title(comments[0].lstrip("# ").strip() if comments else "cold start", fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(FIGURE, metadata={"Date": None})
    print(f"wrote {FIGURE}")


if __name__ == "__main__":
    main()
