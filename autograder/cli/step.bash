# step, for the course's front script (./launchlab), which builds the
# launchlab program and so cannot use its heartbeat (grader/heartbeat.h):
# the same lines, at the same pace. It needs `say` and `root`.

# How long a step may stay silent before it says that it still goes on: the
# launchlab program's own pace (kHeartbeatSeconds), read from where it is set.
heartbeat=$(sed -n 's/.*kHeartbeatSeconds = \([0-9]*\);.*/\1/p' "$root/autograder/grader/include/launchlab/grader/heartbeat.h")

# Runs a long step (a configure, a build) with its output on stderr: as it
# comes (show), or only when the step fails (quiet). Whenever it has been
# silent for $heartbeat seconds (one compile takes minutes on 2 cores), a
# line says that it still goes on. Returns the step's exit status.
step() {
  local show=$1 doing=$2 started=$SECONDS line pending="" kept="" status=0 from pid said left
  shift 2
  exec {from}< <("$@" 2>&1)
  pid=$!
  said=${EPOCHREALTIME/[.,]/}
  while :; do
    # The wait is what is left (in microseconds) of the silence allowed since
    # the last line shown: output kept back does not count as shown.
    left=$((heartbeat * 1000000 - (${EPOCHREALTIME/[.,]/} - said)))
    ((left > 10000)) || left=10000
    if IFS= read -r -t "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))" -u "$from" line; then
      line=$pending$line pending=""
      if [[ $show == show ]]; then
        printf '%s\n' "$line" >&2
        said=${EPOCHREALTIME/[.,]/}
      else
        kept+=$line$'\n'
      fi
    elif (($? > 128)); then
      # A timeout keeps what came of an unfinished line.
      pending+=$line
      say "still $doing ($((SECONDS - started)) s so far)"
      said=${EPOCHREALTIME/[.,]/}
    else
      pending+=$line
      break
    fi
  done
  exec {from}<&-
  wait "$pid" || status=$?
  [[ $show == show || $status -ne 0 ]] && printf '%s' "$kept${pending:+$pending$'\n'}" >&2
  return "$status"
}
