#!/usr/bin/env bash
# The grader's container, proven: build the image from a release export of
# the committed course, grade inside it lab 00's solutions (full marks on
# what needs no GPU) and pristine starters (less than full marks), prove the
# exploit catalogue in it (autograder/exploits/prove.sh docker) on one build
# volume, then build a Gradescope bundle for lab 00 and grade a sample as
# Gradescope does, in a container made from the same base: the solutions
# and the catalogue's Gradescope entries, with the audit of what the sandbox
# user can read after setup and after the gradings.
#
# Needs root (it installs and starts Docker when missing) and the CUDA
# toolkit at /usr/local/cuda, which the containers mount read-only.
#
#   docker/ci.sh            all of it
#   docker/ci.sh install    only install Docker and debootstrap (apt-get)
#   docker/ci.sh image      only install and start Docker and build the image:
#                           mostly downloads, which .ci/run starts beside the
#                           course's build; `docker/ci.sh` after it finds the
#                           image's layers built
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
start=$(date +%s)
say() { printf 'docker/ci: %s\n' "$*"; }
step=${1:-all}
[[ $step == all || $step == install || $step == image ]] || { echo "usage: $0 [install|image]" >&2; exit 2; }

if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
  say "installing Docker and debootstrap"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null
fi
[[ $step == install ]] && exit 0
if ! docker info >/dev/null 2>&1; then
  say "starting dockerd"
  (dockerd >/tmp/launchlab-dockerd.log 2>&1 &)
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
fi

image=launchlab-grader:ci
say "building the grader's image from a release export"
docker/build-image.sh "$image"
if [[ $step == image ]]; then
  say "the image is built, in $(( $(date +%s) - start )) s"
  exit 0
fi

scratch=$(mktemp -d /tmp/launchlab-docker-ci.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# The grader is root in the container: its build volume and results are
# root's and closed to the sandbox user.
mkdir -p "$scratch/build" && chmod 0700 "$scratch/build"

# grade NAME SUBMISSION [grade options...]: grades in a fresh container with
# the limits the instructor guide recommends; results in $scratch/NAME.
grade() {
  local name=$1 submission=$2
  shift 2
  mkdir -p "$scratch/$name" && chmod 0700 "$scratch/$name"
  timeout 1800 docker run --rm --network none --read-only \
    --tmpfs /tmp:rw,exec,size=2g --pids-limit 512 --memory 3g --memory-swap 3g --cpus 2 \
    -e LAUNCHLAB_CUDA_ARCHITECTURES=90 \
    -v /usr/local/cuda:/usr/local/cuda:ro \
    -v "$scratch/build:/tmp/launchlab-build" \
    -v "$submission:/submission:ro" \
    -v "$scratch/$name:/results" \
    "$image" "$@" > "$scratch/$name.log" 2>&1 || true
  [[ -f "$scratch/$name/results.json" ]] || { tail -40 "$scratch/$name.log"; say "$name: no results.json"; exit 1; }
}
check() { python3 docker/check_results.py "$1" "$2" || { tail -40 "$scratch/$3.log"; exit 1; }; }

# Lab 00 only, as the catalogue and the host's CourseGrading: an image
# without the toolkit builds what it grades on first use, which for every lab
# would take most of CI's time. Every lab's solutions and starters are judged
# by the course's linter in `./launchlab check` (each lab's programs through
# the grader's judge); docs/instructors.md says what CI grades and what only
# a GPU host's full grading covers.
say "grading the solutions of lab 00 (the first grading builds the launchlab program and the trusted part)"
grade solutions "$root/solutions" --labs 00
check "$scratch/solutions/results.json" full solutions

mkdir -p "$scratch/empty"
say "grading the pristine starters of lab 00"
grade starters "$scratch/empty" --labs 00
check "$scratch/starters/results.json" less starters

say "building the Gradescope bundle"
LAUNCHLAB_GRADE_ARGS="--labs 00" docker/gradescope/make-zip.sh "$scratch/autograder.zip" >/dev/null
say "grading a sample as Gradescope does, in a container from the same base (beside the catalogue's proof)"
# Gradescope unpacks the bundle into /autograder/source, runs setup.sh there
# once (which ends by auditing what the sandbox user can read), copies
# run_autograder to /autograder/run_autograder and runs it from there for
# each submission, which it puts in /autograder/submission. The sample is
# lab 00's solutions and every catalogue entry whose expect file says
# `gradescope`, graded one after another in the one container; the audit
# runs again once they are graded. Its packages and its build take minutes,
# the catalogue's gradings mostly wait out their limits: the two run side by side.
gs_submissions="$scratch/gs/submissions"
mkdir -p "$gs_submissions/solution" "$scratch/gs/results"
cp -r solutions/00_vadd_journey/. "$gs_submissions/solution/"
gradescope_entries=()
for expect in autograder/exploits/*/expect; do
  exploit=$(basename "$(dirname "$expect")")
  python3 docker/check_results.py - directives "$expect" gradescope | grep -x gradescope >/dev/null || continue
  if [[ -f autograder/exploits/$exploit/attack.cpp ]]; then
    python3 autograder/exploits/assemble.py "autograder/exploits/$exploit" "$gs_submissions/$exploit"
  else
    cp -r "autograder/exploits/$exploit" "$gs_submissions/$exploit"
  fi
  gradescope_entries+=("$exploit")
done
say "the Gradescope sample grades the solutions and ${gradescope_entries[*]:-no catalogue entry}"
timeout 2400 docker run --rm \
  -v /usr/local/cuda:/usr/local/cuda:ro \
  -v "$scratch/autograder.zip:/tmp/autograder.zip:ro" \
  -v "$gs_submissions:/tmp/submissions:ro" \
  -v "$scratch/gs/results:/tmp/sample-results" \
  -e LAUNCHLAB_CUDA_ARCHITECTURES=90 \
  launchlab-base:bookworm bash -c '
    set -e
    apt-get update -qq >/dev/null && apt-get install -y -qq unzip python3 >/dev/null
    mkdir -p /autograder/source && cd /autograder/source && unzip -q /tmp/autograder.zip
    bash setup.sh
    cp /autograder/source/run_autograder /autograder/run_autograder
    chmod +x /autograder/run_autograder
    for submission in /tmp/submissions/*/; do
      name=$(basename "$submission")
      rm -rf /autograder/submission /autograder/results
      mkdir -p /autograder/submission && cp -r "$submission". /autograder/submission/
      (cd /autograder && ./run_autograder) > "/tmp/sample-results/$name.log" 2>&1 || true
      mkdir -p "/tmp/sample-results/$name"
      cp /autograder/results/results.json "/tmp/sample-results/$name/results.json"
    done
    # Gradescope gives each submission a fresh container: what is left of the
    # last one (the sample ends with the solutions) is no other student'"'"'s.
    rm -rf /autograder/submission /autograder/results
    /opt/launchlab/docker/audit-sandbox.sh launchlab-sandbox /opt/launchlab /autograder /var/lib/launchlab' \
  > "$scratch/gradescope.log" 2>&1 &
gradescope_job=$!

say "proving the exploit catalogue in the container"
LAUNCHLAB_IMAGE=$image PROVE_DIR="$scratch/prove" PROVE_BUILD_VOLUME="$scratch/build" autograder/exploits/prove.sh docker

wait "$gradescope_job" || { tail -40 "$scratch/gradescope.log"; say "the Gradescope run failed"; exit 1; }
for exploit in "${gradescope_entries[@]}"; do
  python3 docker/check_results.py "$scratch/gs/results/$exploit/results.json" expect \
    "autograder/exploits/$exploit/expect" gradescope "$scratch/gs/results/$exploit.log" ||
    { tail -40 "$scratch/gs/results/$exploit.log"; say "$exploit: the Gradescope sample did not hold it"; exit 1; }
done
python3 docker/check_results.py "$scratch/gs/results/solution/results.json" full
python3 - "$scratch/gs/results/solution/results.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
grid = [t for t in results["tests"] if t["name"].startswith("00_vadd_journey: GridArithmetic")]
assert grid and all(t["score"] == t["max_score"] for t in grid), "the sample's grid tests should pass on Gradescope"
# --labs 00 came from the bundle's settings in /autograder/source: no other lab was graded.
others = {t["extra_data"]["lab"] for t in results["tests"]} - {"00_vadd_journey"}
assert not others, f"the bundle's --labs 00 was not applied: {sorted(others)} were graded too"
print("docker/ci: the Gradescope sample graded its grid tests in full, with the bundle's settings")
PY
say "done in $(( $(date +%s) - start )) s"
