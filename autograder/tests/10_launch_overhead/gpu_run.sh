#!/usr/bin/env bash
# Chapter 10 on a GPU machine: builds the lab from solutions/, runs its tests,
# measures the figures the chapter plots, follows the latency for 20 seconds,
# and runs the reference harness's launch latency five times in five processes.
#
# Run from the repository root:  bash autograder/tests/10_launch_overhead/gpu_run.sh
# Needs nvcc, cmake, ninja and GoogleTest; takes about three minutes (the
# build, then about two minutes of measurements).
#
# Writes two files to $OUT (or build/gpu-10_launch_overhead-out without $OUT):
#   10_launch_overhead-log.txt   everything printed: the build, the tests, where launch_bench ran
#                                (its CPUs, spin scheduling), how long each measurement took,
#                                the five medians and their CV
#   10_launch_overhead-data.tar  launch_overhead_h200.csv   every measurement of launch_bench --all
#                                latency_drift_h200.csv     launch_bench --drift 20: each half second's medians of the round
#                                                           trip, its launch call and its wait; the steal time
#                                latency_runs_h200.csv      the five latency runs (median, p10, p90, trials,
#                                                           the lowest and highest median of a tenth of the run)
#                                tests.json                 GoogleTest's results of the reference program
#                                reference.jsonl            its transcript
#                                solution.jsonl             the exercise program's transcript (the solution as the
#                                                           learner's files), to judge against reference.jsonl
# The three CSV files belong in chapters/10_launch_overhead/data/.
set -uo pipefail

slug=10_launch_overhead
root=$(pwd)
build=$root/build/gpu-$slug
out=${OUT:-$root/build/gpu-$slug-out}
mkdir -p "$out"
data=$(mktemp -d)
log=$out/$slug-log.txt
export PATH=/usr/local/cuda/bin:$PATH

main() {
status=0

echo "== configure and build (solutions/ as the learner's tree)"
cmake -S "$root" -B "$build" -G Ninja -DLAUNCHLAB_LABS=$slug -DLAUNCHLAB_LEARNER_TREE=solutions \
  -DLAUNCHLAB_WITH_SOLUTIONS=OFF -DLAUNCHLAB_WITH_DOCS=OFF -DCMAKE_BUILD_TYPE=Release || return 1
cmake --build "$build" --target reference_$slug test_$slug lab_$slug || return 1
nvcc -std=c++20 -O2 -arch=native -I "$root/labs/$slug" \
  "$root/autograder/tests/$slug/bench/launch_bench.cu" "$build/labs/$slug/liblab_$slug.a" \
  -o "$build/launch_bench" || return 1

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
cuda=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
echo "== GPU: ${gpu:-unknown}; CUDA $cuda"

# launch_bench places itself: spin-wait scheduling, the process on the CPUs
# next to the GPU, its measuring thread on one of them (the same in every
# run), one second of settling launches; it says where on standard error.
# No taskset here: one CPU for the whole process would put the driver's own
# threads on the core the measuring thread spins on.

echo "== tests"
# The reference program checks the solution's records against the expected
# values itself; the exercise program (here on the solution too) only
# records, and its transcript must agree with the reference's.
LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/reference_$slug" --gtest_output=json:"$data/tests.json" \
  3>"$data/reference.jsonl" || status=1
LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/test_$slug" 3>"$data/solution.jsonl" || status=1

# Each run of launch_bench under a time limit, so that a run that hangs says
# so instead of taking the machine's whole allowance with it.
bench() {
  local limit=$1
  shift
  timeout "$limit" "$build/launch_bench" "$@"
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "launch_bench $*: exit status $rc$([ "$rc" -eq 124 ] && echo ", stopped after $limit s")" >&2
  fi
  return "$rc"
}

echo "== launch_bench --all"
{
  echo "# ${gpu:-unknown GPU}, CUDA $cuda"
  echo "# made by: bash autograder/tests/$slug/gpu_run.sh (launch_bench --all, the lab built from solutions/)"
  bench 180 --all
} > "$data/launch_overhead_h200.csv" || status=1
cat "$data/launch_overhead_h200.csv"

echo "== the latency over 20 seconds, launch_bench --drift 20"
{
  echo "# ${gpu:-unknown GPU}, CUDA $cuda"
  echo "# made by: bash autograder/tests/$slug/gpu_run.sh (launch_bench --drift 20)"
  bench 60 --drift 20
} > "$data/latency_drift_h200.csv" || status=1
cat "$data/latency_drift_h200.csv"

echo "== launch + synchronize latency, five runs of launch_bench --latency-only"
{
  echo "# ${gpu:-unknown GPU}, CUDA $cuda"
  echo "# made by: bash autograder/tests/$slug/gpu_run.sh (launch_bench --latency-only, five processes one after the other; every run kept)"
  echo "run,median_us,p10_us,p90_us,trials,converged,tenths_min_us,tenths_max_us"
  for run in 1 2 3 4 5; do
    line=$(bench 90 --latency-only) || status=1
    echo "$run,$line"
  done
} > "$data/latency_runs_h200.csv" || status=1
cat "$data/latency_runs_h200.csv"
awk -F, '$1 ~ /^[0-9]+$/ && $2 != "" { x[n++] = $2 }
  END {
    if (n < 2) { print "fewer than two runs"; exit 1 }
    for (i = 0; i < n; i++) s += x[i]; m = s / n
    for (i = 0; i < n; i++) v += (x[i] - m) ^ 2; sd = sqrt(v / (n - 1))
    printf "%d medians: ", n; for (i = 0; i < n; i++) printf "%.3f ", x[i]
    printf "us\nmean %.3f us, standard deviation %.3f us, CV %.2f%% (at most 3%% is the goal)\n", m, sd, 100 * sd / m
  }' "$data/latency_runs_h200.csv" || status=1

tar -cf "$out/$slug-data.tar" -C "$data" . || status=1
rm -rf "$data"
echo "== done (status $status): $out/$slug-log.txt, $out/$slug-data.tar"
return $status
}

main 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
