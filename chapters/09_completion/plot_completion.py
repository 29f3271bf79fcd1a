#!/usr/bin/python3
"""Draws the chapter's two figures from the committed measurements.

    /usr/bin/python3 chapters/09_completion/plot_completion.py \\
        chapters/09_completion/data chapters/09_completion

reads data/waits.csv and data/copies.csv (written by measure_completion, see
labs/09_completion/gpu_steps.sh) and writes waits.svg and
copies.svg, and prints the medians the chapter quotes.

Needs Debian's python3-matplotlib (apt-get install -y python3-matplotlib).
"""

import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
import measurements  # noqa: E402  (chapters/measurements.py)

METHODS = [
    ("stream-query-spin", "loop on cudaStreamQuery"),
    ("stream-sync-spin", "cudaStreamSynchronize, ScheduleSpin"),
    ("stream-sync-yield", "cudaStreamSynchronize, ScheduleYield"),
    ("stream-sync-blocking", "cudaStreamSynchronize, ScheduleBlockingSync"),
    ("event-sync-spin", "cudaEventSynchronize"),
    ("event-sync-blocking", "cudaEventSynchronize, cudaEventBlockingSync"),
]


def read(path):
    rows, _, meta = measurements.read_measurements(path)
    return meta, rows


def percentile(sorted_values, p):
    k = (len(sorted_values) - 1) * p
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def plot_waits(data_dir, out_dir):
    meta, rows = read(os.path.join(data_dir, "waits.csv"))
    fig, ax = plt.subplots(figsize=(8.0, 3.6))
    labels, low, high = [], float("inf"), 0.0
    print("wait method: median wake (us), median round trip (us), p5-p95 wake (us)")
    for i, (name, label) in enumerate(METHODS):
        wake = sorted(int(r["wake_ns"]) / 1000.0 for r in rows if r["method"] == name)
        trip = [int(r["round_trip_ns"]) / 1000.0 for r in rows if r["method"] == name]
        if not wake:
            continue
        labels.append((i, label))
        p5, p25, p50, p75, p95 = (percentile(wake, p) for p in (0.05, 0.25, 0.5, 0.75, 0.95))
        low, high = min(low, p5), max(high, p95)
        ax.plot([p5, p95], [i, i], color="black", linewidth=1)
        ax.barh(i, p75 - p25, left=p25, height=0.5, color="#9ecae1", edgecolor="black", linewidth=0.8)
        ax.plot([p50, p50], [i - 0.25, i + 0.25], color="black", linewidth=2)
        ax.text(p95, i, f"  {p50:.1f} µs", va="center", fontsize=8)
        print(f"  {name}: {p50:.2f}, {statistics.median(trip):.2f}, {p5:.2f}-{p95:.2f} ({len(wake)} trials)")
    ax.set_yticks([i for i, _ in labels])
    ax.set_yticklabels([label for _, label in labels], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    # Ticks at 1, 2, 5 x powers of ten, from below the fastest 5% to well past
    # the slowest 95% (room for the median's label).
    low, high = max(low / 1.5, 0.01), high * 3
    ticks = [m * 10.0**e for e in range(-2, 8) for m in (1, 2, 5) if low <= m * 10.0**e <= high]
    ax.set_xlim(low, high)
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("wake-up (µs): from another thread seeing the kernel's last write\n"
                  "to the wait returning. Box: 25-75%, line: 5-95%, bar: median")
    ax.set_title(f"How soon each wait notices a finished kernel, on the {meta.get('gpu', 'GPU')}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "waits.svg"), format="svg", metadata={"Date": None})


def size_label(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n // scale} {unit}"
    return f"{n} B"


def plot_copies(data_dir, out_dir):
    meta, rows = read(os.path.join(data_dir, "copies.csv"))
    fig, ax = plt.subplots(figsize=(8.0, 4.0))
    styles = {
        ("pinned", "h2d"): ("pinned, host to device", "#08519c", "-"),
        ("pinned", "d2h"): ("pinned, device to host", "#08519c", "--"),
        ("pageable", "h2d"): ("pageable, host to device", "#cb181d", "-"),
        ("pageable", "d2h"): ("pageable, device to host", "#cb181d", "--"),
    }
    sizes = sorted({int(r["bytes"]) for r in rows})
    print("copy: GB/s (and the median time of one copy) at each size")
    for (memory, direction), (label, colour, dash) in styles.items():
        points = []
        for size in sizes:
            seconds = [float(r["seconds"]) for r in rows
                       if r["memory"] == memory and r["direction"] == direction and int(r["bytes"]) == size]
            if seconds:
                points.append((size, size / statistics.median(seconds) / 1e9, statistics.median(seconds)))
        if not points:
            continue
        ax.plot([p[0] for p in points], [p[1] for p in points], dash, marker="o", markersize=3,
                color=colour, label=label)
        print(f"  {label}: " + ", ".join(f"{size_label(s)} {g:.2f} ({t * 1e6:.1f} us)" for s, g, t in points))
    if "link_max_bytes_per_second" in meta:
        limit = float(meta["link_max_bytes_per_second"]) / 1e9
        ax.axhline(limit, color="grey", linestyle=":", linewidth=1)
        ax.text(sizes[-1], limit, f"{meta.get('link_max', 'the link')}: {limit:.1f} GB/s each way ",
                va="bottom", ha="right", fontsize=8, color="grey")
        ax.set_ylim(0, limit * 1.12)
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([size_label(s) for s in sizes], fontsize=8)
    ax.set_xlabel("bytes per cudaMemcpy")
    ax.set_ylabel("GB/s (10^9 bytes/s), median")
    ax.set_title(f"cudaMemcpy on the {meta.get('gpu', 'GPU')}", fontsize=9)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(0.0, 0.55))
    if "link_max_bytes_per_second" not in meta:
        ax.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "copies.svg"), format="svg", metadata={"Date": None})


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_completion.py DATA_DIR OUT_DIR")
    plt.rcParams["svg.hashsalt"] = "launchlab-09"
    plt.rcParams["font.size"] = 9
    plot_waits(sys.argv[1], sys.argv[2])
    plot_copies(sys.argv[1], sys.argv[2])
