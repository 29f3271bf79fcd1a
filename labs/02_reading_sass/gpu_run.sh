#!/usr/bin/env bash
# The GPU-machine run of chapters 02_reading_sass and 03_binary_containers.
#
# Run from the repository root on a machine with the CUDA toolkit's
# cuobjdump and nvdisasm (no GPU is used, but that is where those tools are):
#
#   OUT=/some/folder bash labs/02_reading_sass/gpu_run.sh
#
# It writes exactly two files:
#
#   $OUT/sass-fixtures.tar  the listings to commit. Unpack them over the labs:
#                             tar -C labs -xf sass-fixtures.tar \
#                                 02_reading_sass 03_binary_containers
#                           which fills labs/02_reading_sass/fixtures/
#                           and labs/03_binary_containers/fixtures/.
#                           Its third folder, gpu-results/ (test output, the
#                           inspect tool's outputs), is a record, not to be
#                           committed.
#   $OUT/02_03-log.txt      tool versions, every command with its exit status,
#                           the side-by-side timing of cuobjdump and
#                           `launchlab inspect fatbin` on libcublasLt.so.13,
#                           and the test results of both labs' solutions.
#
# The listings come first and need nothing from the course's code, so a
# failed build further down still leaves them in the tar.
set -u
: "${OUT:?set OUT to the folder where the results go}"
export PATH=/usr/local/cuda/bin:$PATH
ROOT=$(pwd)
F02=$ROOT/labs/02_reading_sass/fixtures
F03=$ROOT/labs/03_binary_containers/fixtures
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
T02=$STAGE/tar/02_reading_sass/fixtures
T03=$STAGE/tar/03_binary_containers/fixtures
RES=$STAGE/tar/gpu-results
mkdir -p "$T02" "$T03" "$RES" "$OUT"
LOG=$OUT/02_03-log.txt
: > "$LOG"
log() { printf '%s\n' "$*" >> "$LOG"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
# run_to FILE DIR CMD...: runs CMD in DIR with its stdout in FILE, logs it.
run_to() {
  local file=$1 dir=$2; shift 2
  (cd "$dir" && "$@") > "$file" 2>> "$LOG"
  local rc=$?
  log "[rc=$rc] (cd ${dir#"$ROOT"/}) $* > $(basename "$file")"
}

log "== launchlab 02/03 GPU-machine run, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "host: $(uname -srm), $(nproc) cores"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$LOG" 2>&1 || log "nvidia-smi: not available"
for tool in nvcc cuobjdump nvdisasm; do
  log "-- $tool --version"
  "$tool" --version >> "$LOG" 2>&1 || log "$tool: not found"
done
{
  echo "Made by labs/02_reading_sass/gpu_run.sh"
  cuobjdump --version 2>&1 | tail -n 2
  nvdisasm --version 2>&1 | tail -n 2
} > "$T02/TOOLS.txt"
cp "$T02/TOOLS.txt" "$T03/TOOLS.txt"

# --- 1. Listings of the committed cubins (02) and their ELF view (03) -------
log ""
log "== listings of the committed cubins"
for cubin in "$F02"/*.cubin; do
  name=$(basename "$cubin")
  run_to "$T02/$name.cuobjdump-sass.txt" "$F02" cuobjdump -sass "$name"
  run_to "$T02/$name.nvdisasm.txt" "$F02" nvdisasm "$name"
  run_to "$T03/$name.cuobjdump-elf.txt" "$F02" cuobjdump -elf "$name"
  run_to "$T03/$name.res-usage.txt" "$F02" cuobjdump -res-usage "$name"
done
# One SASS listing of a host executable: the fatbin's own headers around it.
run_to "$T02/vadd_exe.cuobjdump-sass.txt" "$F03" cuobjdump -sass vadd_exe

# --- 2. What cuobjdump lists in the committed fatbins and host files (03) ---
log ""
log "== entry lists of the committed fatbins, object and executable"
for file in vadd.fatbin vadd_size.fatbin vadd_nocomp.fatbin zoo_size.fatbin vadd.o vadd_exe; do
  run_to "$T03/$file.list.txt" "$F03" cuobjdump --list-elf --list-ptx "$file"
  run_to "$T03/$file.cuobjdump-elf.txt" "$F03" cuobjdump -elf "$file"
done

# --- 3. libcublasLt.so.13: cuobjdump's list, kept as the truth for a test ---
LIB=/usr/local/cuda/lib64/libcublasLt.so.13
log ""
log "== $LIB"
if [ -f "$LIB" ]; then
  stat -L -c '%s' "$LIB" > "$T03/libcublasLt.so.13.size.txt"
  log "size: $(cat "$T03/libcublasLt.so.13.size.txt") bytes"
  cat "$LIB" > /dev/null   # the page cache holds it for every timed run below
  t0=$(now)
  (cd "$(dirname "$LIB")" && timeout 100 cuobjdump --list-elf --list-ptx "$(basename "$LIB")") \
    > "$T03/libcublasLt.so.13.list.txt" 2>> "$LOG"
  rc=$?
  t1=$(now)
  first_s=$(elapsed "$t0" "$t1")
  log "[rc=$rc] cuobjdump --list-elf --list-ptx libcublasLt.so.13: $first_s s (first run, file cached), $(wc -l < "$T03/libcublasLt.so.13.list.txt") lines"
else
  log "absent: no libcublasLt listing"
fi

# --- 4. Build both labs from solutions/: the tests and launchlab-inspect ----
log ""
log "== build (solutions)"
BUILD=$ROOT/build/gpu-02_03
t0=$(now)
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DLAUNCHLAB_LABS="02_reading_sass;03_binary_containers" \
  -DLAUNCHLAB_LEARNER_TREE=solutions -DLAUNCHLAB_WITH_SOLUTIONS=OFF -DLAUNCHLAB_WITH_DOCS=OFF \
  > "$STAGE/configure.txt" 2>&1
log "[rc=$?] cmake configure"
cmake --build "$BUILD" -j "$(nproc)" > "$STAGE/build.txt" 2>&1
build_rc=$?
log "[rc=$build_rc] cmake --build ($(elapsed "$t0" "$(now)") s)"
if [ "$build_rc" -ne 0 ]; then
  tail -n 60 "$STAGE/configure.txt" "$STAGE/build.txt" >> "$LOG"
fi
INSPECT=$BUILD/autograder/inspect/launchlab-inspect

# --- 5. Side by side on libcublasLt.so.13: cuobjdump and inspect fatbin -----
if [ -f "$LIB" ] && [ -x "$INSPECT" ]; then
  log ""
  log "== side by side on libcublasLt.so.13 (file in the page cache), seconds"
  log "run  cuobjdump--list-elf--list-ptx  launchlab-inspect-fatbin"
  # Three rounds, or one when cuobjdump is slow (the run stays under 3 minutes).
  rounds=3
  awk -v s="${first_s:-0}" 'BEGIN { exit !(s > 15) }' && rounds=1
  for run in $(seq "$rounds"); do
    t0=$(now)
    timeout 100 cuobjdump --list-elf --list-ptx "$LIB" > "$STAGE/cuobjdump-list.txt" 2>&1
    t1=$(now)
    "$INSPECT" fatbin "$LIB" --json > "$RES/inspect-fatbin-libcublasLt.json" 2>> "$LOG"
    rc=$?
    t2=$(now)
    log "$run    $(elapsed "$t0" "$t1")    $(elapsed "$t1" "$t2") (rc=$rc)"
  done
  # The same entries in the same order? kind and architecture, one a line.
  sed -nE 's/^(ELF|PTX) file +[0-9]+: .*\.sm_([0-9]+)[a-z]*\.(cubin|ptx)$/\1 \2/p' "$STAGE/cuobjdump-list.txt" \
    | tr 'A-Z' 'a-z' > "$RES/cuobjdump-kinds.txt"
  awk -F: '/"kind"/ { gsub(/[ ",]/, "", $2); kind = $2 } /"arch"/ { gsub(/[ ",]/, "", $2); print kind, $2 }' \
    "$RES/inspect-fatbin-libcublasLt.json" > "$RES/inspect-kinds.txt"
  if cmp -s "$RES/cuobjdump-kinds.txt" "$RES/inspect-kinds.txt"; then
    log "same entries in the same order: $(wc -l < "$RES/inspect-kinds.txt") (kind, arch)"
  else
    log "entries DIFFER: cuobjdump $(wc -l < "$RES/cuobjdump-kinds.txt"), inspect $(wc -l < "$RES/inspect-kinds.txt"); first differences:"
    diff "$RES/cuobjdump-kinds.txt" "$RES/inspect-kinds.txt" | head -n 20 >> "$LOG"
  fi
fi

# --- 6. The inspect tools on the committed files (a record) -----------------
if [ -x "$INSPECT" ]; then
  for cubin in "$F02"/zoo.*.cubin "$F02"/vadd.*.cubin; do
    "$INSPECT" cubin "$cubin" --json > "$RES/inspect-cubin-$(basename "$cubin").json" 2>> "$LOG" \
      || log "inspect cubin $(basename "$cubin") failed"
  done
  "$INSPECT" sass "$F02/zoo.sm_90.cubin" > "$RES/inspect-sass-zoo.sm_90.txt" 2>> "$LOG" || log "inspect sass failed"
  for file in vadd.fatbin vadd_size.fatbin vadd.o vadd_exe; do
    "$INSPECT" fatbin "$F03/$file" --json > "$RES/inspect-fatbin-$file.json" 2>> "$LOG" \
      || log "inspect fatbin $file failed"
  done
fi

# --- 7. The tests of both solutions, live cuobjdump/nvdisasm included -------
log ""
log "== tests (solutions)"
for slug in 02_reading_sass 03_binary_containers; do
  exe=$BUILD/tests/test_$slug
  if [ -x "$exe" ]; then
    t0=$(now)
    "$exe" --gtest_output="xml:$RES/test_$slug.xml" > "$RES/test_$slug.txt" 2>&1
    rc=$?
    log "[rc=$rc] test_$slug ($(elapsed "$t0" "$(now)") s)"
    grep -E '^\[  (PASSED|SKIPPED|FAILED) ' "$RES/test_$slug.txt" >> "$LOG"
    grep -E '^\[  FAILED  \] [A-Za-z]' "$RES/test_$slug.txt" | sort -u >> "$LOG"
  else
    log "test_$slug: not built"
  fi
done

tar -C "$STAGE/tar" -cf "$OUT/sass-fixtures.tar" 02_reading_sass 03_binary_containers gpu-results
log ""
log "== wrote $OUT/sass-fixtures.tar ($(stat -c %s "$OUT/sass-fixtures.tar") bytes):"
tar -tf "$OUT/sass-fixtures.tar" | sort >> "$LOG"
