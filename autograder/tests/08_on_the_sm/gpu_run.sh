#!/usr/bin/env bash
# The GPU side of 08_on_the_sm, run from the repository root on a machine
# with an NVIDIA GPU, the CUDA toolkit, cmake, ninja and GoogleTest:
#
#   OUT=/some/folder autograder/tests/08_on_the_sm/gpu_run.sh
#
# It builds the lab in build/gpu-08_on_the_sm, records the traces and the
# divergence timings with the reference solution (chapters/08_on_the_sm/
# record_trace.cpp linked against liblab_08_on_the_sm_solution.a), then runs
# every test, GPU tests included, on those fresh traces: the reference program
# (the solution, checked against the expected values) and the exercise
# programs of the solution and of the starter, each with its transcript for
# the judge (the solution's must agree with the reference's, the starter's
# must not).
#
# It writes two files:
#   $OUT/08_on_the_sm-log.txt   everything the build, the recorder and the tests printed
#   $OUT/08_on_the_sm-data.tar  paths relative to the repository root:
#     autograder/tests/08_on_the_sm/fixtures/vadd_4096x256.csv   commit (CPU tests, figure)
#     autograder/tests/08_on_the_sm/fixtures/spin_waves.csv      commit (CPU tests, figure)
#     chapters/08_on_the_sm/data/divergence.csv                   commit (chapter numbers)
#     gpu-report/08_on_the_sm-reference.json                      the reference program's test report (not to commit)
#     gpu-report/08_on_the_sm-{reference,solution,starter}.jsonl  the three transcripts (not to commit)
# Unpack with `tar -xf 08_on_the_sm-data.tar -C <repository>`, then redraw
# the figures (chapters/08_on_the_sm/plot_timeline.py says how).
set -uo pipefail
: "${OUT:?set OUT to the folder the results go to}"

slug=08_on_the_sm
root=$(pwd)
build=$root/build/gpu-$slug
stage=$(mktemp -d)
log=$OUT/$slug-log.txt
export PATH=/usr/local/cuda/bin:$PATH

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
  echo "== $slug on $(hostname), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv 2>&1 || true
  nvcc --version | tail -2

  run cmake -S "$root" -B "$build" -G Ninja -DLAUNCHLAB_LABS=$slug -DLAUNCHLAB_WITH_DOCS=OFF \
      -DCMAKE_BUILD_TYPE=Release || exit 1
  run cmake --build "$build" --target lab_${slug}_solution reference_${slug} test_${slug}_solution \
      test_${slug} || exit 1
  run nvcc -std=c++20 -O2 -I "$root/labs/$slug" "$root/chapters/$slug/record_trace.cpp" \
      "$build/labs/$slug/liblab_${slug}_solution.a" -o "$build/record_trace" || exit 1

  fixtures=autograder/tests/$slug/fixtures
  mkdir -p "$stage/$fixtures" "$stage/chapters/$slug/data" "$stage/gpu-report"
  # The commands below are the ones fixtures/README.md names.
  (cd "$build" && ./record_trace vadd) > "$stage/$fixtures/vadd_4096x256.csv"
  echo "== record_trace vadd: exit status $?, $(wc -l < "$stage/$fixtures/vadd_4096x256.csv") lines"
  (cd "$build" && ./record_trace spin) > "$stage/$fixtures/spin_waves.csv"
  echo "== record_trace spin: exit status $?, $(wc -l < "$stage/$fixtures/spin_waves.csv") lines"
  (cd "$build" && ./record_trace divergence) > "$stage/chapters/$slug/data/divergence.csv"
  echo "== record_trace divergence: exit status $?"
  cat "$stage/chapters/$slug/data/divergence.csv"

  # The CPU tests read the fixtures from the tree: give them the fresh ones.
  for f in "$stage/$fixtures/"*.csv; do [[ -s $f ]] && cp "$f" "$root/$fixtures/"; done

  # The reference program checks the solution's records against the expected
  # values itself; the exercise programs (the solution's and the starter's)
  # only record, for the judge to compare with the reference's transcript.
  run transcript reference "$build/tests/reference_${slug}" --gtest_output=json:"$stage/gpu-report/$slug-reference.json"
  run transcript solution "$build/tests/test_${slug}_solution"
  run transcript starter "$build/tests/test_${slug}" --gtest_brief=1
  echo "== (judged against the reference's transcript, the starter is expected to fail)"
  head -12 "$stage/$fixtures/spin_waves.csv"
} > "$log" 2>&1
