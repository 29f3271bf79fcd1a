#!/usr/bin/env bash
# Makes the grader's pool of dedicated sandbox users: launchlab-sandbox and
# launchlab-sandbox-1 ... launchlab-sandbox-(N-1), system users without a
# home or a shell. Run as root; users already there are kept. A grading runs
# as many of a submission's programs at once as it has users (one user runs
# one program at a time), and grade-class shares the pool out among the
# gradings it runs side by side (docs/instructors.md).
#
# usage: autograder/add-sandbox-users.sh [N]   (default 16)
# To remove them: for u in $(getent passwd | cut -d: -f1 | grep '^launchlab-sandbox'); do userdel "$u"; done
set -euo pipefail
count=${1:-16}
if ! [[ $count =~ ^[1-9][0-9]*$ ]] || ((count > 64)); then
  echo "usage: $0 [N], N from 1 to 64 (the grader looks no further than launchlab-sandbox-64)" >&2
  exit 2
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "$0: only root can add users" >&2
  exit 1
fi
for ((i = 0; i < count; i++)); do
  name=launchlab-sandbox
  if ((i > 0)); then name+="-$i"; fi
  id "$name" >/dev/null 2>&1 ||
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$name"
done
last=launchlab-sandbox
if ((count > 1)); then last+="-$((count - 1))"; fi
echo "sandbox users: launchlab-sandbox to $last"
