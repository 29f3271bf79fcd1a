#!/usr/bin/env bash
# Chapter 11 on a GPU machine: builds the lab from solutions/, runs its tests,
# makes the table of cudaOccupancyMaxActiveBlocksPerMultiprocessor's answers
# that the CPU tests read, and measures the tuning figures the chapter plots
# (with the device-to-device copy bandwidth and the reference vadd's).
#
# Run from the repository root:  bash autograder/tests/11_occupancy/gpu_run.sh
# Needs nvcc, cmake, ninja and GoogleTest; takes about two minutes.
#
# Writes two files to $OUT (or build/gpu-11_occupancy-out without $OUT):
#   11_occupancy-log.txt   everything printed: the build, the tests, the copy and vadd bandwidths
#   11_occupancy-data.tar  occupancy_sm90.csv   -> autograder/tests/11_occupancy/fixtures/
#                          vadd_tuning_h200.csv  -> chapters/11_occupancy/data/
#                          heavy_tuning_h200.csv -> chapters/11_occupancy/data/
#                          tests.json            the reference program's results (before the table existed)
#                          reference.jsonl       its transcript
#                          solution.jsonl        the exercise program's transcript (the solution as the learner's
#                                                files), to judge against reference.jsonl
#                          tests_with_table.json the reference program's results with the new table in place
set -uo pipefail

slug=11_occupancy
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
nvcc -std=c++20 -O2 -arch=native -I "$root/autograder/tests/$slug" \
  "$root/autograder/tests/$slug/tools/occupancy_table.cu" -o "$build/occupancy_table" || return 1
nvcc -std=c++20 -O2 -arch=native -I "$root/labs/$slug" \
  "$root/autograder/tests/$slug/tools/tuning_sweep.cu" "$build/labs/$slug/liblab_$slug.a" \
  -o "$build/tuning_sweep" || return 1

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
cuda=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
echo "== GPU: ${gpu:-unknown}; CUDA $cuda"

echo "== tests"
# The reference program checks the solution's records against the expected
# values itself; the exercise program (here on the solution too) only
# records, and its transcript must agree with the reference's.
LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/reference_$slug" --gtest_output=json:"$data/tests.json" \
  3>"$data/reference.jsonl" || status=1
LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/test_$slug" 3>"$data/solution.jsonl" || status=1

echo "== the occupancy table (occupancy_table 600)"
{
  echo "# ${gpu:-unknown GPU}, CUDA $cuda; bash autograder/tests/$slug/gpu_run.sh"
  "$build/occupancy_table" 600
} > "$data/occupancy_sm90.csv" || status=1
head -5 "$data/occupancy_sm90.csv"

echo "== the CPU tests of the table, reading the new table"
fixture="$root/autograder/tests/$slug/fixtures/occupancy_sm90.csv"
had_fixture=0
[[ -f "$fixture" ]] && had_fixture=1 && cp "$fixture" "$data/occupancy_sm90.previous.csv"
cp "$data/occupancy_sm90.csv" "$fixture"
"$build/tests/reference_$slug" --gtest_filter='OccupancyTable.*' --gtest_output=json:"$data/tests_with_table.json" \
  || status=1
if ((had_fixture)); then cp "$data/occupancy_sm90.previous.csv" "$fixture"; else rm -f "$fixture"; fi
rm -f "$data/occupancy_sm90.previous.csv"

echo "== tuning sweep"
"$build/tuning_sweep" "$data/vadd_tuning_h200.csv" "$data/heavy_tuning_h200.csv" || status=1
for f in vadd_tuning_h200.csv heavy_tuning_h200.csv; do
  if [[ -f "$data/$f" ]]; then
    sed -i "1s|^# |# ${gpu:-unknown GPU}, CUDA $cuda; bash autograder/tests/$slug/gpu_run.sh; |" "$data/$f"
    echo "-- $f"; cat "$data/$f"
  fi
done

tar -cf "$out/$slug-data.tar" -C "$data" . || status=1
rm -rf "$data"
echo "== done (status $status): $out/$slug-log.txt, $out/$slug-data.tar"
return $status
}

main 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
