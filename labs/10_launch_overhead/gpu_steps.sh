# What autograder/gpu-run.sh does for 10_launch_overhead beyond the tests:
# with the reference harness built on the solution (bench/launch_bench.cu),
# the figures the chapter plots, the latency followed for 20 seconds, and the
# launch latency five times in five processes, with their CV; in the tar at
#   chapters/10_launch_overhead/data/launch_overhead_h200.csv  launch_bench --all
#   chapters/10_launch_overhead/data/latency_drift_h200.csv    launch_bench --drift 20: each half second's
#                                                              medians of the round trip, its launch call and
#                                                              its wait; the steal time
#   chapters/10_launch_overhead/data/latency_runs_h200.csv     the five latency runs (median, p10, p90, trials,
#                                                              the lowest and highest median of a tenth of the run)
# launch_bench places itself (spin-wait scheduling, the CPUs next to the GPU,
# its measuring thread on one of them, a second of settling launches) and
# says where on standard error: no taskset here, since one CPU for the whole
# process would put the driver's own threads on the core it spins on.
gpu_tools=("launch_bench labs/10_launch_overhead/bench/launch_bench.cu lab")
gpu_after_tests() {
  local bench=$tools/launch_bench data=$stage/chapters/$slug/data
  mkdir -p "$data"
  { made_by "launch_bench --all"; limited 180 "$bench" --all; } > "$data/launch_overhead_h200.csv" || return 1
  cat "$data/launch_overhead_h200.csv"
  { made_by "launch_bench --drift 20"; limited 60 "$bench" --drift 20; } > "$data/latency_drift_h200.csv" || return 1
  cat "$data/latency_drift_h200.csv"
  {
    made_by "launch_bench --latency-only, five processes one after the other; every run kept"
    echo "run,median_us,p10_us,p90_us,trials,converged,tenths_min_us,tenths_max_us"
    for run in 1 2 3 4 5; do echo "$run,$(limited 90 "$bench" --latency-only)"; done
  } > "$data/latency_runs_h200.csv"
  cat "$data/latency_runs_h200.csv"
  awk -F, '$1 ~ /^[0-9]+$/ && $2 != "" { x[n++] = $2 }
    END {
      if (n < 2) { print "fewer than two runs"; exit 1 }
      for (i = 0; i < n; i++) s += x[i]; m = s / n
      for (i = 0; i < n; i++) v += (x[i] - m) ^ 2; sd = sqrt(v / (n - 1))
      printf "%d medians: ", n; for (i = 0; i < n; i++) printf "%.3f ", x[i]
      printf "us\nmean %.3f us, standard deviation %.3f us, CV %.2f%% (at most 3%% is the goal)\n", m, sd, 100 * sd / m
    }' "$data/latency_runs_h200.csv"
}
