# What autograder/gpu-run.sh does for 11_occupancy beyond the tests: the
# table of cudaOccupancyMaxActiveBlocksPerMultiprocessor's answers that the
# CPU tests read (occupancy_table.cu of the tests' tools/, which runs the
# tests' probe kernels), those tests run again on it, and the tuning figures
# the chapter plots, measured with the solution (tools/tuning_sweep.cu here,
# with the device-to-device copy bandwidth and the reference vadd's); in the
# tar at
#   labs/11_occupancy/fixtures/occupancy_sm90.csv          commit
#   chapters/11_occupancy/data/vadd_tuning_h200.csv        commit
#   chapters/11_occupancy/data/heavy_tuning_h200.csv       commit
#   gpu-report/11_occupancy-tests_with_table.json          the table's tests on the new table
gpu_tools=("occupancy_table autograder/tests/11_occupancy/tools/occupancy_table.cu"
           "tuning_sweep labs/11_occupancy/tools/tuning_sweep.cu lab")
gpu_after_tests() {
  local fixtures=labs/$slug/fixtures data=$stage/chapters/$slug/data status=0
  mkdir -p "$stage/$fixtures" "$data"
  { made_by "occupancy_table 600"; "$tools/occupancy_table" 600; } > "$stage/$fixtures/occupancy_sm90.csv" || return 1
  head -5 "$stage/$fixtures/occupancy_sm90.csv"
  # The CPU tests of the table, reading the new table; the committed one is put back.
  local fixture=$root/$fixtures/occupancy_sm90.csv previous
  previous=$(mktemp)
  [[ -f $fixture ]] && cp "$fixture" "$previous"
  cp "$stage/$fixtures/occupancy_sm90.csv" "$fixture"
  "$build/tests/reference_$slug" --gtest_filter='OccupancyTable.*' \
    --gtest_output=json:"$stage/gpu-report/$slug-tests_with_table.json" || status=1
  if [[ -s $previous ]]; then cp "$previous" "$fixture"; else rm -f "$fixture"; fi
  rm -f "$previous"
  "$tools/tuning_sweep" "$data/vadd_tuning_h200.csv" "$data/heavy_tuning_h200.csv" || status=1
  for f in vadd_tuning_h200.csv heavy_tuning_h200.csv; do
    if [[ -f $data/$f ]]; then
      sed -i "1s|^# |$(made_by tuning_sweep); |" "$data/$f"
      echo "-- $f"; cat "$data/$f"
    fi
  done
  return $status
}
