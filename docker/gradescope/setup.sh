#!/usr/bin/env bash
# Gradescope runs this once, as root, in /autograder/source, when it builds
# the autograder's image. It installs the course's packages (packages.txt;
# and the CUDA toolkit where the image has none), makes the unprivileged user
# that submissions run as, installs the course root-only, removes the
# unpacked bundle's copy (Gradescope leaves it world-readable, solutions
# included), builds the launchlab program and the course's trusted part
# once, and ends by auditing what that user can read (docker/audit-sandbox.sh):
# a solution, a private test, a reference program or a transcript among it
# fails the setup.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends python3 ca-certificates wget \
  $(awk '$1 == "build" || $1 == "grader" || $1 == "class" {print $2}' "$here/course/packages.txt") >/dev/null

if [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  # Gradescope's images have no GPU and no CUDA: the compilers come from
  # NVIDIA's repository (the GPU tests then report "not graded here").
  . /etc/os-release
  distro="${ID}${VERSION_ID//./}"
  wget -q "https://developer.download.nvidia.com/compute/cuda/repos/${distro}/x86_64/cuda-keyring_1.1-1_all.deb" -O /tmp/cuda-keyring.deb
  dpkg -i /tmp/cuda-keyring.deb >/dev/null
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends cuda-toolkit-13-0 >/dev/null
fi

rm -rf /opt/launchlab
cp -r "$here/course" /opt/launchlab
# The pool of sandbox users, with the grader image's ids (from 1501): clear
# of the system ids a host gives its own pool. A grader on the host sweeps
# its users' processes by id across every container of the host, so a
# container whose pool had the host's ids would lose its runs to that sweep
# (CI grades this bundle's sample beside the host's own gradings).
bash /opt/launchlab/autograder/add-sandbox-users.sh --first-uid 1501 8
chown -R root:root /opt/launchlab
chmod -R go-rwx /opt/launchlab
mkdir -p /var/lib/launchlab && chmod 0700 /var/lib/launchlab
# The bundle keeps only what run_autograder reads (launchlab.conf), and
# only root may read it.
rm -rf "$here/course"
chown -R root:root "$here"
chmod -R go-rwx "$here"

# The first build: the launchlab program and the course's trusted part, for
# what this bundle grades (its launchlab.conf: the labs, the private tests),
# and the reference's transcripts (`grade --prepare`), so that each
# submission builds and runs only its own part.
LAUNCHLAB_GRADE_ARGS=""
[[ -f "$here/launchlab.conf" ]] && . "$here/launchlab.conf"
# shellcheck disable=SC2086  # the arguments are words on purpose
env PATH="/usr/local/cuda/bin:$PATH" LAUNCHLAB_PRESET=grader LAUNCHLAB_BUILD_ROOT=/var/lib/launchlab \
  LAUNCHLAB_SANDBOX=auto LAUNCHLAB_SANDBOX_USER="launchlab-sandbox*" \
  LAUNCHLAB_CUDA_ARCHITECTURES="${LAUNCHLAB_CUDA_ARCHITECTURES:-}" \
  /opt/launchlab/launchlab grade --prepare --work /tmp/launchlab-grading $LAUNCHLAB_GRADE_ARGS || true
rm -rf /tmp/launchlab-grading

# What the submissions' user can read of the course, the bundle and the
# grader's build root, with the private tests this bundle grades with.
private=()
read -r -a grade_args <<< "$LAUNCHLAB_GRADE_ARGS"
for ((i = 0; i + 1 < ${#grade_args[@]}; i++)); do
  [[ ${grade_args[i]} == --private-tests ]] && private+=(--private "${grade_args[i + 1]}")
done
/opt/launchlab/docker/audit-sandbox.sh "${private[@]}" launchlab-sandbox /opt/launchlab /autograder /var/lib/launchlab
