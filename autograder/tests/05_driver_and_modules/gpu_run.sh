#!/usr/bin/env bash
# The GPU half of 05_driver_and_modules, for a machine with an NVIDIA GPU:
# builds the lab (solution and starter) in build/gpu-05_driver_and_modules,
# runs every test of the reference program (the tests with their expected
# values, on the solution) with the chapter's measurement at 12 trials per
# configuration, then the exercise program on the solution and the starter's
# GPU tests, each writing its transcript. The judge compares each exercise
# transcript with the reference's: the solution's must pass, the starter's
# must fail. Run from the repository root:
#
#   OUT=/some/folder autograder/tests/05_driver_and_modules/gpu_run.sh
#
# It writes these files:
#   $OUT/05_driver_and_modules-{reference,solution,starter}.transcript
#                                        the three runs' transcripts, for the judge
#   $OUT/05_driver_and_modules-log.txt   the GPU and toolkit, the build, both
#                                        test runs (with the summary table of
#                                        the measurement) and the solution's
#                                        reference's GoogleTest JSON report
#   $OUT/05_driver_and_modules-cold_start.csv
#                                        every sample of the measurement:
#                                        config,trial,quantity,value
set -uo pipefail
: "${OUT:?set OUT to the folder that receives the results}"
export PATH=/usr/local/cuda/bin:$PATH
slug=05_driver_and_modules
build=build/gpu-$slug
log=$OUT/$slug-log.txt
csv=$OUT/$slug-cold_start.csv
mkdir -p "$OUT"

{
  echo "== $(date -u +%FT%TZ) $slug on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,persistence_mode --format=csv,noheader
  nvcc --version | tail -n 2
  echo "== configure and build"
  cmake -S . -B "$build" -G Ninja -DLAUNCHLAB_LABS=$slug -DLAUNCHLAB_WITH_DOCS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
    cmake --build "$build" --target reference_${slug} test_${slug}_solution test_${slug}
} >"$log" 2>&1 || { echo "build failed, see $log"; exit 1; }

report=$(mktemp)
{
  echo "== the reference program on the solution, every test; the measurement with 12 trials"
  LAUNCHLAB_COLD_START_TRIALS=12 LAUNCHLAB_COLD_START_CSV="$csv" LAUNCHLAB_TRANSCRIPT_FD=3 \
    "$build/tests/reference_${slug}" --gtest_output=json:"$report" --gtest_color=no 3>"$OUT/$slug-reference.transcript"
  echo "reference exit status: $?"
  echo "== the exercise program on the solution, every test; the measurement with 12 trials"
  LAUNCHLAB_COLD_START_TRIALS=12 LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/test_${slug}_solution" --gtest_color=no \
    3>"$OUT/$slug-solution.transcript"
  echo "solution exit status: $?"
  echo "== the starter's GPU tests (judged: must fail)"
  LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/test_${slug}" \
    --gtest_filter='DriverOnGpu.*:ColdStartOnGpu.EagerLoadingLoadsEveryKernelAtLoad' --gtest_color=no \
    3>"$OUT/$slug-starter.transcript"
  echo "starter exit status: $?"
  echo "== the reference's GoogleTest report"
  cat "$report"
} >>"$log" 2>&1
rm -f "$report"
echo "wrote $log and $csv"
