#include "trace_decode.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

namespace launchlab::trace {
namespace {

using nlohmann::json;
using real_launch::Dim3;

std::string hex(std::uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string hex_bytes(std::span<const std::byte> bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (std::byte b : bytes) {
    out += digits[std::to_integer<unsigned>(b) >> 4];
    out += digits[std::to_integer<unsigned>(b) & 15];
  }
  return out;
}

std::string hex_words(std::span<const std::uint32_t> words) {
  std::string out;
  char buffer[16];
  for (std::uint32_t w : words) {
    std::snprintf(buffer, sizeof buffer, "%s%08x", out.empty() ? "" : " ", w);
    out += buffer;
  }
  return out;
}

json dims(const Dim3& d) { return json::array({d[0], d[1], d[2]}); }

// Names of the methods libcuda's launches use that lab 06 does not name.
std::optional<std::string> name_of(std::uint32_t method) {
  static const std::map<std::uint32_t, std::string> names = {
      {real_launch::i2m_method::kLineLengthIn, "LINE_LENGTH_IN"},
      {real_launch::i2m_method::kLineCount, "LINE_COUNT"},
      {real_launch::i2m_method::kOffsetOutUpper, "OFFSET_OUT_UPPER"},
      {real_launch::i2m_method::kOffsetOut, "OFFSET_OUT"},
      {real_launch::i2m_method::kLaunchDma, "LAUNCH_DMA"},
      {real_launch::i2m_method::kLoadInlineData, "LOAD_INLINE_DATA"},
      {0x1698, "INVALIDATE_SHADER_CACHES_NO_WFI"},
      {0x1b00, "SET_REPORT_SEMAPHORE_A"},
      {0x1b04, "SET_REPORT_SEMAPHORE_B"},
      {0x1b08, "SET_REPORT_SEMAPHORE_C"},
      {0x1b0c, "SET_REPORT_SEMAPHORE_D"},
  };
  if (auto it = names.find(method); it != names.end()) return it->second;
  return channels::method_name(method);
}

json methods_json(const std::vector<channels::MethodGroup>& groups) {
  json out = json::array();
  for (const auto& g : groups) {
    json data = json::array();
    for (std::uint32_t v : g.data) data.push_back(v);
    const auto name = name_of(g.header.method);
    out.push_back({{"index", g.offset},
                   {"sec_op", std::string(channels::to_string(g.header.sec_op))},
                   {"subchannel", g.header.subchannel},
                   {"method", hex(g.header.method)},
                   {"name", name ? json(*name) : json(nullptr)},
                   {"data", std::move(data)}});
  }
  return out;
}

json qmd_json(const real_launch::QmdLaunch& q) {
  const qmd::Qmd& m = q.qmd;
  return {{"address", hex(q.address)},
          {"version", json::array({static_cast<unsigned>(m.version), m.minor_version})},
          {"type", q.type ? json(*q.type) : json(nullptr)},
          {"grid", dims(m.grid)},
          {"block", dims(m.block)},
          {"registers", m.registers},
          {"shared_memory", m.shared_memory},
          {"program_address", hex(m.program_address)},
          {"constant_bank", {{"address", hex(m.cbank0.address)}, {"size", m.cbank0.size}, {"valid", m.cbank0.valid}}},
          {"barrier_count", m.barrier_count},
          {"sass_version", m.sass_version},
          {"pcas_action", q.pcas_action},
          {"words", hex_words(q.words)}};
}

json recorded_json(const Call& c) {
  json r = {{"api", c.api},
            {"kernel", c.kernel},
            {"grid", dims(c.grid)},
            {"block", dims(c.block)},
            {"cluster", dims(c.cluster)},
            {"shared_bytes", c.shared_bytes},
            {"stream", hex(c.stream)}};
  if (c.params) {
    r["param_bytes"] = c.params->size();
    r["parameters"] = hex_bytes(*c.params);
  }
  return r;
}

struct Found {
  std::size_t stream = 0;
  real_launch::QmdLaunch qmd;
  std::vector<std::byte> bank;
  bool used = false;
};

}  // namespace

json decode_calls(const std::vector<Call>& calls, const real_launch::Snapshot& before, const real_launch::Snapshot& after,
                  int arch, bool raw) {
  json out = json::array();
  auto all_not_decoded = [&](const std::string& why, const json& extra = json::object()) {
    for (const Call& c : calls) {
      json launch = {{"recorded", recorded_json(c)}, {"status", "not decoded: " + why}};
      launch.update(extra);
      out.push_back(std::move(launch));
    }
    return out;
  };
  if (arch != kDecodedArch) {
    return all_not_decoded("this tool decodes launches on sm_90 (QMD V04_00, parameters at c[0x0][0x210]), the only GPU "
                           "it was checked on; this one is sm_" + std::to_string(arch));
  }
  std::vector<real_launch::Change> changes;
  std::vector<real_launch::MethodStream> streams;
  try {
    changes = real_launch::changed_ranges(before, after);
    streams = real_launch::method_streams(changes);
  } catch (const std::exception& e) {
    return all_not_decoded(std::string("the driver's memory could not be compared: ") + e.what());
  }
  json raw_json = json::array();
  if (raw) {
    for (const auto& c : changes) {
      raw_json.push_back({{"address", hex(c.address)}, {"before", hex_words(c.before)}, {"after", hex_words(c.after)}});
    }
  }
  const json extra = raw ? json{{"raw", raw_json}} : json::object();
  if (streams.empty()) {
    return all_not_decoded(std::to_string(changes.size()) +
                               " ranges of the driver's memory changed, and none of them parses as methods that send a "
                               "QMD (SEND_PCAS_A): libcuda wrote this launch some way this tool does not know, or the "
                               "lab 12 it is built from does not find the methods yet",
                           extra);
  }

  std::vector<Found> found;
  std::vector<std::vector<real_launch::InlineUpload>> uploads(streams.size());
  std::vector<std::string> stream_errors(streams.size());
  for (std::size_t s = 0; s < streams.size(); ++s) {
    try {
      uploads[s] = real_launch::inline_uploads(streams[s].groups);
      for (const auto& q : real_launch::qmd_launches(streams[s].groups, uploads[s], qmd::QmdVersion::V04_00)) {
        if (!q.launches_threads()) continue;
        found.push_back(Found{s, q, real_launch::constant_bank(q.qmd, uploads[s])});
      }
    } catch (const std::exception& e) {
      stream_errors[s] = e.what();
    }
  }

  for (const Call& c : calls) {
    json launch = {{"recorded", recorded_json(c)}};
    Found* match = nullptr;
    for (Found& f : found) {
      if (f.used || f.bank.size() < 24) continue;
      const auto header = real_launch::read_bank_header(f.bank);
      const bool params_agree = !c.params || (f.bank.size() >= kParamBase &&
                                              hex_bytes(std::span(f.bank).subspan(kParamBase)) == hex_bytes(*c.params));
      if (header.grid_dim == c.grid && header.block_dim == c.block && params_agree) {
        match = &f;
        break;
      }
    }
    if (!match) {
      std::string why = "no QMD among the " + std::to_string(found.size()) +
                        " decoded has this launch's gridDim, blockDim and parameters in its constant bank";
      for (const auto& e : stream_errors) {
        if (!e.empty()) why += "; a method stream could not be decoded: " + e;
      }
      launch["status"] = "not decoded: " + why;
      launch.update(extra);
      out.push_back(std::move(launch));
      continue;
    }
    match->used = true;
    const auto& q = match->qmd;
    const auto header = real_launch::read_bank_header(match->bank);
    launch["status"] = "decoded";
    launch["qmd"] = qmd_json(q);
    const auto params = match->bank.size() > kParamBase ? std::span(match->bank).subspan(kParamBase) : std::span<const std::byte>();
    launch["constant_bank"] = {{"block_dim", dims(header.block_dim)},
                               {"grid_dim", dims(header.grid_dim)},
                               {"uploaded_bytes", match->bank.size()},
                               {"parameters", hex_bytes(params)}};
    Dim3 in_clusters = c.grid;
    for (std::size_t i = 0; i < 3; ++i) in_clusters[i] /= c.cluster[i] ? c.cluster[i] : 1;
    json agree = {{"grid", q.qmd.grid == in_clusters},
                  {"block", q.qmd.block == c.block},
                  {"grid_dim", header.grid_dim == c.grid},
                  {"block_dim", header.block_dim == c.block},
                  {"shared_memory_holds_the_dynamic_bytes", q.qmd.shared_memory >= c.shared_bytes}};
    if (c.params) agree["parameters"] = hex_bytes(params) == hex_bytes(*c.params);
    launch["agrees"] = std::move(agree);
    const auto& stream = streams[match->stream];
    json up = json::array();
    for (const auto& u : uploads[match->stream]) {
      std::string role = "other";
      if (u.address == q.address) role = "this QMD";
      else if (u.address == q.qmd.program_address) role = "the kernel's code (loaded at its first launch)";
      else if (u.address == q.qmd.cbank0.address) role = "constant bank 0";
      else if (u.address == q.qmd.cbank0.address + kParamBase) role = "parameters";
      else if (u.address == q.qmd.release0.address) role = "release semaphore";
      else if (u.bytes.size() == qmd::qmd_words(qmd::QmdVersion::V04_00) * 4) role = "QMD";
      up.push_back({{"address", hex(u.address)}, {"bytes", u.bytes.size()}, {"role", role}, {"group", u.group}});
    }
    launch["method_stream"] = {{"address", hex(stream.address)}, {"groups", stream.groups.size()}};
    launch["uploads"] = std::move(up);
    launch["methods"] = methods_json(stream.groups);
    launch.update(extra);
    out.push_back(std::move(launch));
  }
  return out;
}

bool agrees(const json& launch) {
  if (launch.value("status", "") != "decoded") return false;
  for (const auto& [key, value] : launch.at("agrees").items()) {
    if (!value.get<bool>()) return false;
  }
  return true;
}

namespace {

std::string show(const json& d) {
  return "(" + std::to_string(d[0].get<unsigned>()) + ", " + std::to_string(d[1].get<unsigned>()) + ", " +
         std::to_string(d[2].get<unsigned>()) + ")";
}

std::string cut(const std::string& hex, std::size_t bytes) {
  return hex.size() <= 2 * bytes ? hex : hex.substr(0, 2 * bytes) + "... (" + std::to_string(hex.size() / 2) + " bytes)";
}

}  // namespace

std::string to_text(const json& launch) {
  std::ostringstream out;
  const json& r = launch.at("recorded");
  out << r.at("api").get<std::string>() << " " << r.at("kernel").get<std::string>() << ": grid " << show(r.at("grid"))
      << ", block " << show(r.at("block"));
  if (r.at("cluster")[0].get<unsigned>() != 0) out << ", cluster " << show(r.at("cluster"));
  out << ", " << r.at("shared_bytes").get<unsigned>() << " bytes of dynamic shared memory, stream "
      << r.at("stream").get<std::string>() << "\n";
  out << "  parameters passed: "
      << (r.contains("parameters") ? cut(r.at("parameters").get<std::string>(), 32)
                                   : std::string("unknown (the driver did not say where they go)"))
      << "\n";
  const std::string status = launch.at("status").get<std::string>();
  if (status != "decoded") {
    out << "  " << status << "\n";
  } else {
    const json& s = launch.at("method_stream");
    out << "  method stream at " << s.at("address").get<std::string>() << ", " << s.at("groups").get<std::size_t>()
        << " groups:\n";
    for (const json& g : launch.at("methods")) {
      out << "    [" << g.at("index").get<std::size_t>() << "] " << g.at("sec_op").get<std::string>() << " subchannel "
          << g.at("subchannel").get<unsigned>() << " " << g.at("method").get<std::string>() << " "
          << (g.at("name").is_null() ? std::string("?") : g.at("name").get<std::string>());
      const json& data = g.at("data");
      for (std::size_t i = 0; i < data.size() && i < 6; ++i) out << (i ? " " : ": ") << hex(data[i].get<std::uint32_t>());
      if (data.size() > 6) out << " ... (" << data.size() << " words)";
      out << "\n";
    }
    out << "  uploads (inline to memory):\n";
    for (const json& u : launch.at("uploads")) {
      out << "    " << u.at("address").get<std::string>() << ": " << u.at("bytes").get<std::size_t>() << " bytes, "
          << u.at("role").get<std::string>() << "\n";
    }
    const json& q = launch.at("qmd");
    out << "  QMD at " << q.at("address").get<std::string>() << " (V0" << q.at("version")[0].get<unsigned>() << "_0"
        << q.at("version")[1].get<unsigned>() << ", type " << (q.at("type").is_null() ? std::string("?") : std::to_string(q.at("type").get<unsigned>()))
        << "): grid " << show(q.at("grid")) << ", block " << show(q.at("block")) << ", "
        << q.at("registers").get<unsigned>() << " registers, " << q.at("shared_memory").get<unsigned>()
        << " bytes of shared memory, " << q.at("barrier_count").get<unsigned>() << " barriers, SASS version "
        << hex(q.at("sass_version").get<unsigned>()) << "\n"
        << "    program at " << q.at("program_address").get<std::string>() << ", constant bank 0 at "
        << q.at("constant_bank").at("address").get<std::string>() << " (" << q.at("constant_bank").at("size").get<unsigned>()
        << " bytes" << (q.at("constant_bank").at("valid").get<bool>() ? "" : ", not valid") << ")\n";
    const json& b = launch.at("constant_bank");
    out << "  constant bank 0 as uploaded (" << b.at("uploaded_bytes").get<std::size_t>() << " bytes): blockDim "
        << show(b.at("block_dim")) << ", gridDim " << show(b.at("grid_dim")) << ", parameters at 0x210: "
        << cut(b.at("parameters").get<std::string>(), 32) << "\n";
    out << "  agrees with the launch:";
    for (const auto& [key, value] : launch.at("agrees").items()) out << " " << key << (value.get<bool>() ? " yes," : " NO,");
    out.seekp(-1, std::ios_base::cur);
    out << "\n";
  }
  if (launch.contains("raw")) {
    out << "  changed words (before -> after):\n";
    for (const json& c : launch.at("raw")) {
      out << "    " << c.at("address").get<std::string>() << ": " << cut(c.at("before").get<std::string>(), 96) << "\n"
          << "      -> " << cut(c.at("after").get<std::string>(), 96) << "\n";
    }
  }
  return out.str();
}

json replay(const real_launch::Capture& capture, bool raw) {
  std::vector<Call> calls;
  for (const auto& l : capture.launches) {
    Call c;
    c.api = l.api;
    c.kernel = l.kernel;
    c.grid = l.grid;
    c.block = l.block;
    c.cluster = l.cluster;
    c.shared_bytes = l.shared_dynamic;
    c.stream = static_cast<std::uint64_t>(l.stream);
    std::vector<std::byte> params;
    const auto info = capture.param_info.find(l.kernel);
    if (info != capture.param_info.end()) {
      for (std::size_t i = 0; i < info->second.size() && i < l.values.size(); ++i) {
        const auto [offset, size] = info->second[i];
        if (params.size() < offset + size) params.resize(offset + size);
        std::copy(l.values[i].begin(), l.values[i].end(), params.begin() + offset);
      }
      c.params = std::move(params);
    }
    calls.push_back(std::move(c));
  }
  return decode_calls(calls, capture.before, capture.after, capture.arch, raw);
}

}  // namespace launchlab::trace
