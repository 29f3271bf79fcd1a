#!/usr/bin/env bash
# Makes the captures of this folder on a machine with an NVIDIA GPU (they
# were made on an NVIDIA H200, driver 580.159.04, CUDA 13.0):
#
#   labs/12_real_launch/captures/make_captures.sh OUT_DIR [--channel]
#
# It compiles kernels.cu to kernels.sm_90.cubin, capture_launches.cu's own
# kernel to runtime_kernels.sm_90.cubin, and capture_launches.cu (with CUPTI
# when the toolkit has it); runs the capture program, which writes one
# NAME.capture per launch shape, maps.txt (its /proc/self/maps, file paths cut
# to their last part) and findings.log into OUT_DIR; and adds cuobjdump's
# listings of kernels.sm_90.cubin. Copy the .capture files, maps.txt and the
# two cubins here to replace the committed ones. The program only reads
# memory (see the top of capture_launches.cu).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:?usage: make_captures.sh OUT_DIR}" && cd "$1" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$cuda/bin/nvcc
# CAPTURE_WORK keeps the built programs in a folder of the caller's.
if [[ -n ${CAPTURE_WORK:-} ]]; then
  work=$CAPTURE_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

"$nvcc" -cubin -arch=sm_90 -o "$work/kernels.sm_90.cubin" "$here/kernels.cu"
cupti=()
for dir in "$cuda/lib64" "$cuda/extras/CUPTI/lib64"; do
  if [[ -e $dir/libcupti.so ]]; then
    cupti=(-DLAUNCHLAB_WITH_CUPTI "-I$cuda/extras/CUPTI/include" "-L$dir" -lcupti "-Xlinker" "-rpath=$dir")
    break
  fi
done
"$nvcc" -std=c++20 -O2 -arch=sm_90 -o "$work/capture_launches" "$here/capture_launches.cu" -lcuda "${cupti[@]}"

cp "$work/kernels.sm_90.cubin" "$out/"
# The capture program's own kernel (runtime_fill, launched with <<<>>> and
# cudaLaunchKernel), compiled on its own the way the program's build compiles
# it (the same compiler gives the same code: the captures' read-back code
# shows it).
"$nvcc" -cubin -arch=sm_90 -o "$out/runtime_kernels.sm_90.cubin" "$here/capture_launches.cu"
"$cuda/bin/cuobjdump" -elf "$work/kernels.sm_90.cubin" >"$out/kernels.sm_90.cubin.cuobjdump-elf.txt" || true
"$cuda/bin/cuobjdump" -sass "$work/kernels.sm_90.cubin" >"$out/kernels.sm_90.cubin.cuobjdump-sass.txt" || true
"$work/capture_launches" "$work/kernels.sm_90.cubin" "$out" ${cupti:+--cupti} "${@:2}"
echo "wrote $(ls "$out"/*.capture | wc -l) captures and findings.log to $out"
