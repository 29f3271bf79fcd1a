// Part B: naming the files `nvcc --keep` leaves.
//
//   mkdir -p k
//   nvcc --keep --keep-dir k -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] -c vadd.cu -o vadd.o
//   ls k
#include "pipeline.h"

#include <string>

namespace launchlab::pipeline {

KeptFile classify_kept_file(std::string_view file_name) {
  KeptFile file;
  // TODO(student): keep only the part of file_name after its last '/', and
  // store it in file.name.
  //
  // TODO(student): decide the FileKind from the end of the name (the end
  // only: "vadd.fatbin.c" contains ".fatbin", "vadd.cudafe1.stub.c" contains
  // ".cudafe1."), and from the kind the stage that writes it. Which
  // program writes which file is in the dryrun: find the first command that
  // names the file.
  //
  // TODO(student): in what sits between the stem and the suffix, find the
  // architectures: a dot-separated part "compute_NN" is the virtual one, a
  // part "sm_NN" the real one (either may end in one letter, as in sm_90a).
  //
  // TODO(student): a stem ending in "_dlink" belongs to the device link; its
  // .cubin is nvlink's, not ptxas's.
  (void)file_name;
  return file;
}

}  // namespace launchlab::pipeline
