// Given code: QMD files in, JSON and text out. `launchlab inspect qmd` is this
// file around your decode().
#include <cstdio>
#include <string>

#include "qmd.h"

namespace launchlab::qmd {
namespace {

std::string hex(std::uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string triple(const std::array<std::uint32_t, 3>& v, const char* separator) {
  return std::to_string(v[0]) + separator + std::to_string(v[1]) + separator + std::to_string(v[2]);
}

}  // namespace

std::string to_string(QmdVersion version) {
  switch (version) {
    case QmdVersion::V03_00: return "V03_00";
    case QmdVersion::V04_00: return "V04_00";
    case QmdVersion::V05_00: return "V05_00";
  }
  return "V" + std::to_string(static_cast<unsigned>(version)) + "_??";
}

std::vector<std::uint32_t> words_from_bytes(std::string_view bytes) {
  if (bytes.size() % 4 != 0) {
    throw QmdError("expected 32-bit words, but " + std::to_string(bytes.size()) +
                   " bytes is not a multiple of 4");
  }
  std::vector<std::uint32_t> words(bytes.size() / 4);
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::uint32_t w = 0;
    for (int b = 3; b >= 0; --b) w = (w << 8) | static_cast<unsigned char>(bytes[4 * i + b]);
    words[i] = w;
  }
  return words;
}

QmdVersion version_from_number(std::string_view number) {
  if (number == "3") return QmdVersion::V03_00;
  if (number == "4") return QmdVersion::V04_00;
  if (number == "5") return QmdVersion::V05_00;
  throw QmdError("QMD version '" + std::string(number) + "': expected 3 (V03_00), 4 (V04_00) or 5 (V05_00)");
}

std::string to_json(const Qmd& q) {
  auto b = [](bool v) { return v ? std::string("true") : std::string("false"); };
  std::string out = "{\n";
  out += "  \"version\": [" + std::to_string(static_cast<unsigned>(q.version)) + ", " +
         std::to_string(q.minor_version) + "],\n";
  out += "  \"grid\": [" + triple(q.grid, ", ") + "],\n";
  out += "  \"block\": [" + triple(q.block, ", ") + "],\n";
  out += "  \"registers\": " + std::to_string(q.registers) + ",\n";
  out += "  \"shared_memory\": " + std::to_string(q.shared_memory) + ",\n";
  out += "  \"program_address\": " + std::to_string(q.program_address) + ",\n";
  out += "  \"cbank0\": {\"address\": " + std::to_string(q.cbank0.address) +
         ", \"size\": " + std::to_string(q.cbank0.size) + ", \"valid\": " + b(q.cbank0.valid) + "},\n";
  out += "  \"barrier_count\": " + std::to_string(q.barrier_count) + ",\n";
  out += "  \"sass_version\": " + std::to_string(q.sass_version) + ",\n";
  out += "  \"release0\": {\"enable\": " + b(q.release0.enable) + ", \"address\": " +
         std::to_string(q.release0.address) + ", \"payload\": " + std::to_string(q.release0.payload) + "}\n";
  out += "}\n";
  return out;
}

std::string to_text(const Qmd& q) {
  std::string out;
  out += "QMD " + to_string(q.version) + " (minor version " + std::to_string(q.minor_version) + ")\n";
  out += "  grid             " + triple(q.grid, " x ") + " blocks\n";
  out += "  block            " + triple(q.block, " x ") + " threads\n";
  out += "  registers        " + std::to_string(q.registers) + " per thread\n";
  out += "  shared memory    " + std::to_string(q.shared_memory) + " bytes per block\n";
  out += "  program address  " + hex(q.program_address) + "\n";
  out += "  constant bank 0  " + hex(q.cbank0.address) + ", " + std::to_string(q.cbank0.size) + " bytes, " +
         (q.cbank0.valid ? "valid" : "not valid") + "\n";
  out += "  barriers         " + std::to_string(q.barrier_count) + "\n";
  out += "  SASS version     " + hex(q.sass_version) + "\n";
  out += "  release 0        " +
         (q.release0.enable ? "writes " + hex(q.release0.payload) + " to " + hex(q.release0.address)
                            : std::string("off")) +
         "\n";
  return out;
}

}  // namespace launchlab::qmd
