#!/usr/bin/env bash
# The course's run on a machine with an NVIDIA GPU: builds the labs once and
# runs every test of each, GPU tests included, then what a lab measures there
# for its chapter. Run from the repository root:
#
#   OUT=/some/folder bash autograder/gpu-run.sh            # every lab
#   OUT=/some/folder bash autograder/gpu-run.sh 04 10      # some labs (numbers or slugs)
#
# Needs the CUDA toolkit (PATH, or /usr/local/cuda/bin), cmake, ninja and
# GoogleTest. Builds in build/gpu (GPU_RUN_BUILD to change it), from labs/
# with the solutions beside them. For each lab NN_slug it writes
#
#   $OUT/NN_slug-log.txt   the GPU and toolkit, every step with its exit
#                          status, and what the steps printed
#   $OUT/NN_slug-data.tar  paths relative to the repository root:
#     gpu-report/NN_slug-reference.json    the reference program's GoogleTest report
#     gpu-report/NN_slug-{reference,solution,starter}.jsonl
#                                          the three transcripts: the reference
#                                          program (the solution, checked against
#                                          the expected values), the exercise
#                                          program on the solution (must agree with
#                                          the reference's) and on the starter,
#                                          the lab's GPU tests only (must not)
#     chapters/..., labs/...               what the lab's own steps measured,
#                                          where it is committed
#
# and $OUT/summary.txt, one line per lab and step with its exit status.
#
# Which tests need a GPU comes from each lab.toml's `needs`, through the
# course model (build/gpu/course/course.json). What a lab does beyond its
# tests is declared in labs/NN_slug/gpu_steps.sh (see there):
#   gpu_tools          tools to build: "name source [lab]", lab linking the
#                      lab's solution library; built with -arch=native, the
#                      lab's folder and its tests' folder on the include path
#   gpu_test_env       variables for the three test runs
#   gpu_reference_env  variables for the reference program's run alone
#   gpu_before_tests   a function run before the tests (their fixtures)
#   gpu_after_tests    a function run after them (the chapter's measurements)
# The functions run in the repository root with these set: $slug, $build,
# $tools (the built tools), $stage (what goes into the tar), $gpu and $cuda
# (for the data files' first lines), and can call `made_by` (the comment line
# saying how a data file was made) and `limited SECONDS CMD...` (a run that
# says so when it hangs).
set -uo pipefail
: "${OUT:?set OUT to the folder the results go to}"
root=$(pwd)
build=${GPU_RUN_BUILD:-$root/build/gpu}
command -v nvcc > /dev/null || export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT"
summary=$OUT/summary.txt
: > "$summary"

step() {  # step NAME CMD...: runs a step, logs it, keeps going on failure
  local name=$1
  shift
  echo "== $name: $*"
  "$@"
  local rc=$?
  echo "== $name: exit status $rc"
  echo "${slug:-build} $name $rc" >> "$summary"
  return $rc
}

limited() {  # limited SECONDS CMD...: CMD under a time limit that says when it ran out
  local limit=$1
  shift
  timeout "$limit" "$@"
  local rc=$?
  ((rc == 0)) || echo "$*: exit status $rc$( ((rc == 124)) && echo ", stopped after $limit s")" >&2
  return $rc
}

made_by() { echo "# ${gpu:-unknown GPU}, CUDA $cuda; made by OUT=... bash autograder/gpu-run.sh ${slug%%_*} ($*)"; }

# The labs asked for, as slugs, each once however often it is named (11 and
# 11_occupancy are one lab); every lab when none is named.
slugs=()
for lab_dir in "$root"/labs/[0-9][0-9]_*/; do
  lab=$(basename "$lab_dir")
  if (($# == 0)); then
    slugs+=("$lab")
  else
    for asked in "$@"; do
      if [[ $asked == "$lab" || $asked == "${lab%%_*}" ]]; then
        slugs+=("$lab")
        break
      fi
    done
  fi
done
((${#slugs[@]})) || { echo "no lab named $*" >&2; exit 2; }

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
cuda=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
build_log=$OUT/build-log.txt
{
  echo "== $(date -u +%FT%TZ) on $(hostname), $(nproc) CPUs; GPU: ${gpu:-none}; CUDA $cuda"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,persistence_mode,pcie.link.gen.max,pcie.link.width.max \
    --format=csv 2>&1 || true
  # Every lab is configured (a lab may build on earlier ones); only the asked
  # labs' programs are built.
  targets=()
  for slug in "${slugs[@]}"; do targets+=("reference_$slug" "test_${slug}_solution" "test_$slug" "lab_${slug}_solution"); done
  slug=
  step configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAUNCHLAB_WITH_DOCS=OFF &&
    step build cmake --build "$build" --target "${targets[@]}"
} > "$build_log" 2>&1 || { echo "the build failed, see $build_log" >&2; exit 1; }

# The tests of a lab that need a GPU, as a GoogleTest filter, from the course model.
gpu_filter() { cmake -DCOURSE="$build/course/course.json" -DSLUG="$1" -P "$root/autograder/gpu-tests.cmake" 2>&1; }

status=0
for slug in "${slugs[@]}"; do
  log=$OUT/$slug-log.txt
  stage=$(mktemp -d)
  tools=$build/gpu-tools/$slug
  mkdir -p "$stage/gpu-report" "$tools"
  gpu_tools=()
  gpu_test_env=()
  gpu_reference_env=()
  unset -f gpu_before_tests gpu_after_tests
  steps_file=$root/labs/$slug/gpu_steps.sh
  [[ -f $steps_file ]] && source "$steps_file"
  {
    echo "== $slug, $(date -u +%FT%TZ); GPU: ${gpu:-none}; CUDA $cuda"
    for spec in "${gpu_tools[@]}"; do
      read -r name source links <<< "$spec"
      libs=()
      [[ ${links:-} == lab ]] && libs=("$build/labs/$slug/liblab_${slug}_solution.a")
      step "tool $name" nvcc -std=c++20 -O2 -arch=native -I "$root/labs/$slug" -I "$root/autograder/tests/$slug" \
        "$root/$source" "${libs[@]}" -o "$tools/$name"
    done
    declare -F gpu_before_tests > /dev/null && step before-tests gpu_before_tests
    report=$stage/gpu-report/$slug
    step reference env "${gpu_test_env[@]}" "${gpu_reference_env[@]}" LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/reference_$slug" \
      --gtest_output=json:"$report-reference.json" --gtest_color=no 3> "$report-reference.jsonl" |
      tee "$stage/reference-output.txt"
    step solution env "${gpu_test_env[@]}" LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/test_${slug}_solution" \
      --gtest_color=no 3> "$report-solution.jsonl"
    filter=$(gpu_filter "$slug")
    if [[ -n $filter ]]; then
      echo "== (judged against the reference's transcript, the starter must fail)"
      step starter env "${gpu_test_env[@]}" LAUNCHLAB_TRANSCRIPT_FD=3 "$build/tests/test_$slug" \
        --gtest_filter="$filter" --gtest_brief=1 --gtest_color=no 3> "$report-starter.jsonl"
    fi
    declare -F gpu_after_tests > /dev/null && step after-tests gpu_after_tests
    rm -f "$stage/reference-output.txt"
  } > "$log" 2>&1
  tar -C "$stage" -cf "$OUT/$slug-data.tar" . || status=1
  rm -rf "$stage"
  echo "$slug: $OUT/$slug-log.txt, $OUT/$slug-data.tar"
done
# The lab's programs fail by design on the starter: the exit status says only
# whether the build and the steps of the solution ran.
grep -Ev ' (starter|build|configure) ' "$summary" | awk '$NF != 0 { bad = 1 } END { exit bad }' || status=1
echo "== summary ($summary):"
cat "$summary"
exit $status
