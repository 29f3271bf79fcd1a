#!/usr/bin/env bash
# Large parameter lists, on every architecture the course teaches.
#
#   bash chapters/03_binary_containers/tools/large_params.sh OUTDIR
#
# Compiles large_params.cu (next to this script) for sm_80, sm_86, sm_89,
# sm_90, sm_100 and sm_120: once for each parameter size in SIZES (the
# kernel `big`, exactly that many bytes of parameters), once for the mixed
# kernels and once for `reads_32009` (a 32,009-byte list read at +0,
# +32000 and +32008). For every cubin it keeps the raw .nv.info sections
# (readelf -x) and, where the tools exist, `cuobjdump -elf`, `cuobjdump
# -sass` and `nvdisasm`; where none of those exist (a machine with nvcc
# alone) it still makes the cubins. Everything goes under OUTDIR:
#
#   OUTDIR/TOOLS.txt                      nvcc, cuobjdump, nvdisasm, readelf versions
#   OUTDIR/log.txt                        every command with its exit status
#   OUTDIR/params_SIZE.ptx, mixed.ptx,    the PTX of each (its parameter lines are the
#   OUTDIR/reads_32009.ptx                same for every architecture)
#   OUTDIR/sm_NN/params_SIZE.cubin        `big` with SIZE bytes of parameters
#   OUTDIR/sm_NN/mixed.cubin              the mixed kernels
#   OUTDIR/sm_NN/reads_32009.cubin        reads_32009
#   OUTDIR/sm_NN/X.cubin.nv-info.hex.txt  readelf -x of each .nv.info section
#   OUTDIR/sm_NN/X.cubin.cuobjdump-elf.txt, .cuobjdump-sass.txt, .nvdisasm.txt
#   OUTDIR/sm_NN/X.cubin.inspect.txt      `$INSPECT cubin X.cubin`, when INSPECT is set
#   OUTDIR/summary.txt                    per cubin: the parameter records cuobjdump
#                                         names, EIATTR_PARAM_CBANK, and how many
#                                         constant operands are printed negative
#
# Environment: ARCHS and SIZES (space-separated) replace the defaults;
# NVCC, CUOBJDUMP and NVDISASM name the tools (default: from PATH, then
# /usr/local/cuda/bin); INSPECT, a command such as "./launchlab inspect"
# (run from the repository root), adds the course's own reading of each cubin.
set -u

out=${1:?usage: large_params.sh OUTDIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_file=$here/large_params.cu
read -r -a archs <<< "${ARCHS:-80 86 89 90 100 120}"
# 4,352 and 4,356 straddle the size where nvcc 13.0 switches records (and,
# up to sm_89, the parameter base); 32,764 is the largest list it accepts.
read -r -a sizes <<< "${SIZES:-1024 4096 4100 4352 4356 8192 16384 32764}"

find_tool() {  # find_tool VARIABLE_VALUE NAME: prints the tool's path, or nothing
  if [[ -n "$1" ]]; then command -v "$1"; return; fi
  command -v "$2" || { [[ -x /usr/local/cuda/bin/$2 ]] && echo "/usr/local/cuda/bin/$2"; }
}
nvcc=$(find_tool "${NVCC:-}" nvcc)
cuobjdump=$(find_tool "${CUOBJDUMP:-}" cuobjdump)
nvdisasm=$(find_tool "${NVDISASM:-}" nvdisasm)
readelf=$(command -v readelf)
[[ -n "$nvcc" ]] || { echo "large_params.sh: nvcc not found (set NVCC)" >&2; exit 1; }

mkdir -p "$out"
out=$(cd "$out" && pwd)
log=$out/log.txt
: > "$log"
{
  for tool in "$nvcc" "$cuobjdump" "$nvdisasm" "$readelf"; do
    # nvcc and the CUDA tools put the release last, readelf first.
    [[ -n "$tool" ]] && { echo "== $(basename "$tool") --version"; "$tool" --version 2>&1 | grep -m 2 -E 'release|V[0-9]|GNU readelf'; }
  done
  [[ -z "$cuobjdump" ]] && echo "cuobjdump: not found, no ELF or SASS listings"
  [[ -z "$nvdisasm" ]] && echo "nvdisasm: not found, no nvdisasm listings"
} > "$out/TOOLS.txt"

failures=0
# run FILE CMD...: CMD's standard output into FILE (- for none), logged with its status.
run() {
  local file=$1; shift
  local rc target=""
  if [[ "$file" == - ]]; then
    "$@" >> "$log" 2>&1
    rc=$?
  else
    "$@" > "$file" 2>> "$log"
    rc=$?
    target=" > ${file#"$out"/}"
  fi
  # The command as run from OUTDIR, with the tools by name: the log holds no
  # path of the machine that made it.
  local shown="$*"
  shown=${shown//"$out"\//}
  shown=${shown//"$source_file"/large_params.cu}
  local tool
  for tool in "$nvcc" "$cuobjdump" "$nvdisasm"; do
    [[ -n "$tool" ]] && shown=${shown//"$tool"/$(basename "$tool")}
  done
  echo "[rc=$rc] $shown$target" >> "$log"
  ((rc == 0)) || failures=$((failures + 1))
  return $rc
}

list_cubin() {  # list_cubin CUBIN
  local cubin=$1 section
  if [[ -n "$readelf" ]]; then
    : > "$cubin.nv-info.hex.txt"
    for section in $("$readelf" -SW "$cubin" 2>> "$log" | grep -oE '\.nv\.info[^ ]*'); do
      "$readelf" -x "$section" "$cubin" >> "$cubin.nv-info.hex.txt" 2>> "$log"
    done
    echo "[rc=0] readelf -x .nv.info* $(basename "$cubin")" >> "$log"
  fi
  if [[ -n "$cuobjdump" ]]; then
    run "$cubin.cuobjdump-elf.txt" "$cuobjdump" -elf "$cubin"
    run "$cubin.cuobjdump-sass.txt" "$cuobjdump" -sass "$cubin"
  fi
  [[ -n "$nvdisasm" ]] && run "$cubin.nvdisasm.txt" "$nvdisasm" "$cubin"
  # INSPECT is a command line on purpose: "./launchlab inspect" is two words.
  # shellcheck disable=SC2086
  [[ -n "${INSPECT:-}" ]] && run "$cubin.inspect.txt" ${INSPECT} cubin "$cubin"
}

summarize() {  # summarize CUBIN: one block of summary.txt
  local cubin=$1
  echo "== ${cubin#"$out"/}"
  if [[ -f "$cubin.cuobjdump-elf.txt" ]]; then
    # The parameter records by name, how many of each, and PARAM_CBANK's
    # value (the size in the upper 16 bits, the base in the lower).
    grep -oE 'EIATTR_(KPARAM_INFO[A-Z0-9_]*|CBANK_PARAM_SIZE|PARAM_CBANK)|EIATTR_UNKNOWN[^ \t]*' \
      "$cubin.cuobjdump-elf.txt" | sort | uniq -c | sed 's/^/  records: /'
    grep -A2 'EIATTR_PARAM_CBANK' "$cubin.cuobjdump-elf.txt" | grep 'Value:' | sed 's/^[[:space:]]*/  PARAM_CBANK /'
  else
    echo "  (no cuobjdump -elf)"
  fi
  local listing
  # Hex offsets without leading zeros: the longer one is the larger.
  for listing in "$cubin.cuobjdump-sass.txt" "$cubin.nvdisasm.txt"; do
    [[ -f "$listing" ]] || continue
    printf '  %s: %s operands c[0x0][-...], highest positive c[0x0][...] %s\n' \
      "${listing##*.cubin.}" "$(grep -oE 'c\[0x0\]\[-0x[0-9a-f]+\]' "$listing" | wc -l)" \
      "$(grep -oE 'c\[0x0\]\[0x[0-9a-f]+\]' "$listing" | awk '{ print length($0), $0 }' | sort -k1,1n -k2 | tail -n 1 | cut -d' ' -f2)"
  done
}

# The PTX once per source: what the parameters are, independently of the
# records ptxas writes for them.
for size in "${sizes[@]}"; do
  run - "$nvcc" -ptx -arch="compute_${archs[0]}" -DPARAM_BYTES="$size" -o "$out/params_$size.ptx" "$source_file"
done
run - "$nvcc" -ptx -arch="compute_${archs[0]}" -o "$out/mixed.ptx" "$source_file"
run - "$nvcc" -ptx -arch="compute_${archs[0]}" -DREADS_32009 -o "$out/reads_32009.ptx" "$source_file"

cubins=()
for arch in "${archs[@]}"; do
  dir=$out/sm_$arch
  mkdir -p "$dir"
  for size in "${sizes[@]}"; do
    cubin=$dir/params_$size.cubin
    run - "$nvcc" -cubin -arch="sm_$arch" -DPARAM_BYTES="$size" -o "$cubin" "$source_file" && cubins+=("$cubin")
  done
  cubin=$dir/mixed.cubin
  run - "$nvcc" -cubin -arch="sm_$arch" -o "$cubin" "$source_file" && cubins+=("$cubin")
  cubin=$dir/reads_32009.cubin
  run - "$nvcc" -cubin -arch="sm_$arch" -DREADS_32009 -o "$cubin" "$source_file" && cubins+=("$cubin")
done

for cubin in "${cubins[@]}"; do list_cubin "$cubin"; done
for cubin in "${cubins[@]}"; do summarize "$cubin"; done > "$out/summary.txt"

echo "large_params.sh: ${#cubins[@]} cubins in $out, $failures command(s) failed (see log.txt)"
((failures == 0))
