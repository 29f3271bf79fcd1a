#!/usr/bin/env bash
# The GPU half of 04_param_buffer, for a machine with an NVIDIA GPU: builds
# the lab (solution and starter) in build/gpu-04_param_buffer, runs every
# test of the solution, runs the starter's byte-echo test (which must fail,
# naming the first misplaced parameter), and collects what the driver
# reported. Run from the repository root:
#
#   OUT=/some/folder autograder/tests/04_param_buffer/gpu_run.sh
#
# It writes two files:
#   $OUT/04_param_buffer-log.txt   the GPU and toolkit, the build, both test
#                                  runs and the solution's GoogleTest JSON report
#   $OUT/04_param_buffer-data.csv  the "csv," lines of the solution's run:
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
    cmake --build "$build" --target test_${slug}_solution test_${slug}
} >"$log" 2>&1 || { echo "build failed, see $log"; exit 1; }

report=$(mktemp)
solution_out=$(mktemp)
{
  echo "== the solution, every test"
  "$build/tests/test_${slug}_solution" --gtest_output=json:"$report" --gtest_color=no | tee "$solution_out"
  echo "solution exit status: ${PIPESTATUS[0]}"
  echo "== the starter's byte-echo test (must fail, naming the first misplaced parameter)"
  "$build/tests/test_${slug}" --gtest_filter=EchoOnGpu.KernelSeesEveryPackedByteThroughExtra --gtest_color=no
  echo "starter exit status: $?"
  echo "== the solution's GoogleTest report"
  cat "$report"
} >>"$log" 2>&1

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)
{
  echo "# $gpu; $(nvcc --version | grep release)"
  echo "# command: build/gpu-$slug/tests/test_${slug}_solution --gtest_filter='ParamInfoOnGpu.*:EchoOnGpu.*' (the lines starting with csv,)"
  echo "record,kernel,index,name,offset,size,answer"
  grep '^csv,' "$solution_out" | cut -d, -f2-
} >"$csv"
rm -f "$report" "$solution_out"
echo "wrote $log and $csv"
