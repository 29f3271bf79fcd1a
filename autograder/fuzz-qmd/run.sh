#!/usr/bin/env bash
# Fuzzes the reference solutions of 07_qmd (the MW field reader and writer, the
# QMD decoder and encoder) and 06_channels (method headers, GPFIFO entries, the
# pushbuffer parser, the host engine model) with libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer, for a bounded time per target.
#
#   autograder/fuzz-qmd/run.sh                # every target, 20 s each
#   FUZZ_SECONDS=60 autograder/fuzz-qmd/run.sh fuzz_qmd
#
# Environment: FUZZ_SECONDS (per target, default 20), FUZZ_BUILD_DIR (default
# build/fuzz-qmd), FUZZ_CXX (default clang++-14, else clang++).
# Exits non-zero when a target finds an input that crashes, trips a sanitizer
# or breaks one of its checks; the input is kept in the build folder as
# crash-*, and can be replayed with `<build>/<target> <file>`.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here="$root/autograder/fuzz-qmd"
seconds=${FUZZ_SECONDS:-20}
build=${FUZZ_BUILD_DIR:-$root/build/fuzz-qmd}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz_field fuzz_qmd fuzz_pushbuf fuzz_host_engine)
fi

cxx=${FUZZ_CXX:-}
if [ -z "$cxx" ]; then
  if command -v clang++-14 >/dev/null; then cxx=clang++-14; else cxx=clang++; fi
fi
command -v "$cxx" >/dev/null || { echo "run.sh: $cxx not found (install clang)" >&2; exit 2; }

mkdir -p "$build"
start=$(date +%s)

# libFuzzer's runtime comes in its own Debian package; install it when we can.
probe="$build/probe.cpp"
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe"
if ! "$cxx" -fsanitize=fuzzer "$probe" -o "$build/probe" 2>/dev/null; then
  version=$("$cxx" -dumpversion | cut -d. -f1)
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "run.sh: libFuzzer's runtime is missing; installing libclang-rt-$version-dev"
    apt-get install -y "libclang-rt-$version-dev" >/dev/null || {
      apt-get update >/dev/null && apt-get install -y "libclang-rt-$version-dev" >/dev/null; }
  else
    echo "run.sh: libFuzzer's runtime is missing: install libclang-rt-$version-dev (as root)" >&2
    exit 2
  fi
fi

# The sources of a lab as the reference build takes them: each file of the
# lab folder, replaced by solutions/<slug>/<file> where that exists.
lab_sources() {
  local slug=$1 file base
  for file in "$root/labs/$slug"/*.cpp; do
    base=$(basename "$file")
    if [ -f "$root/solutions/$slug/$base" ]; then echo "$root/solutions/$slug/$base"; else echo "$file"; fi
  done
}

flags=(-std=c++20 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -I"$root/labs/include" -I"$root/labs/07_qmd" -I"$root/labs/06_channels")
objects=()
for src in $(lab_sources 07_qmd) $(lab_sources 06_channels); do
  obj="$build/$(basename "$(dirname "$src")")_$(basename "$(dirname "$(dirname "$src")")")_$(basename "$src" .cpp).o"
  "$cxx" "${flags[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
  objects+=("$obj")
done

# Seeds: the committed fixtures (a QMD seed starts with the byte that picks
# its version: 3 % 3 = 0 for V03_00, 1 for V04_00, 2 for V05_00).
seeds="$build/seeds"
rm -rf "$seeds" && mkdir -p "$seeds/fuzz_qmd" "$seeds/fuzz_field" "$seeds/fuzz_pushbuf" "$seeds/fuzz_host_engine"
for qmd in "$root"/autograder/tests/07_qmd/fixtures/*.qmd; do
  case $(basename "$qmd") in
    *v03*) v='\x00' ;; *v04*) v='\x01' ;; *) v='\x02' ;;
  esac
  { printf "$v"; cat "$qmd"; } > "$seeds/fuzz_qmd/$(basename "$qmd")"
  { printf '\x00\x02\x00\x00\xe0\x01\x00\x00\xff\x00\x00\x00\x00\x00\x00\x00'; cat "$qmd"; } \
    > "$seeds/fuzz_field/$(basename "$qmd")"
done
for pb in "$root"/autograder/tests/06_channels/fixtures/*.pushbuf; do
  cp "$pb" "$seeds/fuzz_pushbuf/"
  cp "$pb" "$seeds/fuzz_host_engine/"
done

status=0
for target in "${targets[@]}"; do
  [ -f "$here/$target.cpp" ] || { echo "run.sh: no target $target" >&2; exit 2; }
  "$cxx" "${flags[@]}" -fsanitize=fuzzer "$here/$target.cpp" "${objects[@]}" -o "$build/$target"
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  echo "== $target: ${seconds} s"
  if ! (cd "$build" && "./$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
          -print_final_stats=1 -artifact_prefix="$build/$target-" "$corpus" "$seeds/$target" 2>"$build/$target.log"); then
    echo "== $target FAILED: see $build/$target.log" >&2
    tail -n 40 "$build/$target.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$build/$target.log" | sed 's/^/   /'
  fi
done
echo "== fuzz-qmd: $(( $(date +%s) - start )) s in all"
exit $status
