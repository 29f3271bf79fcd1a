#!/usr/bin/env bash
# Makes the tables of chapter 12 from the committed captures, with
# `launchlab trace --replay` (the reference build's, or yours once lab 12
# passes). Run from the repository root:
#
#   chapters/12_real_launch/data/make_tables.sh [path/to/launchlab-trace]
#
# The trace outputs trace_*.txt and trace_sgemm.json were made on the H200 by
# `launchlab trace -- PROGRAM` over autograder/trace/examples/ (see the chapter).
set -euo pipefail
trace=${1:-build/reference/autograder/trace/launchlab-trace}
captures=labs/12_real_launch/captures
out=chapters/12_real_launch/data

attribute() { grep -m1 "^kernel " "$captures/$1.capture" | grep -oE " $2=[0-9]+" | cut -d= -f2; }
launch_field() { grep -m1 "^launch 0 " "$captures/$1.capture" | grep -oE " $2=[0-9,]+" | cut -d= -f2; }
qmd() { "$trace" --replay "$captures/$1.capture" | grep -m1 -oE "$2"; }

for name in fill_1021x5x7_96x2 param_32764 launch_ex_cluster_2x2 streams_1_and_2 runtime_triple_chevron; do
  "$trace" --replay "$captures/$name.capture" >"$out/replay_$name.txt"
done
"$trace" --raw --replay "$captures/fill_1021x5x7_96x2.capture" | sed -n '/changed words/,$p' >"$out/replay_fill_1021x5x7_96x2_raw.txt"

{
  printf "%-20s %-28s %s\n" capture "CU_FUNC_ATTRIBUTE_NUM_REGS" "the QMD's REGISTER_COUNT"
  for name in registers_6 fill_1021x5x7_96x2 registers_12 registers_20 registers_32 heavy_registers registers_100; do
    printf "%-20s %-28s %s\n" "$name" "$(attribute "$name" registers)" "$(qmd "$name" '[0-9]+ registers' | cut -d' ' -f1)"
  done
} >"$out/registers.txt"

{
  printf "%-32s %-8s %-8s %s\n" capture static dynamic "the QMD's SHARED_MEMORY_SIZE"
  for name in shared_dynamic_0 shared_dynamic_4 shared_dynamic_1000 shared_dynamic_4096 shared_dynamic_49152 \
    shared_dynamic_200000 shared_static_4096 shared_static_4096_dynamic_1000; do
    printf "%-32s %-8s %-8s %s\n" "$name" "$(attribute "$name" shared_static)" "$(launch_field "$name" shared_dynamic)" \
      "$(qmd "$name" '[0-9]+ bytes of shared memory' | cut -d' ' -f1)"
  done
} >"$out/shared.txt"

{
  printf "%-14s %-12s %s\n" capture "parameters" "the QMD's constant bank 0 size"
  for name in empty_1_1 fill_1x1 mixed_params param_1024 param_4096 param_4100 param_8192 param_16384 param_32764; do
    printf "%-14s %-12s %s\n" "$name" "$(launch_field "$name" param_bytes)" \
      "$(qmd "$name" 'constant bank 0 at 0x[0-9a-f]+ \([0-9]+ bytes' | grep -oE '[0-9]+ bytes' | cut -d' ' -f1)"
  done
} >"$out/bank_sizes.txt"
# The two QMDs of the chapter's odd-shaped launch, word by word, from the trace's JSON: the
# data of the two 96-word LOAD_INLINE_DATA groups.
"$trace" --json --replay "$captures/fill_1021x5x7_96x2.capture" | python3 -c '
import json, sys
launch = json.load(sys.stdin)["launches"][0]
qmds = [g for g in launch["methods"] if g["name"] == "LOAD_INLINE_DATA" and len(g["data"]) == 96]
for title, group in zip(["the GRID_NULL QMD", "the kernel'"'"'s QMD"], qmds):
    print(f"{title}, LOAD_INLINE_DATA group [{group['"'"'index'"'"']}]:")
    for row in range(0, 64, 8):
        print(f"  word {row:2}: " + " ".join(f"{w:08x}" for w in group["data"][row:row + 8]))
    print("  words 64-95: " + ("all zero" if not any(group["data"][64:]) else "not all zero"))
' >"$out/qmds.txt"
# The channel captures add each launch's GPFIFO entry, GP_PUT and the
# semaphore release: one replay whole, and a line per entry of some more.
channel=$captures/channel
"$trace" --replay "$channel/fill_4096_256.capture" >"$out/replay_channel_fill_4096_256.txt"
{
  printf "%-26s %-7s %-14s %-9s %s\n" capture entry segment words "GP_PUT"
  for name in first_launch fill_4096_256 fill_1x1 empty_1_1 param_4096 param_32764 same_launch_twice \
    two_kernels streams_1_and_2 three_launches_stream_2; do
    "$trace" --replay "$channel/$name.capture" | sed -nE \
      -e 's/^  GPFIFO entry ([0-9]+) of the ring at (0x[0-9a-f]+).* = segment (0x[0-9a-f]+) \(GET_HI [0-9]+\), ([0-9]+) words.*/\1 \3 \4/p' \
      -e 's/^  USERD at 0x[0-9a-f]+: GP_PUT (0x[0-9a-f]+) -> (0x[0-9a-f]+).*/put \1->\2/p' |
      while read -r first second third; do
        if [[ $first == put ]]; then
          printf "%s\n" "$second"
        else
          printf "%-26s %-7s %-14s %-9s " "$name" "$first" "$second" "$third"
        fi
      done
  done
} >"$out/gpfifo.txt"
echo "wrote $out/replay_*.txt, registers.txt, shared.txt, bank_sizes.txt, qmds.txt, gpfifo.txt"
