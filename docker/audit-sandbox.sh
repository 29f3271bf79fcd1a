#!/usr/bin/env bash
# What the sandbox user can read of the course, audited as that user sees
# it: lists every plain file USER may read under the folders named, and fails
# if one of them is a solution, a private test, a reference program or a
# transcript, by its place (solutions/, private tests, reference_*,
# *.transcript) or by its content (the same bytes as a file of the course's
# solutions/ or of a private tests folder).
#
#   docker/audit-sandbox.sh [--private DIR]... USER COURSE [FOLDER...]
#
# COURSE is the installed course (its solutions/ are what is looked for, and
# it is audited too); each FOLDER is audited as well: the bundle a deployment
# was unpacked from, the grader's build root. --private names a private tests
# folder (its files are looked for too). Run as root. Exit status 0 when
# nothing of the kinds above is readable, 1 with one line a file when
# something is, 2 when it cannot audit (not root, no such user or folder).
set -uo pipefail
say() { printf 'audit-sandbox: %s\n' "$*"; }
usage() { echo "usage: $0 [--private DIR]... USER COURSE [FOLDER...]" >&2; exit 2; }

private=()
while [[ ${1:-} == --private ]]; do
  [[ -n ${2:-} ]] || usage
  private+=("$2")
  shift 2
done
(($# >= 2)) || usage
user=$1
course=$2
shift 2
folders=("$course" "$@")
[[ $(id -u) -eq 0 ]] || { say "run me as root: I read as $user and compare with what only root may read"; exit 2; }
id "$user" >/dev/null 2>&1 || { say "no user named $user"; exit 2; }
[[ -d $course/solutions ]] || { say "$course holds no solutions/: not an installed course"; exit 2; }

# As the sandbox user: every plain file it may read, not crossing into other
# file systems (a folder the user cannot enter hides what is below it, as it
# does from the submission).
as_user() {
  if command -v runuser >/dev/null 2>&1; then runuser -u "$user" -- "$@"
  else setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups -- "$@"; fi
}
readable=$(mktemp)
secrets=$(mktemp)
trap 'rm -f "$readable" "$secrets"' EXIT
for folder in "${folders[@]}"; do
  [[ -e $folder ]] || continue
  as_user find "$folder" -xdev -type f -readable -print 2>/dev/null >> "$readable"
done

# The contents looked for: the solutions' files and the private tests'.
for folder in "$course/solutions" "${private[@]}"; do
  [[ -d $folder ]] && find "$folder" -type f -size -4M -print0 | xargs -0 -r sha256sum | cut -d' ' -f1 >> "$secrets"
done
sort -u -o "$secrets" "$secrets"

problems=0
while IFS= read -r file; do
  why=""
  case "$file" in
    */solutions/*) why="a solution" ;;
    */private_tests/* | */private-tests/* | */tests.toml) why="a private test" ;;
    */reference_[0-9]*) why="a reference program" ;;
    *.transcript | *reference-transcript*) why="a transcript" ;;
  esac
  for folder in "${private[@]}"; do
    [[ $file == "$folder"/* ]] && why="a private test"
  done
  if [[ -z $why && $(stat -c %s "$file" 2>/dev/null || echo 0) -lt 4194304 ]]; then
    digest=$(sha256sum < "$file" 2>/dev/null | cut -d' ' -f1)
    if [[ -n $digest ]] && grep -qx "$digest" "$secrets"; then why="a copy of a solution or a private test"; fi
  fi
  if [[ -n $why ]]; then
    echo "readable by $user: $file ($why)"
    problems=$((problems + 1))
  fi
done < "$readable"

count=$(wc -l < "$readable")
if ((problems)); then
  say "$user can read $problems of the course's secret files (of $count files it can read under ${folders[*]})"
  exit 1
fi
say "$user can read $count files under ${folders[*]}; none is a solution, a private test, a reference program or a transcript"
