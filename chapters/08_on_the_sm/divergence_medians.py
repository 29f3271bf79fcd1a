#!/usr/bin/python3
"""Prints the median time of each split in a divergence CSV written by
`record_trace divergence`, and its ratio to the unsplit kernel:

    /usr/bin/python3 chapters/08_on_the_sm/divergence_medians.py chapters/08_on_the_sm/data/divergence.csv
"""

import csv
import statistics
import sys

with open(sys.argv[1], newline="") as f:
    meta = [line.strip() for line in f if line.startswith("#")]
    f.seek(0)
    rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
for line in meta:
    print(line)
medians = {}
for split in ("none", "between_warps", "inside_warps"):
    times = [float(r["ms"]) for r in rows if r["split"] == split]
    medians[split] = statistics.median(times)
    print(f"{split}: median {medians[split]:.3f} ms of {len(times)} launches, "
          f"{medians[split] / medians['none']:.2f} x none")
