# What autograder/gpu-run.sh does for 09_completion beyond the tests: with
# the solution (chapters/09_completion/measure_completion.cpp), every way to
# wait, 1000 trials each in a process of its own, and copies of 4 KiB to
# 1 GiB, pageable and pinned, both directions, 10 trials each; in the tar at
#   chapters/09_completion/data/waits.csv    commit (figure and numbers)
#   chapters/09_completion/data/copies.csv   commit (figure and numbers)
# Unpack with `tar -xf 09_completion-data.tar -C <repository>`, then redraw
# the figures (chapters/09_completion/plot_completion.py says how).
gpu_tools=("measure_completion chapters/09_completion/measure_completion.cpp lab")
gpu_after_tests() {
  local m=$tools/measure_completion data=$stage/chapters/$slug/data
  local methods="stream-query-spin stream-sync-spin stream-sync-yield stream-sync-blocking event-sync-spin event-sync-blocking"
  mkdir -p "$data"
  {
    "$m" info
    echo "# command: for m in $methods; do measure_completion waits \$m 1000 50000; done"
    echo "method,trial,wake_ns,round_trip_ns"
    for method in $methods; do "$m" waits "$method" 1000 50000; done
  } > "$data/waits.csv" || return 1
  echo "waits.csv: $(grep -vc '^#' "$data/waits.csv") lines"
  {
    "$m" info
    echo "# command: measure_completion copies 10"
    echo "memory,direction,bytes,trial,seconds"
    "$m" copies 10
  } > "$data/copies.csv" || return 1
  echo "copies.csv: $(grep -vc '^#' "$data/copies.csv") lines"
  grep '^#' "$data/copies.csv"
  # The link as sysfs reports it, now that the GPU has been busy: the PCI
  # address from the runtime, with a 4-digit domain as sysfs spells it.
  local bus
  bus=$(grep '^# pci_bus_id: ' "$data/copies.csv" | cut -d' ' -f3 | tr 'A-F' 'a-f')
  if [[ ${#bus} -ge 12 ]]; then
    local dev=/sys/bus/pci/devices/${bus: -12}
    for f in max_link_speed max_link_width current_link_speed current_link_width; do
      echo "$dev/$f: $(cat "$dev/$f" 2>&1)"
    done
  fi
}
