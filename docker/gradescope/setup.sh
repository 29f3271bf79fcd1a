#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image.
# It installs the build tools (and the CUDA toolkit where the image has none),
# makes an unprivileged user for grading, and builds the course once so that
# each submission rebuilds only what it changes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends cmake ninja-build g++ libgtest-dev python3 ca-certificates wget >/dev/null

if [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  # Gradescope's images have no GPU and no CUDA: the compilers come from
  # NVIDIA's repository (the GPU tests then report "needs a GPU").
  . /etc/os-release
  distro="${ID}${VERSION_ID//./}"
  wget -q "https://developer.download.nvidia.com/compute/cuda/repos/${distro}/x86_64/cuda-keyring_1.1-1_all.deb" -O /tmp/cuda-keyring.deb
  dpkg -i /tmp/cuda-keyring.deb >/dev/null
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends cuda-toolkit-13-0 >/dev/null
fi

id launchlab >/dev/null 2>&1 || useradd --create-home --shell /bin/bash launchlab
rm -rf /opt/launchlab
cp -r "$here/course" /opt/launchlab
chown -R root:root /opt/launchlab
chmod -R a+rX,go-w /opt/launchlab

# The first build, as the grading user, of the launchlab program and the
# pristine graded tree.
runuser -u launchlab -- env PATH="/usr/local/cuda/bin:$PATH" LAUNCHLAB_PRESET=grader \
  LAUNCHLAB_BUILD_ROOT=/home/launchlab/build LAUNCHLAB_CUDA_ARCHITECTURES="${LAUNCHLAB_CUDA_ARCHITECTURES:-}" \
  /opt/launchlab/launchlab help >/dev/null
