#include "pipeline.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "launchlab/testing.h"

namespace launchlab::real_launch_tests {
namespace fs = std::filesystem;

namespace {

fs::path captures_dir() { return launchlab::testing::lab_material("12_real_launch/captures"); }

std::vector<std::byte> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(text.size());
  std::transform(text.begin(), text.end(), bytes.begin(), [](char c) { return static_cast<std::byte>(c); });
  return bytes;
}

}  // namespace

std::vector<std::string> capture_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(captures_dir())) {
    if (entry.path().extension() == ".capture") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

const Capture& capture(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Capture>> cache;
  auto& slot = cache[name];
  if (!slot) {
    slot = std::make_unique<Capture>(
        real_launch::read_capture(launchlab::testing::read_file(captures_dir() / (name + ".capture"))));
  }
  return *slot;
}

const std::vector<std::byte>& cubin_bytes(const std::string& file) {
  static std::map<std::string, std::vector<std::byte>> cache;
  auto it = cache.find(file);
  if (it == cache.end()) it = cache.emplace(file, read_bytes(captures_dir() / file)).first;
  return it->second;
}

const containers::ElfFile& cubin(const std::string& file) {
  static std::map<std::string, std::unique_ptr<containers::ElfFile>> cache;
  auto& slot = cache[file];
  if (!slot) slot = std::make_unique<containers::ElfFile>(containers::read_elf(cubin_bytes(file)));
  return *slot;
}

Decoded decode(const real_launch::Snapshot& before, const real_launch::Snapshot& after, qmd::QmdVersion version) {
  Decoded d;
  try {
    d.changes = real_launch::changed_ranges(before, after);
    d.streams = real_launch::method_streams(d.changes);
    for (std::size_t s = 0; s < d.streams.size(); ++s) {
      d.uploads.push_back(real_launch::inline_uploads(d.streams[s].groups));
      d.qmds.push_back(real_launch::qmd_launches(d.streams[s].groups, d.uploads.back(), version));
      for (const real_launch::QmdLaunch& q : d.qmds.back()) {
        if (!q.launches_threads()) continue;
        d.launches.push_back(DecodedLaunch{s, q, real_launch::constant_bank(q.qmd, d.uploads.back())});
      }
    }
  } catch (const std::exception& e) {
    d.error = e.what();
  }
  return d;
}

const Decoded& decoded(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Decoded>> cache;
  auto& slot = cache[name];
  if (!slot) {
    const Capture& c = capture(name);
    slot = std::make_unique<Decoded>(decode(c.before, c.after, real_launch::qmd_version_of_arch(c.arch)));
  }
  return *slot;
}

std::string hex(std::span<const std::byte> bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::byte b : bytes) {
    out += digits[std::to_integer<unsigned>(b) >> 4];
    out += digits[std::to_integer<unsigned>(b) & 15];
  }
  return out;
}

std::string show(const Dim3& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
}

std::vector<std::byte> packed_params(const Capture& c, const LaunchRecord& launch) {
  const auto info = c.param_info.find(launch.kernel);
  std::vector<std::byte> buffer;
  if (info == c.param_info.end()) return buffer;
  for (std::size_t i = 0; i < info->second.size() && i < launch.values.size(); ++i) {
    const auto [offset, size] = info->second[i];
    if (buffer.size() < offset + size) buffer.resize(offset + size);
    std::copy(launch.values[i].begin(), launch.values[i].end(), buffer.begin() + offset);
  }
  return buffer;
}

std::string signature(const LaunchRecord& launch, std::span<const std::byte> packed) {
  return "grid " + show(launch.grid) + " block " + show(launch.block) + " params " + hex(packed);
}

std::string signature(const Capture& c, const LaunchRecord& launch) { return signature(launch, packed_params(c, launch)); }

std::string signature(const DecodedLaunch& launch) {
  if (launch.bank.size() < kSm90ParamBase) return "a bank of " + std::to_string(launch.bank.size()) + " bytes";
  const real_launch::BankHeader h = real_launch::read_bank_header(launch.bank);
  return "grid " + show(h.grid_dim) + " block " + show(h.block_dim) + " params " +
         hex(std::span(launch.bank).subspan(kSm90ParamBase));
}

std::vector<std::string> recorded_signatures(const Capture& c) {
  std::vector<std::string> all;
  for (const LaunchRecord& l : c.launches) all.push_back(signature(c, l));
  std::sort(all.begin(), all.end());
  return all;
}

std::vector<std::string> decoded_signatures(const Decoded& d) {
  std::vector<std::string> all;
  for (const DecodedLaunch& l : d.launches) all.push_back(signature(l));
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace launchlab::real_launch_tests
