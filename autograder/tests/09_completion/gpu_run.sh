#!/usr/bin/env bash
# The GPU side of 09_completion, run from the repository root on a machine
# with an NVIDIA GPU, the CUDA toolkit, cmake, ninja and GoogleTest:
#
#   OUT=/some/folder autograder/tests/09_completion/gpu_run.sh
#
# It builds the lab in build/gpu-09_completion, runs every test, GPU tests
# included: the reference program (the solution, checked against the
# expected values) and the exercise programs of the solution and of the
# starter, each with its transcript for the judge (the solution's must agree
# with the reference's, the starter's must not). Then it measures with the
# solution (chapters/09_completion/measure_completion.cpp linked against
# liblab_09_completion_solution.a):
# every way to wait, 1000 trials each in a process of its own, and copies of
# 4 KiB to 1 GiB, pageable and pinned, both directions, 10 trials each.
#
# It writes two files:
#   $OUT/09_completion-log.txt   everything the build, the tests and the measurements printed
#   $OUT/09_completion-data.tar  paths relative to the repository root:
#     chapters/09_completion/data/waits.csv           commit (figure and numbers)
#     chapters/09_completion/data/copies.csv          commit (figure and numbers)
#     gpu-report/09_completion-reference.json         the reference program's test report (not to commit)
#     gpu-report/09_completion-{reference,solution,starter}.jsonl
#                                                     the three transcripts (not to commit)
# Unpack with `tar -xf 09_completion-data.tar -C <repository>`, then redraw
# the figures (chapters/09_completion/plot_completion.py says how).
set -uo pipefail
: "${OUT:?set OUT to the folder the results go to}"

slug=09_completion
root=$(pwd)
build=$root/build/gpu-$slug
stage=$(mktemp -d)
log=$OUT/$slug-log.txt
export PATH=/usr/local/cuda/bin:$PATH
methods="stream-query-spin stream-sync-spin stream-sync-yield stream-sync-blocking event-sync-spin event-sync-blocking"

pack() { tar -C "$stage" -cf "$OUT/$slug-data.tar" . ; }
trap pack EXIT

transcript() {  # run a test program with its transcript in gpu-report/<slug>-<name>.jsonl
  local name=$1
  shift
  LAUNCHLAB_TRANSCRIPT_FD=3 "$@" 3>"$stage/gpu-report/$slug-$name.jsonl"
}

run() {  # run a step, log it, keep going on failure
  echo "== $*"
  "$@"
  local rc=$?
  echo "== exit status $rc"
  return $rc
}

{
  echo "== $slug on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs"
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max,pcie.link.gen.current,pcie.link.width.current --format=csv 2>&1 || true
  nvcc --version | tail -2

  run cmake -S "$root" -B "$build" -G Ninja -DLAUNCHLAB_LABS=$slug -DLAUNCHLAB_WITH_DOCS=OFF \
      -DCMAKE_BUILD_TYPE=Release || exit 1
  run cmake --build "$build" --target lab_${slug}_solution reference_${slug} test_${slug}_solution \
      test_${slug} || exit 1
  run nvcc -std=c++20 -O2 -I "$root/labs/$slug" "$root/chapters/$slug/measure_completion.cpp" \
      "$build/labs/$slug/liblab_${slug}_solution.a" -o "$build/measure_completion" || exit 1

  mkdir -p "$stage/chapters/$slug/data" "$stage/gpu-report"
  # The reference program checks the solution's records against the expected
  # values itself; the exercise programs (the solution's and the starter's)
  # only record, for the judge to compare with the reference's transcript.
  run transcript reference "$build/tests/reference_${slug}" --gtest_output=json:"$stage/gpu-report/$slug-reference.json"
  run transcript solution "$build/tests/test_${slug}_solution"
  run transcript starter "$build/tests/test_${slug}" --gtest_brief=1
  echo "== (judged against the reference's transcript, the starter is expected to fail)"

  m=$build/measure_completion
  waits=$stage/chapters/$slug/data/waits.csv
  {
    "$m" info
    echo "# command: for m in $methods; do measure_completion waits \$m 1000 50000; done"
    echo "method,trial,wake_ns,round_trip_ns"
    for method in $methods; do "$m" waits "$method" 1000 50000; done
  } > "$waits"
  echo "== waits.csv: $(grep -vc '^#' "$waits") lines"
  copies=$stage/chapters/$slug/data/copies.csv
  {
    "$m" info
    echo "# command: measure_completion copies 10"
    echo "memory,direction,bytes,trial,seconds"
    "$m" copies 10
  } > "$copies"
  echo "== copies.csv: $(grep -vc '^#' "$copies") lines"
  grep '^#' "$copies"
  # The link as sysfs reports it, now that the GPU has been busy: the PCI
  # address from the runtime, with a 4-digit domain as sysfs spells it.
  bus=$(grep '^# pci_bus_id: ' "$copies" | cut -d' ' -f3 | tr 'A-F' 'a-f')
  if [[ ${#bus} -ge 12 ]]; then
    dev=/sys/bus/pci/devices/${bus: -12}
    for f in max_link_speed max_link_width current_link_speed current_link_width; do
      echo "== $dev/$f: $(cat "$dev/$f" 2>&1)"
    done
  fi
} > "$log" 2>&1
