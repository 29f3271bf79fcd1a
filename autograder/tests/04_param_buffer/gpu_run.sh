#!/usr/bin/env bash
# The GPU half of 04_param_buffer, for a machine with an NVIDIA GPU: builds
# the lab (solution and starter) in build/gpu-04_param_buffer, runs every
# test of the reference program (the tests with their expected values, on
# the solution), the exercise program on the solution and the starter's
# byte-echo test, each writing its transcript, and collects what the driver
# reported. The judge compares each exercise transcript with the reference's:
# the solution's must pass, the starter's byte-echo test must fail, naming
# the first misplaced parameter. Run from the repository root:
#
#   OUT=/some/folder autograder/tests/04_param_buffer/gpu_run.sh
#
# It writes these files:
#   $OUT/04_param_buffer-log.txt   the GPU and toolkit, the build, the test
#                                  runs and the reference's GoogleTest JSON report
#   $OUT/04_param_buffer-{reference,solution,starter}.transcript
#                                  the three runs' transcripts, for the judge
#   $OUT/04_param_buffer-data.csv  the "csv," lines of the reference's run:
#                                  cuFuncGetParamInfo for every echo kernel and
#                                  cuLaunchKernel's answer to each buffer size
set -uo pipefail
: "${OUT:?set OUT to the folder that receives the results}"
export PATH=/usr/local/cuda/bin:$PATH
slug=04_param_buffer
build=build/gpu-$slug
log=$OUT/$slug-log.txt
csv=$OUT/$slug-data.csv
mkdir -p "$OUT"

{
  echo "== $(date -u +%FT%TZ) $slug on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  nvcc --version | tail -n 2
  echo "== configure and build"
  cmake -S . -B "$build" -G Ninja -DLAUNCHLAB_LABS=$slug -DLAUNCHLAB_WITH_DOCS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
    cmake --build "$build" --target reference_${slug} test_${slug}_solution test_${slug}
} >"$log" 2>&1 || { echo "build failed, see $log"; exit 1; }

report=$(mktemp)
solution_out=$(mktemp)
{
  echo "== the reference program on the solution, every test"
  LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/reference_${slug}" --gtest_output=json:"$report" --gtest_color=no \
    3>"$OUT/$slug-reference.transcript" | tee "$solution_out"
  echo "reference exit status: ${PIPESTATUS[0]}"
  echo "== the exercise program on the solution, every test"
  LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/test_${slug}_solution" --gtest_color=no 3>"$OUT/$slug-solution.transcript"
  echo "solution exit status: $?"
  echo "== the starter's byte-echo test (judged: must fail, naming the first misplaced parameter)"
  LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/test_${slug}" --gtest_filter=EchoOnGpu.KernelSeesEveryPackedByteThroughExtra \
    --gtest_color=no 3>"$OUT/$slug-starter.transcript"
  echo "starter exit status: $?"
  echo "== the reference's GoogleTest report"
  cat "$report"
} >>"$log" 2>&1

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)
{
  echo "# $gpu; $(nvcc --version | grep release)"
  echo "# command: build/gpu-$slug/tests/reference_${slug} --gtest_filter='ParamInfoOnGpu.*:EchoOnGpu.*' (the lines starting with csv,)"
  echo "record,kernel,index,name,offset,size,answer"
  grep '^csv,' "$solution_out" | cut -d, -f2-
} >"$csv"
rm -f "$report" "$solution_out"
echo "wrote $log and $csv"
