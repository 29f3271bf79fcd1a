#!/usr/bin/env bash
# The grader's container, proven: build the image from a locally made base,
# then grade inside it the solutions (full marks on what needs no GPU), the
# pristine starters (less than full marks) and every exploit of
# autograder/exploits (zero on what it attacks; results.json always written
# by the grader), then build the Gradescope bundle and grade a sample with its
# run_autograder in a container made from the same base.
#
# Needs root (it installs and starts Docker when missing) and the CUDA
# toolkit at /usr/local/cuda, which the containers mount read-only.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
start=$(date +%s)
say() { printf 'docker/ci: %s\n' "$*"; }

if ! command -v dockerd >/dev/null 2>&1; then
  say "installing Docker and debootstrap"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io debootstrap >/dev/null
fi
if ! docker info >/dev/null 2>&1; then
  say "starting dockerd"
  (dockerd >/tmp/launchlab-dockerd.log 2>&1 &)
  for _ in $(seq 60); do docker info >/dev/null 2>&1 && break; sleep 1; done
fi

docker/make-base.sh launchlab-base:bookworm
say "building the grader's image"
docker build -q -f docker/Dockerfile --build-arg BASE_IMAGE=launchlab-base:bookworm -t launchlab-grader:ci . >/dev/null

scratch=$(mktemp -d /tmp/launchlab-docker-ci.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# Two build volumes: what the solutions built never meets an exploit. The
# starters reuse the solutions' (they are no attack), so that only the
# student files are rebuilt for them.
mkdir -p "$scratch/work-solutions" "$scratch/work-students"
chown 1500:1500 "$scratch/work-solutions" "$scratch/work-students"

# grade NAME SUBMISSION WORK [grade options...]: grades in a fresh container
# with the limits the instructor guide recommends; results in $scratch/NAME.
grade() {
  local name=$1 submission=$2 work=$3
  shift 3
  mkdir -p "$scratch/$name"
  chown 1500:1500 "$scratch/$name"
  timeout 900 docker run --rm --network none --read-only \
    --tmpfs /tmp:rw,exec,size=2g --pids-limit 512 --memory 3g --memory-swap 3g --cpus 2 \
    -e LAUNCHLAB_CUDA_ARCHITECTURES=90 \
    -v /usr/local/cuda:/usr/local/cuda:ro \
    -v "$work:/tmp/launchlab-build" \
    -v "$submission:/submission:ro" \
    -v "$scratch/$name:/results" \
    launchlab-grader:ci "$@" > "$scratch/$name.log" 2>&1 || true
  [[ -f "$scratch/$name/results.json" ]] || { cat "$scratch/$name.log"; say "$name: no results.json"; exit 1; }
}
check() { python3 docker/check_results.py "$@" || { cat "$scratch/$(basename "$(dirname "$1")").log" | tail -40; exit 1; }; }

say "grading the solutions"
grade solutions "$root/solutions" "$scratch/work-solutions"
check "$scratch/solutions/results.json" full

mkdir -p "$scratch/empty"
say "grading the pristine starters"
grade starters "$scratch/empty" "$scratch/work-solutions"
check "$scratch/starters/results.json" less

# What each exploit attacks, and what the results must say of it.
declare -A expect=(
  [exit_before_main]="exited with status 0 before any test reported progress"
  [fake_gtest_stdout]="without a report from the test program"
  [fake_reports]="does not carry this run's secret"
  [read_expected_values]=""
  [infinite_loop]="longer than the 10 s one test may take"
  [fork_bomb]="longer than the 10 s one test may take"
  [allocate_all_memory]="killed by signal 9"
  [flood_stdout]="MiB of output"
  [kill_grader]=""
  [leftover_process]=""
  [modify_other_files]="changed files the grader needs"
  [symlink_to_test]="symbolic link"
  [symlink_to_shadow]="symbolic link"
  [include_secret_file]="Permission denied"
  [gpu_kernel_never_ends]=""
)
listed=$(tail -n +2 autograder/exploits/catalogue.csv | cut -d, -f1 | sort)
present=$(ls autograder/exploits | grep -v catalogue.csv | sort)
[[ "$listed" == "$present" ]] || { say "autograder/exploits/catalogue.csv does not list exactly the exploits there"; diff <(echo "$listed") <(echo "$present"); exit 1; }
for exploit in $present; do
  [[ -v "expect[$exploit]" ]] || { say "no expectation for exploit $exploit"; exit 1; }
  labs=00
  [[ $exploit == modify_other_files ]] && labs=00,01
  say "grading exploit $exploit"
  grade "exploit-$exploit" "$root/autograder/exploits/$exploit" "$scratch/work-students" --labs "$labs" --test-timeout 10
  check "$scratch/exploit-$exploit/results.json" zero 00_vadd_journey "${expect[$exploit]}"
  if grep -q 'root:' "$scratch/exploit-$exploit/results.json"; then say "$exploit: a secret file leaked into the results"; exit 1; fi
done

say "building the Gradescope bundle"
LAUNCHLAB_GRADE_ARGS="--labs 00" docker/gradescope/make-zip.sh "$scratch/autograder.zip" >/dev/null
say "grading a sample with run_autograder, in a container from the same base"
mkdir -p "$scratch/gs/submission" "$scratch/gs/results"
rm -rf "$scratch/gs/submission/labs" && cp -r solutions/00_vadd_journey/. "$scratch/gs/submission/"
timeout 900 docker run --rm \
  -v /usr/local/cuda:/usr/local/cuda:ro \
  -v "$scratch/autograder.zip:/tmp/autograder.zip:ro" \
  -v "$scratch/gs/submission:/autograder/submission:ro" \
  -v "$scratch/gs/results:/autograder/results" \
  -e LAUNCHLAB_CUDA_ARCHITECTURES=90 \
  launchlab-base:bookworm bash -c '
    set -e
    apt-get update -qq >/dev/null && apt-get install -y -qq unzip python3 >/dev/null
    mkdir -p /autograder/source && cd /autograder/source && unzip -q /tmp/autograder.zip
    bash setup.sh
    bash run_autograder' > "$scratch/gradescope.log" 2>&1 || { tail -40 "$scratch/gradescope.log"; say "the Gradescope run failed"; exit 1; }
python3 docker/check_results.py "$scratch/gs/results/results.json" less
python3 - "$scratch/gs/results/results.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
grid = [t for t in results["tests"] if t["name"].startswith("00_vadd_journey: GridArithmetic")]
assert grid and all(t["score"] == t["max_score"] for t in grid), "the sample's grid tests should pass on Gradescope"
print("docker/ci: the Gradescope sample graded its grid tests in full")
PY
say "done in $(( $(date +%s) - start )) s"
