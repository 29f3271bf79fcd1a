# What autograder/gpu-run.sh does for 02_reading_sass beyond the tests (run
# `gpu-run.sh 02 03` for the tests of both labs that read these files): the
# listings that cuobjdump and nvdisasm print of the committed cubins, fatbins
# and host files, for the tests of 02_reading_sass and 03_binary_containers;
# cuobjdump's list of libcublasLt.so.13; and, side by side on that library,
# cuobjdump and `launchlab inspect fatbin` built from the solutions. No GPU is
# used: the GPU machine is where the toolkit's cuobjdump and nvdisasm are.
# In the tar at
#   labs/02_reading_sass/fixtures/X.cubin.{cuobjdump-sass,nvdisasm}.txt,
#     vadd_exe.cuobjdump-sass.txt, TOOLS.txt                         commit
#   labs/03_binary_containers/fixtures/X.cubin.{cuobjdump-elf,res-usage}.txt,
#     F.{list,cuobjdump-elf}.txt, libcublasLt.so.13.{list,size}.txt, TOOLS.txt   commit
#   gpu-report/02_reading_sass-inspect/   inspect's outputs on the same files (a record)
# Unpack with `tar -xf 02_reading_sass-data.tar -C <repository> labs`.
listings_02=labs/02_reading_sass/fixtures
listings_03=labs/03_binary_containers/fixtures
cublaslt=/usr/local/cuda/lib64/libcublasLt.so.13

# listing DIR FILE OUTPUT TOOL ARGS...: TOOL ARGS FILE, run in DIR, into OUTPUT.
listing() {
  local dir=$1 file=$2 output=$3
  shift 3
  (cd "$dir" && "$@" "$file") > "$output" || echo "$* $file: exit status $?" >&2
}

gpu_before_tests() {
  local from02=$root/$listings_02 from03=$root/$listings_03 to02=$stage/$listings_02 to03=$stage/$listings_03
  mkdir -p "$to02" "$to03"
  {
    made_by "cuobjdump and nvdisasm on the committed files"
    cuobjdump --version | tail -n 2
    nvdisasm --version | tail -n 2
  } > "$to02/TOOLS.txt" || return 1
  cp "$to02/TOOLS.txt" "$to03/TOOLS.txt"
  local cubin name file
  for cubin in "$from02"/*.cubin; do
    name=$(basename "$cubin")
    listing "$from02" "$name" "$to02/$name.cuobjdump-sass.txt" cuobjdump -sass
    listing "$from02" "$name" "$to02/$name.nvdisasm.txt" nvdisasm
    listing "$from02" "$name" "$to03/$name.cuobjdump-elf.txt" cuobjdump -elf
    listing "$from02" "$name" "$to03/$name.res-usage.txt" cuobjdump -res-usage
  done
  # One SASS listing of a host executable: the fatbin's own headers around it.
  listing "$from03" vadd_exe "$to02/vadd_exe.cuobjdump-sass.txt" cuobjdump -sass
  for file in vadd.fatbin vadd_size.fatbin vadd_nocomp.fatbin zoo_size.fatbin vadd.o vadd_exe; do
    listing "$from03" "$file" "$to03/$file.list.txt" cuobjdump --list-elf --list-ptx
    listing "$from03" "$file" "$to03/$file.cuobjdump-elf.txt" cuobjdump -elf
  done
  [[ -f $cublaslt ]] || { echo "no $cublaslt: no listing of it" >&2; return 1; }
  stat -L -c '%s' "$cublaslt" > "$to03/libcublasLt.so.13.size.txt"
  cat "$cublaslt" > /dev/null  # in the page cache for every timed run
  listing "$(dirname "$cublaslt")" "$(basename "$cublaslt")" "$to03/libcublasLt.so.13.list.txt" \
    limited 100 cuobjdump --list-elf --list-ptx
  echo "libcublasLt.so.13: $(cat "$to03/libcublasLt.so.13.size.txt") bytes, $(wc -l < "$to03/libcublasLt.so.13.list.txt") lines listed"
}

gpu_after_tests() {
  local records=$stage/gpu-report/$slug-inspect inspect=$build/autograder/inspect/launchlab_inspect_solution status=0
  mkdir -p "$records"
  # The inspect tools as the solutions make them (gpu-run.sh configures with the solutions).
  cmake --build "$build" --target launchlab_inspect_solution || return 1
  echo "side by side on libcublasLt.so.13 (in the page cache), seconds: cuobjdump --list-elf --list-ptx, inspect fatbin"
  # Three rounds, or one when cuobjdump is slow (the step stays under 3 minutes).
  local run rounds=3 t0 t1 t2
  for ((run = 1; run <= rounds; ++run)); do
    t0=$(date +%s.%N)
    limited 100 cuobjdump --list-elf --list-ptx "$cublaslt" > "$records/cuobjdump-list.txt"
    t1=$(date +%s.%N)
    "$inspect" fatbin "$cublaslt" --json > "$records/inspect-fatbin-libcublasLt.json" || status=1
    t2=$(date +%s.%N)
    awk -v r="$run" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%s %.3f %.3f\n", r, b - a, c - b }'
    awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a > 15) }' && rounds=1
  done
  # The same entries in the same order? Kind and architecture, one a line.
  sed -nE 's/^(ELF|PTX) file +[0-9]+: .*\.sm_([0-9]+)[a-z]*\.(cubin|ptx)$/\1 \2/p' "$records/cuobjdump-list.txt" |
    tr 'A-Z' 'a-z' > "$records/cuobjdump-kinds.txt"
  awk -F: '/"kind"/ { gsub(/[ ",]/, "", $2); kind = $2 } /"arch"/ { gsub(/[ ",]/, "", $2); print kind, $2 }' \
    "$records/inspect-fatbin-libcublasLt.json" > "$records/inspect-kinds.txt"
  if cmp -s "$records/cuobjdump-kinds.txt" "$records/inspect-kinds.txt"; then
    echo "same entries in the same order: $(wc -l < "$records/inspect-kinds.txt") (kind, arch)"
  else
    echo "entries DIFFER: cuobjdump $(wc -l < "$records/cuobjdump-kinds.txt"), inspect $(wc -l < "$records/inspect-kinds.txt")"
    diff "$records/cuobjdump-kinds.txt" "$records/inspect-kinds.txt" | head -n 20
    status=1
  fi
  local cubin file
  for cubin in "$root/$listings_02"/zoo.*.cubin "$root/$listings_02"/vadd.*.cubin; do
    "$inspect" cubin "$cubin" --json > "$records/inspect-cubin-$(basename "$cubin").json" || status=1
  done
  "$inspect" sass "$root/$listings_02/zoo.sm_90.cubin" > "$records/inspect-sass-zoo.sm_90.txt" || status=1
  for file in vadd.fatbin vadd_size.fatbin vadd.o vadd_exe; do
    "$inspect" fatbin "$root/$listings_03/$file" --json > "$records/inspect-fatbin-$file.json" || status=1
  done
  return $status
}
