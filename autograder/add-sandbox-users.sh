#!/usr/bin/env bash
# Makes the grader's pool of dedicated sandbox users: launchlab-sandbox and
# launchlab-sandbox-1 ... launchlab-sandbox-(N-1), system users without a
# home or a shell. Run as root; users already there are kept. A grading runs
# as many of a submission's programs at once as it has users (one user runs
# one program at a time), and grade-class shares the pool out among the
# gradings it runs side by side (docs/instructors.md).
#
# --first-uid U gives the users the ids U, U+1, ... (each with a group of
# the same id) instead of the next free system ids. The grader's image uses
# it: files its users write in a folder mounted from the host show there
# under these ids, and the host's own pool, made with the next free system
# ids, would otherwise own them too (and a host's check for files its
# sandbox users left behind would find, and remove, a container's).
#
# usage: autograder/add-sandbox-users.sh [--first-uid U] [N]   (default 16)
# To remove them: for u in $(getent passwd | cut -d: -f1 | grep '^launchlab-sandbox'); do userdel "$u"; done
set -euo pipefail
usage="usage: $0 [--first-uid U] [N], N from 1 to 64 (the grader looks no further than launchlab-sandbox-64), U from 100 to 60000"
first_uid=
if [[ ${1:-} == --first-uid ]]; then
  first_uid=${2:-}
  shift 2 || true
  if ! [[ $first_uid =~ ^[1-9][0-9]*$ ]] || ((first_uid < 100 || first_uid > 60000)); then
    echo "$usage" >&2
    exit 2
  fi
fi
count=${1:-16}
if ! [[ $count =~ ^[1-9][0-9]*$ ]] || ((count > 64)) || (($# > 1)); then
  echo "$usage" >&2
  exit 2
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "$0: only root can add users" >&2
  exit 1
fi
for ((i = 0; i < count; i++)); do
  name=launchlab-sandbox
  if ((i > 0)); then name+="-$i"; fi
  id "$name" >/dev/null 2>&1 && continue
  ids=()
  if [[ -n $first_uid ]]; then
    uid=$((first_uid + i))
    groupadd --system --gid "$uid" "$name"
    ids=(--uid "$uid" --gid "$uid")
  fi
  useradd --system "${ids[@]}" --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$name"
done
last=launchlab-sandbox
if ((count > 1)); then last+="-$((count - 1))"; fi
echo "sandbox users: launchlab-sandbox to $last${first_uid:+ (ids from $first_uid)}"
