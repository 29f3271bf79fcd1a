#!/usr/bin/env bash
# Makes Gradescope's autograder.zip: setup.sh, run_autograder, their
# settings and a release export of the committed course (docker/export-course.sh:
# HEAD's files, never a working tree's).
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

"$root/docker/export-course.sh" "$stage/course"
cp "$stage/course/docker/gradescope/setup.sh" "$stage/course/docker/gradescope/run_autograder" "$stage/"
printf 'LAUNCHLAB_GRADE_ARGS=%q\n' "${LAUNCHLAB_GRADE_ARGS:-}" > "$stage/launchlab.conf"
mkdir -p "$(dirname "$out")"
rm -f "$out"
(cd "$stage" && python3 -m zipfile -c "$out" setup.sh run_autograder launchlab.conf course)
echo "$out"
