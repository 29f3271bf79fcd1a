// Part D: constant bank 0 as uploaded, what a launch should produce, and the
// comparison of the two.
#include <algorithm>
#include <cstring>
#include <sstream>

#include "real_launch.h"

namespace launchlab::real_launch {
namespace {

constexpr std::uint8_t kParamCbank = 0x0a;    // EIATTR_PARAM_CBANK, SVAL
constexpr std::uint8_t kNumBarriers = 0x4c;   // EIATTR_NUM_BARRIERS, BVAL
constexpr std::uint8_t kKparamInfoV2 = 0x45;  // EIATTR_KPARAM_INFO_V2, SVAL of 12 bytes
constexpr std::uint32_t kMinRegisters = 16;
constexpr std::uint32_t kSharedGranule = 128;
constexpr std::uint32_t kBankGranule = 256;

std::uint32_t round_up(std::uint64_t value, std::uint32_t granule) {
  return static_cast<std::uint32_t>((value + granule - 1) / granule * granule);
}

std::uint32_t u32_at(std::span<const std::byte> bytes, std::size_t at) {
  std::uint32_t v = 0;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;
}

std::string text(const Dim3& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
}

std::string hex_bytes(std::span<const std::byte> bytes, std::size_t from, std::size_t count) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = from; i < bytes.size() && i < from + count; ++i) {
    const auto b = std::to_integer<unsigned>(bytes[i]);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

// "at 3: 0x2a" for the first byte where the two differ (or the length where
// one ends), nothing when they agree.
std::optional<std::pair<std::string, std::string>> first_difference(std::span<const std::byte> expected,
                                                                    std::span<const std::byte> found) {
  const std::size_t n = std::min(expected.size(), found.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (expected[i] != found[i]) {
      return std::pair{"at " + std::to_string(i) + ": 0x" + hex_bytes(expected, i, 1),
                       "at " + std::to_string(i) + ": 0x" + hex_bytes(found, i, 1)};
    }
  }
  if (expected.size() != found.size()) {
    return std::pair{std::to_string(expected.size()) + " bytes", std::to_string(found.size()) + " bytes"};
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::byte> constant_bank(const qmd::Qmd& qmd, std::span<const InlineUpload> uploads) {
  const std::uint64_t start = qmd.cbank0.address;
  const std::uint64_t end = start + qmd.cbank0.size;
  std::vector<std::byte> bank;
  // Grow the covered prefix for as long as some upload starts inside it;
  // later uploads overwrite earlier ones where they overlap.
  bool grew = true;
  std::vector<bool> used(uploads.size(), false);
  while (grew) {
    grew = false;
    for (std::size_t i = 0; i < uploads.size(); ++i) {
      const InlineUpload& u = uploads[i];
      if (used[i] || u.address < start || u.address >= end || u.address - start > bank.size()) continue;
      used[i] = true;
      grew = true;
      const std::size_t at = u.address - start;
      const std::size_t size = std::min<std::uint64_t>(u.bytes.size(), end - u.address);
      if (bank.size() < at + size) bank.resize(at + size);
      std::copy_n(u.bytes.begin(), size, bank.begin() + static_cast<long>(at));
    }
  }
  // Overlaps must end with the last upload's bytes: apply them again, in order.
  for (std::size_t i = 0; i < uploads.size(); ++i) {
    if (!used[i]) continue;
    const InlineUpload& u = uploads[i];
    const std::size_t at = u.address - start;
    const std::size_t size = std::min<std::uint64_t>(u.bytes.size(), end - u.address);
    std::copy_n(u.bytes.begin(), size, bank.begin() + static_cast<long>(at));
  }
  if (bank.empty()) {
    std::ostringstream message;
    message << "no upload writes the first byte of constant bank 0 at 0x" << std::hex << start;
    throw LaunchError(message.str());
  }
  return bank;
}

BankHeader read_bank_header(std::span<const std::byte> bank) {
  if (bank.size() < 24) throw LaunchError("constant bank 0 holds " + std::to_string(bank.size()) + " bytes, fewer than the 24 of its header");
  BankHeader h;
  for (std::size_t i = 0; i < 3; ++i) {
    h.block_dim[i] = u32_at(bank, 4 * i);
    h.grid_dim[i] = u32_at(bank, 12 + 4 * i);
  }
  return h;
}

ExpectedLaunch expected_launch(const containers::ElfFile& cubin, const LaunchRecord& record, const DeviceFacts& facts) {
  const containers::CubinInfo info = containers::read_cubin(cubin);
  const auto kernel = std::find_if(info.kernels.begin(), info.kernels.end(),
                                   [&](const containers::KernelInfo& k) { return k.name == record.kernel; });
  if (kernel == info.kernels.end()) throw LaunchError("the cubin has no kernel " + record.kernel);

  ExpectedLaunch e;
  e.block = record.block;
  e.grid_dim = record.grid;
  e.qmd_grid = record.grid;
  for (std::size_t i = 0; i < 3; ++i) {
    const std::uint32_t c = record.cluster[i];
    if (c == 0) continue;
    if (record.grid[i] % c != 0) {
      throw LaunchError("the cluster " + text(record.cluster) + " does not divide the grid " + text(record.grid));
    }
    e.qmd_grid[i] = record.grid[i] / c;
  }
  e.registers = std::max(kernel->registers.value_or(0), kMinRegisters);

  std::uint64_t shared = facts.reserved_shared;
  if (const containers::ElfSection* s = cubin.find_section(".nv.shared." + record.kernel)) shared = s->size;
  e.shared_memory = round_up(shared + record.shared_dynamic, kSharedGranule);

  e.barrier_count = 1;
  for (const containers::NvInfoRecord& r : kernel->records) {
    if (r.attribute == kNumBarriers) e.barrier_count = std::max<std::uint32_t>(r.value, 1);
  }
  const int arch = info.arch;
  e.sass_version = static_cast<std::uint32_t>((arch / 10) << 4 | (arch % 10));
  const containers::ElfSection* bank = cubin.find_section(".nv.constant0." + record.kernel);
  if (!bank) throw LaunchError("the cubin has no .nv.constant0." + record.kernel);
  const bool has_params = std::any_of(kernel->records.begin(), kernel->records.end(),
                                      [](const containers::NvInfoRecord& r) { return r.attribute == kParamCbank; });
  e.param_base = has_params ? kernel->param_base : static_cast<std::uint32_t>(bank->size);
  e.bank_size = round_up(bank->size, kBankGranule);

  // The layout nvcc recorded: KPARAM_INFO, or KPARAM_INFO_V2 for large
  // parameter lists, which lab 03 keeps as records of an unknown attribute.
  std::vector<containers::KernelParam> params = kernel->params;
  if (params.empty()) {
    for (const containers::NvInfoRecord& r : kernel->records) {
      if (r.attribute != kKparamInfoV2 || r.payload.size() < 12) continue;
      containers::KernelParam p;
      std::uint16_t ordinal = 0, offset = 0;
      std::memcpy(&ordinal, r.payload.data() + 4, 2);
      std::memcpy(&offset, r.payload.data() + 6, 2);
      p.ordinal = ordinal;
      p.offset = offset;
      p.size = u32_at(r.payload, 8) & 0xffff;
      params.push_back(p);
    }
    std::sort(params.begin(), params.end(), [](const auto& a, const auto& b) { return a.ordinal < b.ordinal; });
  }
  param_buffer::Layout layout;
  layout.size = kernel->param_size;
  for (const containers::KernelParam& p : params) layout.slots.push_back({p.offset, p.size});
  std::vector<std::span<const std::byte>> values;
  for (const auto& v : record.values) values.emplace_back(v);
  e.params = param_buffer::pack(layout, values);

  if (const containers::ElfSection* text = cubin.find_section(".text." + record.kernel)) {
    const auto bytes = cubin.contents(*text);
    e.code.assign(bytes.begin(), bytes.end());
  }
  return e;
}

std::vector<Mismatch> check_launch(const qmd::Qmd& qmd, std::span<const std::byte> bank, const ExpectedLaunch& expected,
                                   std::span<const std::byte> code) {
  std::vector<Mismatch> found;
  auto number = [&](const char* field, std::uint64_t want, std::uint64_t got) {
    if (want != got) found.push_back({field, std::to_string(want), std::to_string(got)});
  };
  auto dims = [&](const char* field, const Dim3& want, const Dim3& got) {
    if (want != got) found.push_back({field, text(want), text(got)});
  };
  dims("grid", expected.qmd_grid, qmd.grid);
  dims("block", expected.block, qmd.block);
  number("registers", expected.registers, qmd.registers);
  number("shared_memory", expected.shared_memory, qmd.shared_memory);
  number("barrier_count", expected.barrier_count, qmd.barrier_count);
  number("sass_version", expected.sass_version, qmd.sass_version);
  number("bank_size", expected.bank_size, qmd.cbank0.size);
  if (!qmd.cbank0.valid) found.push_back({"bank_valid", "true", "false"});
  if (bank.size() >= 24) {
    const BankHeader header = read_bank_header(bank);
    dims("bank_block_dim", expected.block, header.block_dim);
    dims("bank_grid_dim", expected.grid_dim, header.grid_dim);
  } else {
    found.push_back({"bank_block_dim", text(expected.block), std::to_string(bank.size()) + " bytes of bank"});
    found.push_back({"bank_grid_dim", text(expected.grid_dim), std::to_string(bank.size()) + " bytes of bank"});
  }
  const std::size_t base = std::min<std::size_t>(expected.param_base, bank.size());
  const std::size_t size = std::min(expected.params.size(), bank.size() - base);
  if (auto diff = first_difference(expected.params, bank.subspan(base, size))) {
    found.push_back({"params", diff->first, diff->second});
  }
  if (!code.empty()) {
    const std::size_t n = std::min(code.size(), expected.code.size());
    if (auto diff = first_difference(std::span(expected.code).first(n), code.first(n))) {
      found.push_back({"code", diff->first, diff->second});
    } else if (n == 0) {
      found.push_back({"code", std::to_string(expected.code.size()) + " bytes", std::to_string(code.size()) + " bytes"});
    }
  }
  return found;
}

}  // namespace launchlab::real_launch
