// Part A: telling the images nvcc writes apart, and preparing them for
// cuModuleLoadData.
//
//   nvcc -cubin -arch=sm_90 k.cu -o k.cubin     an ELF file
//   nvcc -fatbin -arch=sm_90 k.cu -o k.fatbin   a fat binary
//   nvcc -ptx -arch=sm_90 k.cu -o k.ptx         PTX text
//   od -A d -t x1 -N 64 k.cubin                 the ELF header, byte by byte
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "driver.h"

namespace launchlab::driver {

ImageKind identify_image(std::span<const std::byte> image) {
  // TODO(student): a cubin starts with "\x7f" "ELF" and has e_machine 190
  // (the u16 at byte 18); a fatbin starts with the u32 0xBA55ED50; PTX is
  // text whose first line that is not blank or a // comment starts with
  // ".version". Anything else, including too few bytes, is Unknown.
  (void)image;
  return ImageKind::Unknown;
}

std::vector<std::byte> ptx_image(std::string_view ptx) {
  // TODO(student): the text and one NUL after it (not two when the text
  // already ends with one); std::invalid_argument for a NUL inside the text.
  std::vector<std::byte> image(ptx.size());
  std::memcpy(image.data(), ptx.data(), ptx.size());
  return image;
}

int cubin_sm(std::span<const std::byte> cubin) {
  // TODO(student): check that this is a cubin with EI_OSABI 0x41 (byte 7)
  // and EI_ABIVERSION 8 (byte 8), else std::invalid_argument; the
  // architecture is bits 8 to 15 of e_flags, the u32 at byte 48.
  (void)cubin;
  return 0;
}

bool sass_runs_on(int sm, int major, int minor) {
  // TODO(student): the same major version, and a minor version at least
  // the cubin's.
  (void)sm;
  (void)major;
  (void)minor;
  return true;
}

}  // namespace launchlab::driver
