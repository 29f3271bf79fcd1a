#!/usr/bin/python3
"""Draws grade-class's histograms: one panel per lab and one for the total.

usage: histograms.py SUMMARY.json OUT.png

SUMMARY.json is what `launchlab grade-class` writes (summary_json in
autograder/class/gradebook.cpp): {"labs": [{"name", "max_points", "points"}],
"total": {...}}. Debian's python3-matplotlib draws it, without a display.
Where the summary has leaderboards ({"leaderboards": [{"name", "ascending",
"places": [{"student", "value", "rank"}]}]}), leaderboard.png beside OUT.png
shows each as bars, best first.
"""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend is chosen first)


def draw(summary, png_path):
    columns = list(summary.get("labs", [])) + [summary["total"]]
    per_row = min(4, len(columns))
    rows = math.ceil(len(columns) / per_row)
    figure, axes = plt.subplots(rows, per_row, figsize=(4 * per_row, 3 * rows), squeeze=False)
    for panel, column in zip(axes.flat, columns):
        points = column.get("points", [])
        most = max([column.get("max_points", 0)] + points + [1])
        # One bar per point up to 20 points, wider bins above.
        width = max(1, math.ceil((most + 1) / 20))
        edges = [edge - 0.5 for edge in range(0, most + width + 1, width)]
        panel.hist(points, bins=edges, color="#4c72b0", edgecolor="white")
        panel.set_title(f"{column['name']} (max {column.get('max_points', 0)})", fontsize=10)
        panel.set_xlabel("points")
        panel.set_ylabel("students")
        panel.set_xlim(-0.5, most + 0.5)
        panel.yaxis.get_major_locator().set_params(integer=True)
    for panel in list(axes.flat)[len(columns):]:
        panel.set_visible(False)
    figure.suptitle(f"{summary.get('students', 0)} students")
    figure.tight_layout()
    figure.savefig(png_path, dpi=100)


def draw_leaderboards(boards, png_path):
    figure, axes = plt.subplots(len(boards), 1, figsize=(8, 0.4 * sum(len(b["places"]) for b in boards) + 1.5 * len(boards)),
                                squeeze=False)
    for panel, board in zip(axes.flat, boards):
        places = list(reversed(board["places"]))  # the best at the top
        panel.barh([f"{p['rank']}. {p['student']}" for p in places], [p["value"] for p in places], color="#55a868")
        better = "lower" if board.get("ascending") else "higher"
        panel.set_title(f"{board['name']} ({better} is better)", fontsize=10)
    figure.tight_layout()
    figure.savefig(png_path, dpi=100)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as source:
        summary = json.load(source)
    draw(summary, sys.argv[2])
    if summary.get("leaderboards"):
        draw_leaderboards(summary["leaderboards"], os.path.join(os.path.dirname(sys.argv[2]), "leaderboard.png"))


if __name__ == "__main__":
    main()
