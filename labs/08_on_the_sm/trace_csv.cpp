// The trace's file format (trace.h): `# key: value` lines, a header line,
// one line per block. Not a student file.

#include <cstdio>
#include <istream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "trace.h"

namespace launchlab::on_the_sm {

namespace {

constexpr const char* kHeader = "block,sm,start_ns,end_ns,warp_slots";

std::uint64_t parse_number(const std::string& field, int base, std::size_t line_number, const char* what) {
  std::size_t used = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(field, &used, base);
  } catch (const std::exception&) {
    used = 0;
  }
  if (field.empty() || used != field.size() || field[0] == '-') {
    throw std::runtime_error("trace line " + std::to_string(line_number) + ": " + what + " '" + field +
                             "' is not a number");
  }
  return value;
}

}  // namespace

std::optional<std::string> TraceFile::find(const std::string& key) const {
  for (const auto& [k, v] : meta) {
    if (k == key) return v;
  }
  return std::nullopt;
}

void write_trace_csv(std::ostream& out, const TraceFile& trace) {
  for (const auto& [key, value] : trace.meta) out << "# " << key << ": " << value << "\n";
  out << kHeader << "\n";
  char slots[24];
  for (const BlockRecord& r : trace.records) {
    std::snprintf(slots, sizeof slots, "0x%016llx", static_cast<unsigned long long>(r.warp_slots));
    out << r.block << "," << r.sm << "," << r.start_ns << "," << r.end_ns << "," << slots << "\n";
  }
}

TraceFile read_trace_csv(std::istream& in) {
  TraceFile trace;
  std::string line;
  std::size_t line_number = 0;
  bool header_seen = false;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    if (line[0] == '#') {
      const std::size_t colon = line.find(": ");
      if (colon == std::string::npos) continue;  // a plain comment
      std::size_t key_start = line.find_first_not_of(" #");
      if (key_start == std::string::npos || key_start > colon) continue;
      trace.meta.emplace_back(line.substr(key_start, colon - key_start), line.substr(colon + 2));
      continue;
    }
    if (!header_seen) {
      if (line != kHeader) {
        throw std::runtime_error("trace line " + std::to_string(line_number) + ": expected the header '" +
                                 kHeader + "', got '" + line + "'");
      }
      header_seen = true;
      continue;
    }
    std::stringstream fields(line);
    std::string f[5];
    for (int i = 0; i < 5; ++i) {
      if (!std::getline(fields, f[i], ',')) {
        throw std::runtime_error("trace line " + std::to_string(line_number) + ": expected 5 fields, got " +
                                 std::to_string(i));
      }
    }
    std::string extra;
    if (std::getline(fields, extra, ',')) {
      throw std::runtime_error("trace line " + std::to_string(line_number) + ": more than 5 fields");
    }
    BlockRecord r;
    r.block = static_cast<std::uint32_t>(parse_number(f[0], 10, line_number, "block"));
    r.sm = static_cast<std::uint32_t>(parse_number(f[1], 10, line_number, "sm"));
    r.start_ns = parse_number(f[2], 10, line_number, "start_ns");
    r.end_ns = parse_number(f[3], 10, line_number, "end_ns");
    r.warp_slots = parse_number(f[4], 16, line_number, "warp_slots");
    trace.records.push_back(r);
  }
  if (!header_seen) throw std::runtime_error("trace: no header line '" + std::string(kHeader) + "'");
  return trace;
}

}  // namespace launchlab::on_the_sm
