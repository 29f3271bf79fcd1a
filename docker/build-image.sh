#!/usr/bin/env bash
# Builds the grader's image from a release export of the committed course
# (docker/export-course.sh), never from a working tree, on a base made
# locally with debootstrap (docker/make-base.sh) unless BASE_IMAGE names one.
#
#   docker/build-image.sh [TAG]          (default TAG: launchlab-grader:ci)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tag=${1:-launchlab-grader:ci}
base=${BASE_IMAGE:-launchlab-base:bookworm}
[[ -n "${BASE_IMAGE:-}" ]] || "$root/docker/make-base.sh" "$base"
export_dir=$(mktemp -d /tmp/launchlab-export.XXXXXX)
trap 'rm -rf "$export_dir"' EXIT
"$root/docker/export-course.sh" "$export_dir"
docker build -q -f "$export_dir/docker/Dockerfile" --build-arg BASE_IMAGE="$base" -t "$tag" "$export_dir" >/dev/null
echo "built $tag from revision $(cat "$export_dir/.launchlab-release")"
