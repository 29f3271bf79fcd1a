#!/usr/bin/env bash
# Builds the libFuzzer targets of autograder/fuzz (the reference readers of
# 02_reading_sass and 03_binary_containers, with ASan and UBSan) and runs
# each for a bounded time, starting from the committed fixtures. Exits
# non-zero when a target finds a crash, a sanitizer report or an uncaught
# exception; the input that did it is left in $FUZZ_BUILD_DIR/artifacts/.
#
#   autograder/fuzz/run.sh                    20 s per target
#   FUZZ_SECONDS=300 autograder/fuzz/run.sh   longer
#
# Needs clang and its libFuzzer runtime: Debian's clang-14 and
# libclang-rt-14-dev (installed here when missing and running as root).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SECONDS_EACH=${FUZZ_SECONDS:-20}
BUILD=${FUZZ_BUILD_DIR:-$ROOT/build/fuzz}
TARGETS=(fuzz_elf fuzz_fatbin fuzz_nv_info fuzz_sass)

# --- a clang that links -fsanitize=fuzzer ------------------------------------
CXX_FUZZ=${CXX_FUZZ:-}
if [ -z "$CXX_FUZZ" ]; then
  for candidate in clang++-14 clang++; do
    if command -v "$candidate" > /dev/null; then CXX_FUZZ=$(command -v "$candidate"); break; fi
  done
fi
links_fuzzer() {
  [ -n "$CXX_FUZZ" ] || return 1
  local probe
  probe=$(mktemp -d)
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' > "$probe/p.cpp"
  "$CXX_FUZZ" -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" > /dev/null 2>&1
  local rc=$?
  rm -rf "$probe"
  return $rc
}
if ! links_fuzzer; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    echo "run.sh: installing clang-14 and libclang-rt-14-dev (libFuzzer)"
    apt-get install -y -q clang-14 libclang-rt-14-dev > /dev/null 2>&1 ||
      { apt-get update -q > /dev/null && apt-get install -y -q clang-14 libclang-rt-14-dev > /dev/null; }
    CXX_FUZZ=$(command -v clang++-14)
  fi
  links_fuzzer || { echo "run.sh: no clang with libFuzzer (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }
fi

# --- build --------------------------------------------------------------------
start=$(date +%s)
GENERATOR=()
command -v ninja > /dev/null && GENERATOR=(-G Ninja)
cmake -S "$ROOT/autograder/fuzz" -B "$BUILD" "${GENERATOR[@]}" -DCMAKE_CXX_COMPILER="$CXX_FUZZ" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 2; }
cmake --build "$BUILD" -j "$(nproc)"
echo "run.sh: built in $(( $(date +%s) - start )) s"

# --- seeds: the committed fixtures ------------------------------------------------
F02=$ROOT/autograder/tests/02_reading_sass/fixtures
F03=$ROOT/autograder/tests/03_binary_containers/fixtures
seeds() {
  case "$1" in
    fuzz_elf) ls "$F02"/*.cubin "$F03"/vadd.o "$F03"/vadd_exe ;;
    fuzz_fatbin) ls "$F03"/*.fatbin "$F03"/vadd.o "$F03"/vadd_exe "$F02"/vadd.sm_90.cubin ;;
    fuzz_nv_info) ;;  # made below from the cubins' .nv.info sections
    fuzz_sass) ls "$F02"/*.txt 2> /dev/null | grep -E 'cuobjdump-sass|nvdisasm' || true ;;
  esac
}
mkdir -p "$BUILD/artifacts"
status=0
for target in "${TARGETS[@]}"; do
  corpus=$BUILD/corpus/$target
  rm -rf "$corpus"
  mkdir -p "$corpus"
  for seed in $(seeds "$target"); do cp "$seed" "$corpus/"; done
  if [ "$target" = fuzz_nv_info ]; then
    # The .nv.info sections of the committed cubins, cut out with dd.
    for cubin in "$F02"/*.cubin; do
      readelf -SW "$cubin" 2> /dev/null | awk '/\.nv\.info/ { for (i = 1; i <= NF; i++) if ($i ~ /^\.nv\.info/) print $i, $(i+3), $(i+4) }' |
        while read -r name off size; do
          dd if="$cubin" of="$corpus/$(basename "$cubin").$name" bs=1 skip=$((16#$off)) count=$((16#$size)) status=none
        done
    done
  fi
  if [ "$target" = fuzz_sass ] && [ -z "$(ls -A "$corpus")" ]; then
    printf '\tcode for sm_90\n\t\tFunction : k\n        /*0000*/  LDC R1, c[0x0][0x28] ;  /* 0x00000a00ff017b82 */\n' > "$corpus/seed.txt"
  fi
  echo "run.sh: $target for $SECONDS_EACH s from $(ls "$corpus" | wc -l) seeds"
  if ! "$BUILD/$target" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$BUILD/artifacts/$target-" -print_final_stats=1 "$corpus" > "$BUILD/$target.log" 2>&1; then
    echo "run.sh: $target FAILED; the end of its log:"
    tail -n 40 "$BUILD/$target.log"
    status=1
  else
    grep -E '^stat::number_of_executed_units|^Done' "$BUILD/$target.log" | tr '\n' ' '
    echo
  fi
done
echo "run.sh: finished in $(( $(date +%s) - start )) s, status $status"
exit $status
