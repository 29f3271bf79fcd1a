#!/usr/bin/env bash
# Builds the libFuzzer targets of autograder/fuzz (the reference code of
# 02_reading_sass, 03_binary_containers, 06_channels and 07_qmd, with ASan
# and UBSan) and runs each for a bounded time, starting from the committed
# fixtures. Exits non-zero when a target finds a crash, a sanitizer report,
# an uncaught exception or an input that breaks one of its checks; the input
# that did it is left in $FUZZ_BUILD_DIR/artifacts/, and can be replayed with
# `<build>/<target> <file>`.
#
#   autograder/fuzz/run.sh                           every target, 20 s each
#   FUZZ_SECONDS=300 autograder/fuzz/run.sh fuzz_qmd  one target, longer
#
# Environment: FUZZ_SECONDS (per target, default 20), FUZZ_BUILD_DIR (default
# build/fuzz), CXX_FUZZ (default clang++-14, else clang++). Needs clang and
# its libFuzzer runtime: Debian's clang-14 and libclang-rt-14-dev (installed
# here when missing and running as root).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SECONDS_EACH=${FUZZ_SECONDS:-20}
BUILD=${FUZZ_BUILD_DIR:-$ROOT/build/fuzz}
ALL_TARGETS=(fuzz_elf fuzz_fatbin fuzz_nv_info fuzz_sass fuzz_field fuzz_qmd fuzz_pushbuf fuzz_host_engine)
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=("${ALL_TARGETS[@]}")
for target in "${TARGETS[@]}"; do
  [[ " ${ALL_TARGETS[*]} " == *" $target "* ]] || { echo "run.sh: no target $target (${ALL_TARGETS[*]})" >&2; exit 2; }
done

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
mkdir -p "$BUILD"
GENERATOR=()
command -v ninja > /dev/null && GENERATOR=(-G Ninja)
cmake -S "$ROOT/autograder/fuzz" -B "$BUILD" "${GENERATOR[@]}" -DCMAKE_CXX_COMPILER="$CXX_FUZZ" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$BUILD/configure.log" 2>&1 || { cat "$BUILD/configure.log"; exit 2; }
cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]}"
echo "run.sh: built in $(( $(date +%s) - start )) s"

# --- seeds: the committed fixtures ------------------------------------------------
F02=$ROOT/labs/02_reading_sass/fixtures
F03=$ROOT/labs/03_binary_containers/fixtures
F06=$ROOT/labs/06_channels/fixtures
F07=$ROOT/labs/07_qmd/fixtures
# seeds TARGET DIR: puts the target's seeds in DIR.
seeds() {
  local dir=$2 file
  case "$1" in
    fuzz_elf) cp "$F02"/*.cubin "$F03"/vadd.o "$F03"/vadd_exe "$dir" ;;
    fuzz_fatbin) cp "$F03"/*.fatbin "$F03"/vadd.o "$F03"/vadd_exe "$F02"/vadd.sm_90.cubin "$dir" ;;
    fuzz_nv_info)
      # The .nv.info sections of the committed cubins, cut out with dd.
      for file in "$F02"/*.cubin; do
        readelf -SW "$file" 2> /dev/null | awk '/\.nv\.info/ { for (i = 1; i <= NF; i++) if ($i ~ /^\.nv\.info/) print $i, $(i+3), $(i+4) }' |
          while read -r name off size; do
            dd if="$file" of="$dir/$(basename "$file").$name" bs=1 skip=$((16#$off)) count=$((16#$size)) status=none
          done
      done ;;
    fuzz_sass)
      for file in "$F02"/*.txt; do [[ $file =~ cuobjdump-sass|nvdisasm ]] && cp "$file" "$dir"; done
      [ -n "$(ls -A "$dir")" ] ||
        printf '\tcode for sm_90\n\t\tFunction : k\n        /*0000*/  LDC R1, c[0x0][0x28] ;  /* 0x00000a00ff017b82 */\n' > "$dir/seed.txt" ;;
    fuzz_qmd | fuzz_field)
      # A QMD seed starts with the byte that picks its version (3 % 3 = 0 for
      # V03_00, 1 for V04_00, 2 for V05_00); a field seed with a field's
      # position and width before the QMD.
      for file in "$F07"/*.qmd; do
        local version='\x02'
        case $(basename "$file") in *v03*) version='\x00' ;; *v04*) version='\x01' ;; esac
        if [ "$1" = fuzz_qmd ]; then
          { printf "$version"; cat "$file"; } > "$dir/$(basename "$file")"
        else
          { printf '\x00\x02\x00\x00\xe0\x01\x00\x00\xff\x00\x00\x00\x00\x00\x00\x00'; cat "$file"; } > "$dir/$(basename "$file")"
        fi
      done ;;
    fuzz_pushbuf | fuzz_host_engine) cp "$F06"/*.pushbuf "$dir" ;;
  esac
}
mkdir -p "$BUILD/artifacts"
status=0
for target in "${TARGETS[@]}"; do
  corpus=$BUILD/corpus/$target
  rm -rf "$corpus"
  mkdir -p "$corpus"
  seeds "$target" "$corpus"
  echo "run.sh: $target for $SECONDS_EACH s from $(ls "$corpus" | wc -l) seeds"
  if ! (cd "$BUILD" && "./$target" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$BUILD/artifacts/$target-" -print_final_stats=1 "$corpus" > "$BUILD/$target.log" 2>&1); then
    echo "run.sh: $target FAILED; the end of its log:"
    tail -n 40 "$BUILD/$target.log"
    status=1
  else
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$BUILD/$target.log" | tr '\n' ' '
    echo
  fi
done
echo "run.sh: finished in $(( $(date +%s) - start )) s, status $status"
exit $status
