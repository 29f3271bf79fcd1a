#!/usr/bin/env bash
# The GPU-machine run for large parameter lists and the libcublasLt corpus
# (chapters 02 and 03). Run from the repository root on a machine with the
# CUDA toolkit's cuobjdump and nvdisasm (no GPU is used; that is where the
# tools are):
#
#   OUT=/some/folder bash labs/03_binary_containers/gpu_corpus.sh
#
# Needs bash, cmake, ninja, nvcc, cuobjdump, nvdisasm, a C++ compiler, the
# course's header-only libraries (system, or .carry/include) and python3
# (its standard library only). GoogleTest, which the course's configure
# wants, is built first from GTEST_SOURCE (a googletest checkout; default
# .carry/googletest, then .carry/real_launch/googletest) when it is there.
# INSPECT=path/to/launchlab-inspect skips the build.
#
# It writes three files (what comes back from such a machine is a few files,
# not folders):
#
#   $OUT/corpus-log.txt   tool versions, every step with its exit status and time,
#                         the counts of the comparisons and their first differences,
#                         what the listings show at the edges (the part to read first)
#   $OUT/to-commit.tar    fixtures/large_params/sm_NN/X.cubin.cuobjdump-elf.txt,
#                         .cuobjdump-sass.txt and .nvdisasm.txt: the listings of the
#                         committed large-parameter cubins; and
#                         fixtures/libcublasLt.so.13.kernels.json, the corpus sample.
#                         To commit: tar -C labs/03_binary_containers -xf to-commit.tar
#   $OUT/record.tar.gz    a record, not to commit: large_params/ (large_params.sh on
#                         every size and architecture, listings and inspect's reading,
#                         without the cubins), corpus/differences.txt (every kernel where
#                         inspect cubin and cuobjdump -elf differ), corpus/inspect-sass.txt
#                         (`launchlab inspect sass` over the largest sm_90 cubin's listing)
#
# CORPUS_SECONDS (default 200) bounds the comparison: cubins not reached by
# then are counted as not compared.
set -u
: "${OUT:?set OUT to the folder where the results go}"
export PATH=/usr/local/cuda/bin:$PATH
ROOT=$(pwd)
LIB=${LIB:-/usr/local/cuda/lib64/libcublasLt.so.13}
JOBS=$(nproc)
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
LOG=$OUT/corpus-log.txt
: > "$LOG"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
STAGE=$WORK/stage   # fixtures/ goes to to-commit.tar, large_params/ and corpus/ to record.tar.gz
mkdir -p "$STAGE/fixtures/large_params" "$STAGE/corpus"
log() { printf '%s\n' "$*" >> "$LOG"; }
stamp() { log "== $(date -u +%T) $*"; }
failures=0
# step NAME CMD...: runs CMD, logs its status; a failure is counted.
step() {
  local name=$1; shift
  local start=$SECONDS
  "$@"
  local rc=$?
  log "[rc=$rc] $name ($((SECONDS - start)) s)"
  ((rc == 0)) || failures=$((failures + 1))
  return $rc
}

stamp "gpu_corpus.sh on $(uname -srm), $JOBS cores"
for tool in nvcc cuobjdump nvdisasm cmake ninja python3; do
  log "-- $tool: $("$tool" --version 2>&1 | grep -m 1 -E 'release|version|Python' || echo 'not found')"
done

# --- 1. In the background: large_params.sh, and the corpus cubins ----------
# large_params.sh compiles one file at a time and the extraction reads one
# library: both run beside the build.
stamp "large_params.sh and cuobjdump -xelf in the background"
(bash "$ROOT/chapters/03_binary_containers/tools/large_params.sh" "$STAGE/large_params" > "$WORK/large_params.txt" 2>&1
 echo "$?" > "$WORK/large_params.rc") &
large_pid=$!
mkdir -p "$WORK/xelf"
( cd "$WORK/xelf" && cuobjdump -xelf all "$LIB" > "$WORK/xelf.txt" 2>&1; echo "$?" > "$WORK/xelf.rc") &
xelf_pid=$!

# --- 2. launchlab-inspect, from solutions/ --------------------------------
if [[ -z "${INSPECT:-}" ]]; then
  stamp "build launchlab-inspect (solutions)"
  gtest_args=()
  for source in "${GTEST_SOURCE:-}" "$ROOT/.carry/googletest" "$ROOT/.carry/real_launch/googletest"; do
    [[ -n "$source" && -f "$source/CMakeLists.txt" ]] || continue
    step "googletest from $(basename "$(dirname "$source")")/$(basename "$source")" \
      bash -c "cmake -S '$source' -B '$WORK/gtest-build' -G Ninja -DBUILD_GMOCK=OFF -DCMAKE_BUILD_TYPE=Release \
                 -DCMAKE_INSTALL_PREFIX='$WORK/gtest' > '$WORK/gtest.txt' 2>&1 \
               && cmake --build '$WORK/gtest-build' -j $JOBS >> '$WORK/gtest.txt' 2>&1 \
               && cmake --install '$WORK/gtest-build' >> '$WORK/gtest.txt' 2>&1" \
      && gtest_args=(-DGTest_DIR="$(dirname "$(find "$WORK/gtest" -name GTestConfig.cmake | head -n 1)")")
    break
  done
  BUILD=$WORK/build
  step "cmake configure" cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLAUNCHLAB_LABS="02_reading_sass;03_binary_containers" -DLAUNCHLAB_LEARNER_TREE=solutions \
    -DLAUNCHLAB_WITH_SOLUTIONS=OFF -DLAUNCHLAB_WITH_DOCS=OFF -DLAUNCHLAB_CUDA_ARCHITECTURES=90 \
    "${gtest_args[@]}" > "$WORK/configure.txt" 2>&1 || tail -n 30 "$WORK/configure.txt" >> "$LOG"
  step "cmake --build launchlab-inspect" cmake --build "$BUILD" --target launchlab-inspect -j "$JOBS" \
    > "$WORK/build.txt" 2>&1 || grep -E 'error|FAILED' "$WORK/build.txt" | head -n 30 >> "$LOG"
  INSPECT=$(find "$BUILD" -name launchlab-inspect -type f -perm -u+x | head -n 1)
fi
if [[ -z "$INSPECT" || ! -x "$INSPECT" ]]; then
  log "no launchlab-inspect: the listings are made, the comparisons are not"
  INSPECT=""
fi
[[ -n "$INSPECT" ]] && log "inspect: built" || log "inspect: none"

# --- 3. The committed large-parameter fixtures: listings to commit --------
stamp "listings of the committed large-parameter cubins"
FIX=$ROOT/labs/03_binary_containers/fixtures/large_params
for cubin in "$FIX"/sm_*/*.cubin; do
  rel=${cubin#"$FIX"/}
  mkdir -p "$STAGE/fixtures/large_params/$(dirname "$rel")"
  target=$STAGE/fixtures/large_params/$rel
  (cd "$(dirname "$cubin")" && cuobjdump -elf "$(basename "$cubin")") > "$target.cuobjdump-elf.txt" 2>> "$LOG" \
    || { log "cuobjdump -elf $rel failed"; failures=$((failures + 1)); }
  (cd "$(dirname "$cubin")" && cuobjdump -sass "$(basename "$cubin")") > "$target.cuobjdump-sass.txt" 2>> "$LOG" \
    || { log "cuobjdump -sass $rel failed"; failures=$((failures + 1)); }
  (cd "$(dirname "$cubin")" && nvdisasm "$(basename "$cubin")") > "$target.nvdisasm.txt" 2>> "$LOG" \
    || { log "nvdisasm $rel failed"; failures=$((failures + 1)); }
  if [[ -n "$INSPECT" ]]; then
    for listing in cuobjdump-sass nvdisasm; do
      "$INSPECT" sass "$target.$listing.txt" > /dev/null 2>> "$LOG" \
        || { log "inspect sass $rel.$listing.txt failed"; failures=$((failures + 1)); }
    done
  fi
done
# What the listings say at the edges: the records' names, negative offsets.
{
  echo "-- parameter records by name, per committed cubin (cuobjdump -elf)"
  for f in "$STAGE"/fixtures/large_params/sm_*/*.cuobjdump-elf.txt; do
    printf '%s: %s\n' "${f#"$STAGE"/fixtures/large_params/}" \
      "$(grep -oE 'EIATTR_KPARAM_INFO[A-Z0-9_]*|EIATTR_UNKNOWN[^ \t]*' "$f" | sort | uniq -c | tr -s ' \n' ' ')"
  done
  echo "-- operands c[0x0][-0x...], per listing of the committed cubins (cuobjdump -sass, nvdisasm)"
  for f in "$STAGE"/fixtures/large_params/sm_*/*.cuobjdump-sass.txt "$STAGE"/fixtures/large_params/sm_*/*.nvdisasm.txt; do
    printf '%s: %s %s\n' "${f#"$STAGE"/fixtures/large_params/}" "$(grep -oE 'c\[0x0\]\[-0x[0-9a-f]+\]' "$f" | wc -l)" \
      "$(grep -oE 'c\[0x0\]\[-0x[0-9a-f]+\]' "$f" | sort -u | head -n 6 | tr '\n' ' ')"
  done
  echo "-- read_at_the_end's lines with a negative offset (cuobjdump -sass, sm_80, sm_90, sm_100)"
  for arch in 80 90 100; do
    grep -E 'c\[0x0\]\[-0x' "$STAGE/fixtures/large_params/sm_$arch/mixed.cubin.cuobjdump-sass.txt" 2>/dev/null | head -n 4
  done
} >> "$LOG"

# --- 4. The corpus: every sm_90 cubin of libcublasLt ------------------------
stamp "waiting for cuobjdump -xelf all"
wait "$xelf_pid"
log "[rc=$(cat "$WORK/xelf.rc" 2>/dev/null || echo '?')] cuobjdump -xelf all $(basename "$LIB") ($(find "$WORK/xelf" -name '*.cubin' | wc -l) cubins)"
stat -L -c '%s' "$LIB" > "$WORK/lib-size.txt" 2>> "$LOG"
if [[ -n "$INSPECT" ]]; then
  # The entries' offsets in the library, the k-th ELF entry being cuobjdump's
  # ELF file k (the same order: 02_reading_sass/gpu_steps.sh checks it).
  "$INSPECT" fatbin "$LIB" > "$WORK/fatbin.txt" 2>> "$LOG" || log "inspect fatbin $(basename "$LIB") failed"
  stamp "corpus comparison"
  step "corpus comparison" python3 - "$WORK/xelf" "$INSPECT" "$WORK/fatbin.txt" "$(cat "$WORK/lib-size.txt")" \
    "$STAGE" "${CORPUS_SECONDS:-200}" "$JOBS" "$(basename "$LIB")" "$FIX" >> "$LOG" 2>&1 <<'PY'
import concurrent.futures, json, os, re, subprocess, sys, time

xelf, inspect, fatbin_txt, lib_size, out, seconds, jobs, lib_name, fixtures = sys.argv[1:10]
deadline = time.time() + float(seconds)

# The k-th ELF entry's header offset in the library, from inspect fatbin.
offsets = [int(m.group(1), 16) for m in re.finditer(r"^\s*\d+\s+elf\s+\S+\s+at\s+(0x[0-9a-f]+)", open(fatbin_txt).read(), re.M)]

def elf_number(name):  # libcublasLt.so.17.sm_90.cubin -> 17
    m = re.search(r"\.(\d+)\.sm_(\d+)[a-z]*\.cubin$", name)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)

cubins = sorted((f for f in os.listdir(xelf) if elf_number(f)[1] == 90), key=lambda f: elf_number(f)[0])

def cuobjdump_kernels(text):
    """Kernel -> facts, from cuobjdump -elf (the course's cubin_fixtures.h reads it alike)."""
    kernels, section, attrs = {}, None, []
    sections = {}
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"^(?:\.section\s+)?(\.[A-Za-z_][\w.$]*)$", s)
        if m and not line.startswith("\t"):
            section = m.group(1) if m.group(1).startswith(".nv.info") else None
            if section: sections.setdefault(section, [])
            continue
        if section is None: continue
        m = re.match(r"^Attribute:\s*(\w+)", s)
        if m: sections[section].append([m.group(1), ""]); continue
        m = re.match(r"^Value:\s*(.*)$", s)
        if m and sections[section]: sections[section][-1][1] = m.group(1); continue
        if sections[section] and s and not s.startswith("<0x") and not s.startswith("Format:"):
            sections[section][-1][1] += " " + s
    def k(name):
        return kernels.setdefault(name, {"registers": None, "param_base": 0, "param_size": 0, "params": [],
                                         "param_records": set(), "has_section": False})
    for sec, attributes in sections.items():
        if sec == ".nv.info":
            for a, v in attributes:
                m = re.search(r"function:\s*(\S+?)\(0x[0-9a-f]+\)\s*register count:\s*(\d+)", v)
                if a == "EIATTR_REGCOUNT" and m: k(m.group(1))["registers"] = int(m.group(2))
            continue
        kk = k(sec[len(".nv.info."):])
        kk["has_section"] = True
        for a, v in attributes:
            if a == "EIATTR_PARAM_CBANK":
                m = re.match(r"0x[0-9a-f]+\s+0x([0-9a-f]+)", v)
                if m:
                    x = int(m.group(1), 16)
                    kk["param_base"], kk["param_size"] = x & 0xffff, x >> 16
            m = re.search(r"Ordinal\s*:\s*0x([0-9a-f]+)\s+Offset\s*:\s*0x([0-9a-f]+)\s+Size\s*:\s*0x([0-9a-f]+)", v)
            if "KPARAM" in a or m:
                kk["param_records"].add(a)
                if m: kk["params"].append([int(m.group(i), 16) for i in (1, 2, 3)])
        kk["params"].sort()
    return kernels

def compare(cubin, folder=xelf):
    path = os.path.join(folder, cubin)
    elf = subprocess.run(["cuobjdump", "-elf", path], capture_output=True, text=True, errors="replace")
    ins = subprocess.run([inspect, "cubin", "--json", path], capture_output=True, text=True, errors="replace")
    truth = cuobjdump_kernels(elf.stdout)
    try:
        got = {k["name"]: k for k in json.loads(ins.stdout)["kernels"]}
    except Exception as e:  # an error of the course's reader is a finding too
        return cubin, truth, None, f"inspect cubin failed: {ins.stderr.strip()[:300] or e}"
    return cubin, truth, got, ""

def differences(truth, got):
    """Per kernel of either side: the fields that differ (none: they agree)."""
    for name in sorted(set(truth) | set(got or {})):
        t, g = truth.get(name), (got or {}).get(name)
        if g is None and t is not None and not t["has_section"]:
            continue  # a device function: a REGCOUNT in .nv.info, no .nv.info.<name>, not a kernel
        if t is None or g is None:
            yield name, t, None, ["only in " + ("inspect cubin" if t is None else "cuobjdump -elf")]
            continue
        mine = {"registers": g["registers"], "param_base": g["param_base"], "param_size": g["param_size"],
                "params": sorted([p["ordinal"], p["offset"], p["size"]] for p in g["params"])}
        yield name, t, mine, [f for f in ("registers", "param_base", "param_size", "params") if mine[f] != t[f]]

# The committed large-parameter cubins, every architecture: cuobjdump's
# reading of records 0x17 and 0x45 against the course's.
fixture_kernels = fixture_agree = 0
for root, _, files in sorted(os.walk(fixtures)):
    for f in sorted(files):
        if not f.endswith(".cubin"): continue
        cubin, truth, got, error = compare(f, root)
        where = os.path.join(os.path.basename(root), f)
        if error:
            print(f"  fixture {where}: {error}")
            continue
        for name, t, mine, fields in differences(truth, got):
            fixture_kernels += 1
            if fields:
                print(f"  fixture {where} {name}: {fields} cuobjdump {t and {x: t[x] for x in fields if x in t}} inspect {mine}")
            else:
                fixture_agree += 1
print(f"fixtures: {fixture_kernels} kernels of the committed large-parameter cubins compared, {fixture_agree} agree")

results, not_reached = [], 0
with concurrent.futures.ThreadPoolExecutor(int(jobs)) as pool:
    futures = [pool.submit(compare, c) for c in cubins]
    for f in futures:
        left = deadline - time.time()
        try:
            results.append(f.result(timeout=max(left, 0.01)))
        except concurrent.futures.TimeoutError:
            not_reached += 1
            f.cancel()

kernels = agree = 0
differ, errors, by_field, records = [], [], {}, {}
sample_pool = []
for cubin, truth, got, error in results:
    if error:
        errors.append(f"{cubin}: {error}")
        continue
    for name, t, mine, fields in differences(truth, got):
        kernels += 1
        if mine is None:
            differ.append(f"{cubin} {name}: {fields[0]}")
            by_field["missing"] = by_field.get("missing", 0) + 1
            continue
        for rec in t["param_records"]:
            records[rec] = records.get(rec, 0) + 1
        entry = {"name": name, "registers": t["registers"], "param_base": t["param_base"],
                 "param_size": t["param_size"], "params": t["params"]}
        sample_pool.append((cubin, entry, bool(fields), t["param_size"] > 4352))
        if fields:
            for f in fields: by_field[f] = by_field.get(f, 0) + 1
            differ.append(f"{cubin} {name}: " + "; ".join(f"{f} cuobjdump {t[f]} inspect {mine[f]}" for f in fields))
        else:
            agree += 1

large = sum(1 for s in sample_pool if s[3])
print(f"corpus: {len(cubins)} sm_90 cubins in {lib_name}, {len(results)} compared, {not_reached} not reached in time")
print(f"corpus: {kernels} kernels compared, {agree} agree, {len(differ)} differ, {len(errors)} cubins inspect could not read")
print(f"corpus: {large} kernels with more than 4,352 bytes of parameters; parameter records by name: {records}")
print(f"corpus: differing fields: {by_field}")
for line in (differ + errors)[:20]: print("  " + line)
with open(os.path.join(out, "corpus", "differences.txt"), "w") as f:
    f.write("\n".join(differ + errors) + "\n")

# The sample for CI: whole cubins (their kernels up to 40 each) until 200
# kernels, those with large lists and those that differ first, the rest
# spread over the corpus.
by_cubin = {}
for cubin, entry, differs, is_large in sample_pool:
    by_cubin.setdefault(cubin, []).append((entry, differs, is_large))
order = sorted(by_cubin, key=lambda c: (not any(d for _, d, _ in by_cubin[c]), not any(l for _, _, l in by_cubin[c]), elf_number(c)[0]))
chosen, count = [], 0
firsts = [c for c in order if any(d or l for _, d, l in by_cubin[c])][:4]
rest = [c for c in order if c not in firsts]
step = max(1, len(rest) // 12)
for c in firsts + rest[::step]:
    if count >= 200: break
    entries = sorted((e for e, _, _ in by_cubin[c]), key=lambda e: (-(e["param_size"] > 4352), e["name"]))[:40]
    n = elf_number(c)[0]
    if n < 1 or n > len(offsets): continue
    chosen.append({"elf_number": n, "entry_offset": offsets[n - 1], "cubin": c, "kernels": entries})
    count += len(entries)
sample = {"library": lib_name, "library_size": int(lib_size),
          "made_by": "labs/03_binary_containers/gpu_corpus.sh: cuobjdump -elf of cubins that cuobjdump -xelf all extracted",
          "kernels": count, "cubins": chosen}
with open(os.path.join(out, "fixtures", "libcublasLt.so.13.kernels.json"), "w") as f:
    json.dump(sample, f, indent=1)
    f.write("\n")
print(f"corpus: sample of {count} kernels from {len(chosen)} cubins written")
sys.exit(1 if differ or errors or not results or fixture_agree != fixture_kernels else 0)
PY

  # inspect sass over the listing of the largest sm_90 cubin.
  largest=$(ls -S "$WORK"/xelf/*.sm_90*.cubin 2>/dev/null | head -n 1)
  if [[ -n "$largest" ]]; then
    timeout 120 cuobjdump -sass "$largest" > "$WORK/largest.sass.txt" 2>> "$LOG"
    step "inspect sass over $(basename "$largest") ($(stat -c %s "$largest") bytes, $(wc -l < "$WORK/largest.sass.txt") lines)" \
      timeout 120 "$INSPECT" sass "$WORK/largest.sass.txt" > "$STAGE/corpus/inspect-sass.txt" 2>> "$LOG"
    log "inspect sass: $(head -n 1 "$STAGE/corpus/inspect-sass.txt" | sed 's|^[^:]*: ||'); negative offsets in the listing: $(grep -c 'c\[0x0\]\[-0x' "$WORK/largest.sass.txt")"
  fi
fi

# What to commit, as soon as it exists (a run cut short keeps it).
tar -C "$STAGE" -cf "$OUT/to-commit.tar" fixtures
log "to-commit.tar: $(tar -tf "$OUT/to-commit.tar" | grep -c -v '/$') files"

# --- 5. large_params.sh -----------------------------------------------------
stamp "waiting for large_params.sh"
wait "$large_pid"
log "[rc=$(cat "$WORK/large_params.rc" 2>/dev/null || echo '?')] large_params.sh: $(tail -n 1 "$WORK/large_params.txt")"
[[ "$(cat "$WORK/large_params.rc" 2>/dev/null)" == 0 ]] || failures=$((failures + 1))
if [[ -n "$INSPECT" ]]; then
  for cubin in "$STAGE"/large_params/sm_*/*.cubin; do
    "$INSPECT" cubin "$cubin" > "$cubin.inspect.txt" 2>> "$LOG" || log "inspect cubin ${cubin#"$STAGE"/} failed"
  done
fi
{
  echo "-- large_params.sh summary (all sizes)"
  cat "$STAGE/large_params/summary.txt"
} >> "$LOG"
tar -C "$STAGE" --exclude='*.cubin' -czf "$OUT/record.tar.gz" large_params corpus
log "record.tar.gz: $(stat -c %s "$OUT/record.tar.gz") bytes"

stamp "done, $failures step(s) failed"
grep -E '^(corpus|fixtures):|^\[rc=|^== ' "$LOG" || true
((failures == 0))
