#!/usr/bin/env bash
# Makes Gradescope's autograder.zip: setup.sh, run_autograder and the
# pristine course (no solutions, no exploits, no history).
#
#   docker/gradescope/make-zip.sh [OUT.zip]      (default: build/autograder.zip)
#
# LAUNCHLAB_GRADE_ARGS, if set, is stored in the bundle and passed to
# `launchlab grade` (say "--labs 00,01" for an assignment of two labs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(realpath -m "${1:-$root/build/autograder.zip}")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/course"
# The tracked files only, so that nothing local (builds, edits in progress of
# a learner) ends up in a course's grader.
(cd "$root" && git ls-files -z) | (cd "$root" && tar --null -T - -cf -) | tar -C "$stage/course" -xf -
rm -rf "$stage/course/solutions" "$stage/course/autograder/exploits" "$stage/course/autograder/selftest" "$stage/course/.git"
cp "$here/setup.sh" "$here/run_autograder" "$stage/"
printf 'LAUNCHLAB_GRADE_ARGS=%q\n' "${LAUNCHLAB_GRADE_ARGS:-}" > "$stage/launchlab.conf"
mkdir -p "$(dirname "$out")"
rm -f "$out"
(cd "$stage" && python3 -m zipfile -c "$out" setup.sh run_autograder launchlab.conf course)
echo "$out"
