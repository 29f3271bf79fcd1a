# What autograder/gpu-run.sh does for 08_on_the_sm beyond the tests: before
# them, the traces and the divergence timings, recorded with the solution
# (chapters/08_on_the_sm/record_trace.cpp), in the tar at
#   labs/08_on_the_sm/fixtures/vadd_4096x256.csv   commit (CPU tests, figure)
#   labs/08_on_the_sm/fixtures/spin_waves.csv      commit (CPU tests, figure)
#   chapters/08_on_the_sm/data/divergence.csv      commit (chapter numbers)
# and copied into the tree, so that the tests run on the fresh traces.
# Unpack with `tar -xf 08_on_the_sm-data.tar -C <repository>`, then redraw
# the figures (chapters/08_on_the_sm/plot_timeline.py says how).
gpu_tools=("record_trace chapters/08_on_the_sm/record_trace.cpp lab")
gpu_before_tests() {
  local fixtures=labs/$slug/fixtures
  mkdir -p "$stage/$fixtures" "$stage/chapters/$slug/data"
  # The commands fixtures/README.md names.
  (cd "$tools" && ./record_trace vadd) > "$stage/$fixtures/vadd_4096x256.csv" || return 1
  (cd "$tools" && ./record_trace spin) > "$stage/$fixtures/spin_waves.csv" || return 1
  (cd "$tools" && ./record_trace divergence) > "$stage/chapters/$slug/data/divergence.csv" || return 1
  wc -l "$stage/$fixtures/"*.csv
  cat "$stage/chapters/$slug/data/divergence.csv"
  head -12 "$stage/$fixtures/spin_waves.csv"
  for f in "$stage/$fixtures/"*.csv; do [[ -s $f ]] && cp "$f" "$root/$fixtures/"; done
}
