#!/usr/bin/env bash
# A release export of the course: the files of the committed revision (git
# HEAD), never a working tree's, with the revision in .launchlab-release so
# that the grader takes the folder for the committed course. The grader's
# image and Gradescope's bundle are made from it; it keeps the solutions
# (the grader's reference programs are built from them, and only the grader
# may read them) but not the grader's own tests or the exploit catalogue.
#
#   docker/export-course.sh OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: export-course.sh OUT_DIR}
if [[ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]]; then
  echo "export-course: the working tree has uncommitted changes; the export holds HEAD only" >&2
fi
mkdir -p "$out"
git -C "$root" archive --format=tar HEAD | tar -x -C "$out"
rm -rf "$out/autograder/exploits" "$out/autograder/selftest"
git -C "$root" rev-parse HEAD > "$out/.launchlab-release"
