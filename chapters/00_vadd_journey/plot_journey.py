#!/usr/bin/python3
"""Draws chapter 00's figure of the journey of one launch.

    /usr/bin/python3 chapters/00_vadd_journey/plot_journey.py

needs Debian's python3-matplotlib and writes journey.svg next to this script,
from data/journey.csv: one box per stage, in order, in the band of where it
runs (nvcc on the build machine, the CPU at run time, the GPU), with the
chapters that cover it.
"""

import csv
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "journey.csv"
OUT = HERE / "journey.svg"
plt.rcParams["svg.hashsalt"] = "launchlab"  # the same data give the same file
plt.rcParams["svg.fonttype"] = "none"

SIDES = {
    "build": ("built once, by nvcc", "#eef3fa", "#4c72b0"),
    "cpu": ("each launch, on the CPU", "#eef7f0", "#55a868"),
    "gpu": ("each launch, on the GPU", "#fbeeee", "#c44e52"),
}
ROW = 1.0  # height of one stage, in data units
BOX = 0.72


def read_stages():
    lines = [line for line in DATA.read_text().splitlines() if not line.startswith("#")]
    stages = list(csv.DictReader(lines))
    unknown = {s["side"] for s in stages} - SIDES.keys()
    if unknown:
        raise SystemExit(f"plot_journey: {DATA.name} names sides it should not: {sorted(unknown)}")
    return stages


def main():
    stages = read_stages()
    fig, ax = plt.subplots(figsize=(8, 0.62 * len(stages) + 0.5))
    width = 10.0
    # The bands, one per run of stages on the same side.
    start = 0
    for i in range(1, len(stages) + 1):
        if i == len(stages) or stages[i]["side"] != stages[start]["side"]:
            label, fill, edge = SIDES[stages[start]["side"]]
            ax.add_patch(Rectangle((0, start * ROW), width, (i - start) * ROW, facecolor=fill, edgecolor="none"))
            ax.text(0.12, (start + i) / 2 * ROW, label, rotation=90, ha="center", va="center", fontsize=7, color=edge)
            if start and stages[start]["side"] == "gpu":
                ax.plot([0, width], [start * ROW] * 2, ls="--", lw=0.8, color="#666666")
                # On the line, in the gap between two boxes, clear of both.
                ax.text(5.6, start * ROW, "CPU above, GPU below (across PCIe on most machines)",
                        ha="center", va="center", fontsize=6.5, color="#444444",
                        bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"})
            start = i
    for i, stage in enumerate(stages):
        _, _, edge = SIDES[stage["side"]]
        top = i * ROW + (ROW - BOX) / 2
        ax.add_patch(FancyBboxPatch((0.35, top), 8.55, BOX, boxstyle="round,pad=0,rounding_size=0.08",
                                    facecolor="white", edgecolor=edge, lw=1))
        ax.text(0.5, top + BOX / 2, stage["stage"], ha="left", va="center", fontsize=8.5, weight="bold")
        ax.text(2.35, top + BOX / 2, "\n".join(textwrap.wrap(stage["what"], 78)), ha="left", va="center", fontsize=7)
        ax.text(9.45, top + BOX / 2, stage["chapters"], ha="center", va="center", fontsize=7.5,
                bbox={"boxstyle": "round,pad=0.25", "facecolor": edge, "edgecolor": "none"}, color="white")
        if i + 1 < len(stages):
            ax.add_patch(FancyArrowPatch((1.2, top + BOX), (1.2, (i + 1) * ROW + (ROW - BOX) / 2),
                                         arrowstyle="-|>", mutation_scale=8, lw=0.9, color="#333333"))
    ax.text(9.45, -0.15, "chapter", ha="center", va="bottom", fontsize=6.5, color="#444444")
    ax.set_xlim(0, width)
    ax.set_ylim(len(stages) * ROW, -0.35)
    ax.axis("off")
    fig.tight_layout(pad=0.2)
    fig.savefig(OUT, metadata={"Date": None})
    plt.close(fig)
    print(f"wrote {OUT.relative_to(HERE.parent.parent)}")


if __name__ == "__main__":
    main()
