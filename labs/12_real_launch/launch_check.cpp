// Part D: constant bank 0 as uploaded, what a launch should produce, and the
// comparison of the two.
#include "real_launch.h"

namespace launchlab::real_launch {

std::vector<std::byte> constant_bank(const qmd::Qmd& qmd, std::span<const InlineUpload> uploads) {
  // TODO(student): the bytes from qmd.cbank0.address on, as far as uploads
  // cover them without a gap, each from the last upload that wrote it. Only
  // bytes inside [address, address + qmd.cbank0.size) count. Throw
  // LaunchError when nothing covers the bank's first byte.
  (void)qmd;
  (void)uploads;
  return {};
}

BankHeader read_bank_header(std::span<const std::byte> bank) {
  // TODO(student): blockDim is the three u32 at 0x0, 0x4, 0x8 and gridDim the
  // three at 0xc, 0x10, 0x14; throw LaunchError for fewer than 24 bytes.
  (void)bank;
  return {};
}

ExpectedLaunch expected_launch(const containers::ElfFile& cubin, const LaunchRecord& record, const DeviceFacts& facts) {
  // TODO(student): read the kernel with lab 03's containers::read_cubin and
  // apply the rules of the header, one field at a time: the grid in
  // clusters, the registers, the shared memory from `.nv.shared.<kernel>`,
  // the barrier count, the SASS version, the parameter base and the bank's
  // size, the parameters packed with lab 04's param_buffer::pack in the
  // cubin's layout, and the code of `.text.<kernel>`.
  (void)cubin;
  (void)facts;
  ExpectedLaunch e;
  e.qmd_grid = record.grid;
  e.block = record.block;
  return e;
}

std::vector<Mismatch> check_launch(const qmd::Qmd& qmd, std::span<const std::byte> bank, const ExpectedLaunch& expected,
                                   std::span<const std::byte> code) {
  // TODO(student): compare every field in the order of Mismatch::field and
  // return one Mismatch for each that differs (decimal numbers, "(x, y, z)"
  // for dimensions, "at OFFSET: 0xBYTE" for the first byte where two byte
  // strings differ).
  (void)qmd;
  (void)bank;
  (void)expected;
  (void)code;
  return {};
}

}  // namespace launchlab::real_launch
