#!/usr/bin/env bash
# Grades the mounted submission and always leaves a results.json.
#
# Layouts: /submission -> /results/results.json (plain docker run), or
# Gradescope's /autograder/submission -> /autograder/results/results.json.
# Extra arguments go to `launchlab grade` (--labs, --test-timeout, ...).
set -u
submission=/submission
results=/results
if [[ -d /autograder/submission ]]; then
  submission=/autograder/submission
  results=/autograder/results
fi
json="$results/results.json"

fail() {
  # The grader could not start: say so in the results, score nothing.
  local why=$1
  mkdir -p "$results" 2>/dev/null
  printf '{"score": 0, "output": "%s", "tests": []}\n' "$(printf '%s' "$why" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr '\n' ' ')" > "$json"
  echo "launchlab grader: $why" >&2
  exit 1
}

[[ -d "$submission" ]] || fail "no submission folder is mounted at $submission"
[[ -w "$results" ]] || fail "the results folder $results is not writable by the grader"
id launchlab-sandbox >/dev/null 2>&1 || fail "the image has no launchlab-sandbox user"

# A prebuilt tree (made when the image was built) saves rebuilding the course.
if [[ -d /opt/launchlab-prebuilt && ! -e "$LAUNCHLAB_BUILD_ROOT/$LAUNCHLAB_PRESET" ]]; then
  mkdir -p "$LAUNCHLAB_BUILD_ROOT"
  cp -a /opt/launchlab-prebuilt/. "$LAUNCHLAB_BUILD_ROOT/" || fail "could not copy the prebuilt course"
fi
mkdir -p "$LAUNCHLAB_BUILD_ROOT" && chmod 0700 "$LAUNCHLAB_BUILD_ROOT"
if ! log=$(/opt/launchlab/launchlab help 2>&1 >/dev/null); then
  fail "the launchlab program could not be built: $(printf '%s' "$log" | tail -n 20)"
fi

# The grader, as the container's first process, reaps what the sandboxed
# runs leave; the sandbox user's processes end with each run.
exec /opt/launchlab/launchlab grade --submission "$submission" --json "$json" \
  --work /tmp/launchlab-grading "$@"
