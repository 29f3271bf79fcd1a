#!/usr/bin/python3
"""Draws chapter 07's figure of the three QMD layouts from the course's field table.

    /usr/bin/python3 chapters/07_qmd/plot_layout.py

needs Debian's python3-matplotlib and writes qmd_layout.svg next to this
script. The bit ranges are every line of autograder/tests/07_qmd/fields.csv
(the table the lab's tests check against, copied from NVIDIA's class
headers); the size of each version in words is the lab's, from the
QmdVersion enumerators' comments in labs/07_qmd/qmd.h. Each row is one 32-bit
word, bit 31 on the left as the headers count; words that hold none of the
lab's fields are folded into one gap row.
"""

import csv
import re
from pathlib import Path

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
FIELDS = ROOT / "autograder" / "tests" / "07_qmd" / "fields.csv"
HEADER = ROOT / "labs" / "07_qmd" / "qmd.h"
OUT = HERE / "qmd_layout.svg"
plt.rcParams["svg.hashsalt"] = "launchlab"  # the same data give the same file
plt.rcParams["svg.fonttype"] = "none"

# The lab's fields in groups, by the start of their name in fields.csv.
GROUPS = [
    ("major_version", "version", "#8c8c8c"),
    ("minor_version", "version", "#8c8c8c"),
    ("grid_", "grid (blocks)", "#4c72b0"),
    ("block_", "block (threads)", "#55a868"),
    ("registers", "registers, barriers", "#c44e52"),
    ("barrier_count", "registers, barriers", "#c44e52"),
    ("shared_memory", "shared memory", "#8172b2"),
    ("program_address", "program address", "#ccb974"),
    ("cbank0_", "constant bank 0", "#64b5cd"),
    ("sass_version", "SASS version", "#937860"),
    ("release0_", "release semaphore 0", "#da8bc3"),
]
ERAS = {3: "Ampere, Ada", 4: "Hopper", 5: "Blackwell"}


def group_of(field):
    for prefix, name, color in GROUPS:
        if field.startswith(prefix):
            return name, color
    raise SystemExit(f"plot_layout: {FIELDS.name} has a field no group takes: {field}")


def read_fields():
    lines = [line for line in FIELDS.read_text().splitlines() if not line.startswith("#")]
    fields = {}
    for row in csv.DictReader(lines):
        fields.setdefault(int(row["version"]), []).append(
            (row["field"], row["header_name"], int(row["hi"]), int(row["lo"]))
        )
    return fields


def read_sizes():
    """Each version's size in words, as the lab's header states it."""
    sizes = {
        int(version): int(words)
        for version, words in re.findall(r"V0(\d)_00 = \d+,\s*///<[^\n]*?(\d+) words", HEADER.read_text())
    }
    if not sizes:
        raise SystemExit(f"plot_layout: no 'NN words' in the QmdVersion comments of {HEADER}")
    return sizes


def pieces(hi, lo):
    """A range cut at word boundaries: (word, high bit, low bit) within each word."""
    while lo <= hi:
        word = lo // 32
        top = min(hi, word * 32 + 31)
        yield word, top % 32, lo % 32
        lo = top + 1


def short_name(header_name):
    name = header_name.replace("(0)", "")
    for long, short in (("CONSTANT_BUFFER_", "CB_"), ("RELEASE_SEMAPHORE0_", "REL0_"), ("CTA_THREAD_DIMENSION", "CTA_DIM")):
        name = name.replace(long, short)
    return re.sub(r"_SHIFTED\d", "", name)


def draw(ax, version, fields, words):
    used = sorted({w for _, _, hi, lo in fields for w, _, _ in pieces(hi, lo)})
    rows = []  # (label, word or None)
    previous = -1
    for word in used:
        if word > previous + 1:
            rows.append((f"words {previous + 1}-{word - 1}" if word - previous > 2 else f"word {previous + 1}", None))
        rows.append((f"word {word}", word))
        previous = word
    if previous < words - 1:
        rows.append((f"words {previous + 1}-{words - 1}", None))
    y_of = {word: i for i, (_, word) in enumerate(rows) if word is not None}

    for i, (label, word) in enumerate(rows):
        ax.add_patch(Rectangle((0, i), 32, 1, facecolor="white" if word is not None else "#f2f2f2", edgecolor="#bbbbbb", lw=0.5))
    for field, header_name, hi, lo in fields:
        _, color = group_of(field)
        for word, top, bottom in pieces(hi, lo):
            x = 31 - top  # bit 31 on the left
            width = top - bottom + 1
            ax.add_patch(Rectangle((x, y_of[word]), width, 1, facecolor=color, edgecolor="black", lw=0.5))
            # The longest label that fits in the bar (about one character a bit here).
            for label in (f"{short_name(header_name)} {hi}:{lo}", short_name(header_name)):
                if len(label) <= width:
                    ax.text(x + width / 2, y_of[word] + 0.55, label, ha="center", va="center", fontsize=6)
                    break
    ax.set_xlim(0, 32)
    ax.set_ylim(len(rows), 0)
    ax.set_yticks([i + 0.5 for i in range(len(rows))], [label for label, _ in rows], fontsize=6)
    ax.set_xticks([0.5, 8.5, 16.5, 24.5, 31.5], ["31", "23", "15", "7", "0"], fontsize=6)
    ax.set_xlabel("bit of the word", fontsize=7)
    ax.tick_params(length=0)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.set_title(f"V0{version}_00, {ERAS.get(version, '')}\n{words} words, {words * 4} bytes", fontsize=8)


def main():
    fields = read_fields()
    sizes = read_sizes()
    versions = sorted(fields)
    rows_needed = max(len({w for _, _, hi, lo in fields[v] for w, _, _ in pieces(hi, lo)}) * 2 for v in versions)
    fig, axes = plt.subplots(1, len(versions), figsize=(8, 0.2 * rows_needed + 1.4))
    for ax, version in zip(axes, versions):
        draw(ax, version, fields[version], sizes[version])
    legend = {}
    for field, *_ in fields[versions[0]]:
        name, color = group_of(field)
        legend.setdefault(name, color)
    fig.legend(handles=[Patch(facecolor=c, edgecolor="black", label=n) for n, c in legend.items()],
               loc="lower center", ncol=(len(legend) + 1) // 2, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(OUT, metadata={"Date": None})
    plt.close(fig)
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
