#!/usr/bin/env bash
# Makes a base image without a registry: Debian 12 by debootstrap, then
# `docker import`. The CUDA toolkit is not in it: mount the host's read-only
# at /usr/local/cuda when the container runs (docker/ci.sh does).
#
#   docker/make-base.sh [TAG]        (default TAG: launchlab-base:bookworm)
set -euo pipefail
tag=${1:-launchlab-base:bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
if docker image inspect "$tag" >/dev/null 2>&1; then
  echo "base image $tag is already here"
  exit 0
fi
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$mirror" >/dev/null
tar -C "$root" -c . | docker import - "$tag" >/dev/null
echo "made base image $tag"
