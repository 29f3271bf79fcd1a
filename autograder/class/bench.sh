#!/usr/bin/env bash
# How long grading takes here: a benchmark for the instructor guide and the
# notes, not a test (no figure of it is checked anywhere).
#
#  1. One submission (the solutions) graded from nothing: the trusted part of
#     the course built in a fresh build folder, then the learner's part, then
#     the tests; each phase timed from the grader's own progress lines.
#  2. The same submission again: the trusted part kept, the learner's built
#     afresh (what every further student costs).
#  3. --students copies of it through `grade-class --engine local --jobs N`.
#
# usage: autograder/class/bench.sh [--labs NN,NN] [--students N] [--jobs N]
#        (default: every lab, 4 students, the grade-class default for --jobs)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
labs=""
students=4
jobs=()
while (($#)); do
  case "$1" in
    --labs) labs=$2; shift 2 ;;
    --students) students=$2; shift 2 ;;
    --jobs) jobs=(--jobs "$2"); shift 2 ;;
    *) echo "usage: $0 [--labs NN,NN] [--students N] [--jobs N]" >&2; exit 2 ;;
  esac
done

# The launchlab program as ./launchlab builds it, run directly, so that the
# benchmark's builds go to a folder of their own.
doctor=$("$root/launchlab" doctor)
build=$(sed -n 's/^  build folder *//p' <<<"$doctor")
gpu=$(sed -n 's/^  GPU *//p' <<<"$doctor")
cli="$build/autograder/cli/launchlab"
nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
export PATH="$(dirname "$nvcc"):$PATH" CUDACXX="$nvcc" LAUNCHLAB_ROOT="$root"
scratch=$(mktemp -d /tmp/launchlab-bench.XXXXXX)
chmod 0711 "$scratch"  # a dedicated sandbox user passes through to the work folders
trap 'rm -rf "$scratch"' EXIT
export LAUNCHLAB_BUILD_DIR="$scratch/build"
label_args=()
[[ -n "$labs" ]] && label_args=(--labs "$labs")

now() { date +%s%N; }
seconds() { awk -v from="$1" -v to="$2" 'BEGIN { printf "%.1f", (to - from) / 1e9 }'; }

# Grades the solutions once and prints each phase's time: a phase runs from
# its progress line to the next one (or to the end).
grade_by_phase() {
  local title=$1 work=$2 start end
  start=$(now)
  { "$cli" grade --submission "$root/solutions" --work "$work" --json "$work.json" "${label_args[@]}" 2>&1 >/dev/null ||
      true; } | while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done >"$work.phases"
  end=$(now)
  printf '%-54s %7s s\n' "$title" "$(seconds "$start" "$end")"
  local previous_time=$start previous_phase="" time phase
  while read -r time phase; do
    [[ "$phase" == "launchlab grade: "* ]] || continue
    [[ -n "$previous_phase" ]] && printf '  %-52s %7s s\n' "$previous_phase" "$(seconds "$previous_time" "$time")"
    previous_time=$time
    previous_phase=${phase#launchlab grade: }
    previous_phase=${previous_phase:0:52}
  done <"$work.phases"
  [[ -n "$previous_phase" ]] && printf '  %-52s %7s s\n' "$previous_phase" "$(seconds "$previous_time" "$end")"
  /usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); e = r["extra_data"]
print("  score %d/%d, %d points not graded here" % (r["score"], e["gradable_max_score"], e["not_gradable_points"]))' \
    "$work.json"
}

echo "launchlab grading benchmark: $(nproc) cores, GPU: ${gpu:-none}, labs: ${labs:-all}"
grade_by_phase "one submission, from nothing" "$scratch/cold"
grade_by_phase "the same again, the trusted part kept" "$scratch/warm"

mkdir -p "$scratch/class"
for ((i = 1; i <= students; i++)); do
  cp -r "$root/solutions" "$scratch/class/student$i"
done
start=$(now)
"$cli" grade-class --submissions "$scratch/class" --out "$scratch/out" "${label_args[@]}" "${jobs[@]}" >"$scratch/class.log"
end=$(now)
total=$(seconds "$start" "$end")
printf '%-54s %7s s\n' "$students students, grade-class --engine local" "$total"
printf '  %-52s %7s s\n' "per student" "$(awk -v total="$total" -v n="$students" 'BEGIN { printf "%.1f", total / n }')"
sed -n 's/^grade-class: /  /p' "$scratch/class.log"
