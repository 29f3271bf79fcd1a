#!/usr/bin/python3
"""Draws the timeline of a recorded launch as an SVG.

    /usr/bin/python3 chapters/08_on_the_sm/plot_timeline.py \\
        labs/08_on_the_sm/fixtures/vadd_4096x256.csv \\
        chapters/08_on_the_sm/vadd_timeline.svg

The trace is a CSV written by record_trace (chapters/08_on_the_sm/
record_trace.cpp): `# key: value` lines, then block,sm,start_ns,end_ns,
warp_slots. The figure has two panels:

- the first SMs of the GPU, one band each: every block is a bar from its
  start to its end, drawn in the first free row of its SM's band, coloured by
  the round (wave) it ran in on that SM;
- the whole GPU: how many blocks were resident at each instant, against the
  most the GPU can hold (SMs x active blocks per SM, from the trace's header).

It also prints the numbers the chapter quotes: the span, the blocks per SM,
the most blocks resident on one SM, the waves and the tail (as the lab's
analysis.h defines them), and the smallest step between two timestamps.

Needs Debian's python3-matplotlib (apt-get install -y python3-matplotlib).
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
import measurements  # noqa: E402  (chapters/measurements.py)

SMS_SHOWN = 12


def read_trace(path):
    rows, _, meta = measurements.read_measurements(path)
    return meta, [
        {
            "block": int(row["block"]),
            "sm": int(row["sm"]),
            "start": int(row["start_ns"]),
            "end": max(int(row["end_ns"]), int(row["start_ns"]) + 1),
        }
        for row in rows
    ]


def lanes_and_rounds(blocks):
    """Row of each block in its SM's band (first row free at its start), and
    its round: its rank by start divided by the SM's most blocks at once."""
    blocks = sorted(blocks, key=lambda b: (b["start"], b["block"]))
    lane_free_at = []
    for b in blocks:
        for lane, free in enumerate(lane_free_at):
            if free <= b["start"]:
                b["lane"] = lane
                lane_free_at[lane] = b["end"]
                break
        else:
            b["lane"] = len(lane_free_at)
            lane_free_at.append(b["end"])
    peak = len(lane_free_at)
    for rank, b in enumerate(blocks):
        b["round"] = rank // peak
    return peak


def resident_over_time(rows, t0):
    events = sorted([(r["start"], 1) for r in rows] + [(r["end"], -1) for r in rows])
    times, counts, running = [0.0], [0], 0
    for t, delta in events:
        running += delta
        times.append((t - t0) / 1000.0)
        counts.append(running)
    return times, counts


def report(meta, rows, by_sm, peaks):
    t0 = min(r["start"] for r in rows)
    span = max(r["end"] for r in rows) - t0
    counts = [len(blocks) for blocks in by_sm.values()]
    waves = max(-(-len(by_sm[sm]) // peaks[sm]) for sm in by_sm)
    tail = max(r["end"] for r in rows) - max(r["start"] for r in rows)
    resident = sum(r["end"] - r["start"] for r in rows)
    utilization = min(1.0, resident / (len(by_sm) * max(peaks.values()) * span)) if span else 1.0
    stamps = sorted({r["start"] for r in rows} | {r["end"] for r in rows})
    step = min((b - a for a, b in zip(stamps, stamps[1:])), default=0)
    durations = sorted(r["end"] - r["start"] for r in rows)
    print(f"{meta.get('kernel', '?')} on the {meta.get('gpu', '?')} (driver {meta.get('driver', '?')})")
    print(f"  blocks {len(rows)}, SMs used {len(by_sm)} of {meta.get('sms', '?')}, "
          f"active blocks per SM (runtime) {meta.get('active_blocks_per_sm', '?')}, "
          f"registers per thread {meta.get('registers_per_thread', '?')}")
    print(f"  span {span / 1000:.2f} us, median block {durations[len(durations) // 2] / 1000:.2f} us")
    print(f"  blocks per SM: min {min(counts)}, max {max(counts)}; most resident on one SM {max(peaks.values())}")
    print(f"  waves {waves}, tail {tail / 1000:.2f} us, slot utilization {utilization:.3f}")
    print(f"  smallest step between two timestamps: {step} ns")


def main(trace_path, svg_path):
    meta, rows = read_trace(trace_path)
    t0 = min(r["start"] for r in rows)
    by_sm = {}
    for r in rows:
        by_sm.setdefault(r["sm"], []).append(r)
    peaks = {sm: lanes_and_rounds(blocks) for sm, blocks in by_sm.items()}
    report(meta, rows, by_sm, peaks)
    shown = sorted(by_sm)[:SMS_SHOWN]
    band = max(peaks[sm] for sm in shown) + 1

    plt.rcParams["svg.hashsalt"] = "launchlab-08"
    plt.rcParams["font.size"] = 9
    fig, (top, bottom) = plt.subplots(
        2, 1, figsize=(8.0, 6.4), sharex=True, gridspec_kw={"height_ratios": [2.2, 1]}
    )
    colours = plt.get_cmap("tab10").colors
    for i, sm in enumerate(shown):
        base = i * band
        for b in by_sm[sm]:
            top.barh(
                base + b["lane"],
                (b["end"] - b["start"]) / 1000.0,
                left=(b["start"] - t0) / 1000.0,
                height=0.8,
                color=colours[b["round"] % len(colours)],
                linewidth=0,
            )
    top.set_yticks([i * band + (band - 1) / 2 for i in range(len(shown))])
    top.set_yticklabels([f"SM {sm}" for sm in shown])
    top.set_ylim(-1, len(shown) * band)
    top.invert_yaxis()
    top.set_title(
        f"{meta.get('kernel', 'a traced launch')} on the {meta.get('gpu', 'GPU')}:\n"
        f"the first {len(shown)} of {len(by_sm)} SMs",
        fontsize=9,
    )
    top.text(
        1.0, -0.02, "colour: the round each block ran in on its SM",
        transform=top.transAxes, ha="right", va="top", fontsize=8,
    )

    times, counts = resident_over_time(rows, t0)
    bottom.step(times, counts, where="post", color="black", linewidth=1)
    if "sms" in meta and "active_blocks_per_sm" in meta:
        capacity = int(meta["sms"]) * int(meta["active_blocks_per_sm"])
        bottom.axhline(capacity, color="grey", linestyle="--", linewidth=1)
        # At the right end, where every launch has drained: at the left the
        # curve runs along the line and would cross the label.
        bottom.text(
            0.995, capacity, f"{meta['sms']} SMs x {meta['active_blocks_per_sm']} blocks = {capacity}",
            transform=bottom.get_yaxis_transform(), ha="right", va="bottom", fontsize=8, color="grey",
        )
        bottom.set_ylim(0, capacity * 1.25)
    bottom.set_ylabel("blocks resident\non the whole GPU")
    bottom.set_xlabel("time since the first block started (µs, %globaltimer)")
    bottom.set_xlim(0, max(times) * 1.02)
    fig.tight_layout()
    fig.savefig(svg_path, format="svg", metadata={"Date": None})


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_timeline.py TRACE.csv OUT.svg")
    main(sys.argv[1], sys.argv[2])
