#!/usr/bin/env bash
# grade-class through a real Slurm cluster: one node on localhost, brought up
# here and taken down again.
#
#  1. Installs Debian's slurm-wlm and munge when they are missing (as root).
#  2. Starts munged with a key of its own, slurmctld and slurmd, by hand (no
#     systemd), from a configuration in a fresh temporary folder: free ports,
#     no accounting, and a gres.conf whose stand-in GPU is /dev/null.
#  3. Grades three submissions of lab 00 (the solutions, nothing, grid.cpp
#     alone) with `grade-class --engine slurm`: a job array and a collector.
#  4. Checks the gradebook against each results.json (check_gradebook.py),
#     grades the same three with `--engine local`, compares the gradebooks,
#     checks that a second run finds everything up to date, and that a regrade
#     keeps the earlier results.json and --similarity finds the copied grid.cpp.
#  5. Stops the daemons it started, by their process ids, and removes the folder.
#
# usage: autograder/class/slurm-ci.sh   (run from anywhere; ./launchlab builds what is missing)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here="$root/autograder/class"
say() { printf 'slurm-ci: %s\n' "$*" >&2; }
started_at=$(date +%s%N)
elapsed() { awk -v from="$started_at" -v to="$(date +%s%N)" 'BEGIN { printf "%.1f", (to - from) / 1e9 }'; }

missing=()
for program in sbatch squeue slurmctld slurmd munged; do
  command -v "$program" >/dev/null 2>&1 || missing+=("$program")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    say "missing ${missing[*]}; install them with: sudo apt-get install -y slurm-wlm munge"
    exit 3
  fi
  say "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends slurm-wlm munge >&2 ||
    { apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends slurm-wlm munge >&2; }
fi
if [[ $(id -u) -ne 0 ]]; then
  # slurmd starts each job as its owner, which takes root.
  say "the single-node cluster needs root (slurmd runs the jobs as their owners)"
  exit 3
fi

state=$(mktemp -d /tmp/launchlab-slurm.XXXXXX)
chmod 0711 "$state"  # munged's socket lives below: others may reach it, not list it
pids=()
stop_cluster() {
  local status=$?
  if [[ -n "${SLURM_CONF:-}" ]] && ((${#pids[@]})); then
    # The jobs of this cluster are all this script's.
    scancel --quiet $(squeue --noheader --format=%i 2>/dev/null) 2>/dev/null || true
  fi
  local index
  for ((index = ${#pids[@]} - 1; index >= 0; index--)); do
    kill "${pids[index]}" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  if ((status != 0)); then
    for log in "$state"/*.log "$state"/out-*/.launchlab/logs/*.out; do
      [[ -f "$log" ]] && { say "--- $log"; tail -n 30 "$log" >&2; }
    done
  fi
  rm -rf "$state"
  exit "$status"
}
trap stop_cluster EXIT

# ---- munge: a key of its own, a socket of its own
mkdir -m 0700 "$state/munge"
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$state/munge/munge.key"
munged --foreground --force --key-file="$state/munge/munge.key" --socket="$state/munge/socket" \
  --pid-file="$state/munge/munged.pid" --seed-file="$state/munge/seed" --log-file="$state/munged.log" \
  >>"$state/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
  munge --socket="$state/munge/socket" --no-input >/dev/null 2>&1 && break
  sleep 0.1
done
munge --socket="$state/munge/socket" --no-input | unmunge --socket="$state/munge/socket" >/dev/null

# ---- slurm: one node, this host, two free ports
host=$(hostname -s)
read -r controller_port node_port < <(/usr/bin/python3 -c '
import socket
sockets = [socket.socket() for _ in range(2)]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])')
mkdir -p "$state/spool" "$state/ctld"
cat >"$state/slurm.conf" <<EOF
ClusterName=launchlab
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$controller_port
SlurmdPort=$node_port
AuthType=auth/munge
AuthInfo=socket=$state/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
GresTypes=gpu
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1024 Gres=gpu:1 State=UNKNOWN
PartitionName=grading Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
# A stand-in for the GPU: Slurm hands it out as gpu:1 (CUDA_VISIBLE_DEVICES=0);
# the grader still finds no CUDA device here and says those points need one.
echo "NodeName=$host Name=gpu File=/dev/null" >"$state/gres.conf"
export SLURM_CONF="$state/slurm.conf"
slurmctld -D -c -f "$SLURM_CONF" >>"$state/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$state/slurmd.log" 2>&1 &
pids+=($!)
node_state=""
for _ in $(seq 120); do
  node_state=$(sinfo --noheader --format=%t 2>/dev/null || true)
  [[ "$node_state" == idle ]] && break
  sleep 0.25
done
[[ "$node_state" == idle ]] || { say "the node did not come up (state '$node_state')"; exit 1; }
say "a one-node cluster is up after $(elapsed) s"

# ---- three submissions of lab 00
class="$state/class"
mkdir -p "$class/solutions" "$class/empty" "$class/grid_only/00_vadd_journey"
cp -r "$root/solutions/00_vadd_journey" "$class/solutions/"
cp "$root/solutions/00_vadd_journey/grid.cpp" "$class/grid_only/00_vadd_journey/"
grade_class=("$root/launchlab" grade-class --submissions "$class" --labs 00 --course-secret "launchlab-ci-secret")

slurm_start=$(date +%s)
"${grade_class[@]}" --out "$state/out-slurm" --engine slurm --cpus-per-task 1 --wait 900
say "--engine slurm took $(( $(date +%s) - slurm_start )) s"
/usr/bin/python3 "$here/check_gradebook.py" "$state/out-slurm" --students 3 --full solutions \
  --order solutions,grid_only,empty

local_start=$(date +%s)
"${grade_class[@]}" --out "$state/out-local" --engine local --jobs 2
say "--engine local took $(( $(date +%s) - local_start )) s"
/usr/bin/python3 "$here/check_gradebook.py" "$state/out-local" --students 3 --full solutions \
  --order solutions,grid_only,empty --same-as "$state/out-slurm"

again=$("${grade_class[@]}" --out "$state/out-local" --engine local --jobs 2)
grep -q "0 to grade, 3 up to date" <<<"$again" || { say "a second run graded again: $again"; exit 1; }

# A regrade keeps the earlier results.json; --similarity finds grid_only's
# grid.cpp in the solutions' (it is the same file).
"${grade_class[@]}" --out "$state/out-local" --engine local --jobs 2 --regrade empty --similarity >/dev/null
[[ -f "$state/out-local/empty/history/1-results.json" ]] || { say "a regrade kept no earlier results.json"; exit 1; }
grep -q "| 00_vadd_journey | grid_only, solutions | 100% |" "$state/out-local/summary.md" ||
  { say "--similarity did not find the copied grid.cpp: $(cat "$state/out-local/summary.md")"; exit 1; }
say "passed in $(elapsed) s"
