#!/usr/bin/env bash
# How long grading takes here: a benchmark for the instructor guide and the
# notes, not a test (no figure of it is checked anywhere). Each grading's
# phases come from its results.json (extra_data.phases): the trusted part,
# the learner's build, and for each lab the reference's run (or its cached
# transcripts), the learner's run and the judge.
#
#  1. The solutions graded from nothing: the trusted part built in a fresh
#     build folder, the reference programs run (twice, so that their
#     transcripts may be kept), the learner's part built and run.
#  2. The starters, then the solutions, graded again: the trusted part and
#     the reference's transcripts kept (what every further student costs).
#  3. --students submissions (half solutions, half starters) through
#     `grade-class --engine local --jobs N`.
#
# usage: autograder/class/bench.sh [--labs NN,NN] [--students N] [--jobs N] [--no-cold] [--keep DIR]
#        (default: every lab, 8 students, the grade-class default for --jobs)
# --keep DIR copies each grading's results.json, log and the learner build's
# .ninja_log into DIR, for a closer look than the summary below gives.
# --students 0 leaves out step 3. --no-cold leaves out step 1: the course is
# prepared first then (`grade --prepare`, timed), and the warm gradings and
# the class find it ready, so the class's time is that of its gradings, and
# a run cut short loses the class rather than the warm gradings.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
labs=""
students=8
jobs=()
cold=1
keep=""
while (($#)); do
  case "$1" in
    --labs) labs=$2; shift 2 ;;
    --students) students=$2; shift 2 ;;
    --jobs) jobs=(--jobs "$2"); shift 2 ;;
    --no-cold) cold=0; shift ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "usage: $0 [--labs NN,NN] [--students N] [--jobs N] [--no-cold] [--keep DIR]" >&2; exit 2 ;;
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

# Grades a submission once and prints its time and its phases.
grade_by_phase() {
  local title=$1 submission=$2 work=$3 start end
  start=$(now)
  "$cli" grade --submission "$submission" --work "$work" --json "$work.json" "${label_args[@]}" >"$work.log" 2>&1 || true
  end=$(now)
  printf '%-54s %7s s\n' "$title" "$(seconds "$start" "$end")"
  if [[ -n "$keep" ]]; then
    cp "$work.json" "$work.log" "$keep/" 2>/dev/null || true
    # No build log where every lab ran the starters' programs (nothing was built).
    cp "$work/learner-build/.ninja_log" "$keep/$(basename "$work").ninja_log" 2>/dev/null || true
  fi
  /usr/bin/python3 - "$work.json" <<'PHASES'
import json, sys
report = json.load(open(sys.argv[1]))
extra = report.get("extra_data", {})
phases = extra.get("phases", {})
row = "  %-52s %7.1f s"
for name, title in (("trusted_part", "trusted part"), ("learner_build", "learner build"), ("tests", "tests")):
    print(row % (title, phases.get(name, 0)))
for slug, lab in phases.get("labs", {}).items():
    cached = "reference_cached" in lab
    reference = lab.get("reference_cached" if cached else "reference", 0)
    print("    %-24s reference %6.1f s%s, learner %6.1f s, judge %5.1f s (%5.1f s of them waiting), %d cached, %d measured, %d spared" % (
        slug, reference, " (cache)" if cached else "", lab.get("learner", 0), lab.get("judge", 0),
        lab.get("waiting", 0), lab.get("cache_hits", 0), len(lab.get("measured", [])), len(lab.get("spared", []))))
# The runs by lane: what the GPU's lanes were busy with (runs of one lane
# but alone overlap, so a lane's seconds may exceed the grading's).
lanes, runs = {}, []
for slug, lab in phases.get("labs", {}).items():
    for run in lab.get("runs", []):
        count, seconds, waited = lanes.get(run.get("lane", "?"), (0, 0.0, 0.0))
        lanes[run.get("lane", "?")] = (count + 1, seconds + run.get("seconds", 0), waited + run.get("waited", 0))
        runs.append((run.get("seconds", 0), slug, run))
for lane, (count, seconds, waited) in sorted(lanes.items()):
    print("  lane %-8s %3d runs, %7.1f s running, %7.1f s waiting" % (lane, count, seconds, waited))
for seconds, slug, run in sorted(runs, key=lambda r: r[0], reverse=True)[:6]:
    print("    longest: %-22s %-26s %-6s %3d tests %6.1f s, from %5.1f s" % (
        slug, run.get("program", "?"), run.get("lane", "?"), run.get("tests", 0), seconds, run.get("started", 0)))
# The GPU's runs as a timeline: what held the GPU, and when (a beside run
# may open it, and keeps the alone lane waiting).
gpu_runs = sorted((run.get("started", 0), slug, run) for _, slug, run in runs if run.get("lane") != "cpu")
if gpu_runs:
    print("  the GPU's runs, by start: " + "; ".join("%.1f+%.1f %s %s %s" % (
        started, run.get("seconds", 0), slug[:2], run.get("program", "?").replace("learner under ", ""), run.get("lane", "?"))
        for started, slug, run in gpu_runs))
print("  score %d/%d, %d points not graded here, %d reference transcripts from the cache" % (
    report.get("score", 0), extra.get("gradable_max_score", 0), extra.get("not_gradable_points", 0),
    phases.get("cache_hits", 0)))
PHASES
}

# A class of --students copies (half solutions, half starters) through
# grade-class, which prepares the course first.
grade_the_class() {
  local i start end total
  mkdir -p "$scratch/class"
  for ((i = 1; i <= students; i++)); do
    if ((i % 2)); then
      cp -r "$root/solutions" "$scratch/class/student$i"
    else
      mkdir -p "$scratch/class/student$i" && cp -r "$root/labs" "$scratch/class/student$i/labs"
    fi
  done
  # The grade-class program is built the first time it is asked for: once
  # per build folder, not part of grading the class.
  "$cli" grade-class --help >/dev/null
  start=$(now)
  "$cli" grade-class --submissions "$scratch/class" --out "$scratch/out" "${label_args[@]}" "${jobs[@]}" >"$scratch/class.log"
  end=$(now)
  total=$(seconds "$start" "$end")
  printf '%-54s %7s s\n' "$students students (half solutions), grade-class --engine local" "$total"
  printf '  %-52s %7s s\n' "per student" "$(awk -v total="$total" -v n="$students" 'BEGIN { printf "%.1f", total / n }')"
  # The preparation's share of the total, then grade-class's own summary.
  sed -n -e 's/^prepared in \(.*\)/  the course prepared first, in \1/p' -e 's/^grade-class: /  /p' "$scratch/class.log"
}

echo "launchlab grading benchmark: $(nproc) cores, GPU: ${gpu:-none}, labs: ${labs:-all}, sandbox: $(sed -n 's/^  grade *sandbox \([^:]*\):.*/\1/p' <<<"$doctor")"
started=$(now)
if ((cold)); then
  grade_by_phase "the solutions, from nothing" "$root/solutions" "$scratch/cold"
else
  # Nothing made the course ready: prepare it as grade-class would.
  start=$(now)
  "$cli" grade --prepare --work "$scratch/prepare" "${label_args[@]}" >"$scratch/prepare.log" 2>&1 || true
  printf '%-54s %7s s\n' "the course prepared (grade --prepare)" "$(seconds "$start" "$(now)")"
fi
grade_by_phase "the starters, warm" "$root" "$scratch/starters"
grade_by_phase "the solutions, warm" "$root/solutions" "$scratch/solutions"
if ((students > 0)); then
  grade_the_class
fi
printf '%-54s %7s s\n' "the whole benchmark" "$(seconds "$started" "$(now)")"
