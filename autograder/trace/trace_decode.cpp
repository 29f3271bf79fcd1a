#include "trace_decode.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <set>
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

// The compute class's report semaphore (SET_REPORT_SEMAPHORE_A to _D,
// clc6c0.h and clcbc0.h): A holds the address's bits 63:32 (24:0 used), B its
// bits 31:0, C the payload, D how to write it.
constexpr std::uint32_t kSetReportSemaphoreA = 0x1b00;
constexpr std::uint32_t kReportOperationMask = 0x3;             // D's OPERATION, 1:0: 0 is RELEASE
constexpr std::uint32_t kReportStructureOneWord = 1u << 28;     // D's STRUCTURE_SIZE, 28:28: 0 is FOUR_WORDS

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
      {kSetReportSemaphoreA, "SET_REPORT_SEMAPHORE_A"},
      {kSetReportSemaphoreA + 4, "SET_REPORT_SEMAPHORE_B"},
      {kSetReportSemaphoreA + 8, "SET_REPORT_SEMAPHORE_C"},
      {kSetReportSemaphoreA + 12, "SET_REPORT_SEMAPHORE_D"},
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


// Words a snapshot holds from an address on, when one region holds them all.
std::optional<std::vector<std::uint32_t>> words_at(const real_launch::Snapshot& snapshot, std::uint64_t address,
                                                   std::size_t count) {
  for (const auto& region : snapshot.regions) {
    if (address < region.address || address + 4 * count > region.address + region.bytes.size()) continue;
    std::vector<std::uint32_t> words(count);
    std::memcpy(words.data(), region.bytes.data() + (address - region.address), 4 * count);
    return words;
  }
  return std::nullopt;
}

std::optional<std::uint32_t> word_at(const real_launch::Snapshot& snapshot, std::uint64_t address) {
  const auto words = words_at(snapshot, address, 1);
  return words ? std::optional(words->front()) : std::nullopt;
}

const real_launch::Mapping* mapping_holding(std::span<const real_launch::Mapping> maps, std::uint64_t address) {
  for (const auto& m : maps) {
    if (address >= m.start && address < m.end) return &m;
  }
  return nullptr;
}

// Every word of the channel's memory that differs between the snapshots:
// address -> (before, after). A word the earlier snapshot lacks counts as 0.
std::map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> changed_channel_words(
    const real_launch::Snapshot& before, const real_launch::Snapshot& after, std::span<const real_launch::Mapping> channel) {
  std::map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> changed;
  for (const auto& region : after.regions) {
    if (!mapping_holding(channel, region.address)) continue;
    for (std::size_t offset = 0; offset + 4 <= region.bytes.size(); offset += 4) {
      const std::uint64_t address = region.address + offset;
      std::uint32_t now = 0;
      std::memcpy(&now, region.bytes.data() + offset, 4);
      const std::uint32_t was = word_at(before, address).value_or(0);
      if (now != was) changed[address] = {was, now};
    }
  }
  return changed;
}

// How many words a method group takes in the pushbuffer: an IMMD header
// carries its value in itself.
std::size_t group_words(const channels::MethodGroup& group) {
  return 1 + (group.header.sec_op == channels::SecOp::Immd ? 0 : group.data.size());
}

json release_json(const Submission& s, const real_launch::Snapshot& after) {
  for (const auto& group : s.groups) {
    if (group.header.method != kSetReportSemaphoreA || group.header.sec_op != channels::SecOp::Inc || group.data.size() < 4) {
      continue;
    }
    const std::uint64_t address = (static_cast<std::uint64_t>(group.data[0] & 0x1ffffff) << 32) | group.data[1];
    const std::uint32_t payload = group.data[2], how = group.data[3];
    const bool four_words = (how & kReportStructureOneWord) == 0;
    json release = {{"address", hex(address)},
                    {"payload", payload},
                    {"operation", (how & kReportOperationMask) == 0 ? "release" : "other"},
                    {"structure", four_words ? "four words: payload, 0, 64-bit timestamp" : "one word: payload"}};
    if (const auto written = words_at(after, address, four_words ? 4 : 1)) {
      json seen = {{"payload", (*written)[0]}};
      if (four_words) seen["timestamp_ns"] = (static_cast<std::uint64_t>((*written)[3]) << 32) | (*written)[2];
      release["written"] = std::move(seen);
    }
    return release;
  }
  return nullptr;
}

json submission_json(const Submission& s, const real_launch::Snapshot& after) {
  json entry = {{"written_at", hex(s.entry_address)},
                {"ring", hex(s.ring)},
                {"index", s.index},
                {"entry0", hex(s.entry0)},
                {"entry1", hex(s.entry1)},
                {"segment_address", hex(s.entry.address)},
                {"get_hi", s.entry.address >> 32},
                {"length_words", s.entry.length},
                {"level", s.entry.level == channels::GpLevel::Subroutine ? "subroutine" : "main"},
                {"sync_wait", s.entry.sync_wait}};
  json userd = {{"address", hex(s.userd)},
                {"gp_put", json::array({s.gp_put_before, s.gp_put_after})},
                {"gp_get", s.gp_get_before && s.gp_get_after ? json::array({*s.gp_get_before, *s.gp_get_after}) : json(nullptr)}};
  json segment = {{"words_read", s.segment.size()}, {"groups", s.groups.size()}};
  if (!s.parse_error.empty()) segment["parse_error"] = s.parse_error;
  return {{"gpfifo_entry", std::move(entry)}, {"userd", std::move(userd)}, {"segment", std::move(segment)},
          {"release", release_json(s, after)}};
}

// Whether a snapshot pair holds any of the channel's memory: captures made
// before channel memory was read list the mapping and hold none of it.
bool holds_channel_memory(const real_launch::Snapshot& after, std::span<const real_launch::Mapping> channel) {
  return std::any_of(after.regions.begin(), after.regions.end(),
                     [&](const real_launch::Region& r) { return mapping_holding(channel, r.address) != nullptr; });
}

struct Found {
  std::size_t stream = 0;
  real_launch::QmdLaunch qmd;
  std::vector<std::byte> bank;
  bool used = false;
};

}  // namespace

std::vector<real_launch::Mapping> channel_mappings(std::span<const real_launch::Mapping> maps) {
  std::vector<real_launch::Mapping> kept;
  for (const auto& m : maps) {
    if (m.path == "/dev/nvidia0" && m.perms.size() == 4 && m.perms[0] == 'r' && m.perms[3] == 's') kept.push_back(m);
  }
  return kept;
}

real_launch::Snapshot read_channel_memory(std::span<const real_launch::Mapping> mappings) {
  for (const auto& m : mappings) {
    const real_launch::Mapping one[] = {m};
    if (channel_mappings(one).empty()) {
      throw real_launch::LaunchError("read_channel_memory: " + m.path + " at " + hex(m.start) +
                                     " is not a readable shared mapping of /dev/nvidia0");
    }
  }
  const int memory = ::open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  if (memory < 0) throw real_launch::LaunchError("read_channel_memory: cannot open /proc/self/mem");
  real_launch::Snapshot snapshot;
  for (const auto& m : mappings) {
    real_launch::Region region{m.start, std::vector<std::byte>(m.size())};
    constexpr std::size_t kPage = 4096;
    for (std::size_t done = 0; done < region.bytes.size(); done += kPage) {
      const std::size_t n = std::min(kPage, region.bytes.size() - done);
      // A page that cannot be read stays zero, as take_snapshot leaves it.
      if (::pread(memory, region.bytes.data() + done, n, static_cast<off_t>(m.start + done)) != static_cast<ssize_t>(n)) {
        std::fill_n(region.bytes.begin() + static_cast<std::ptrdiff_t>(done), n, std::byte{0});
      }
    }
    snapshot.regions.push_back(std::move(region));
  }
  ::close(memory);
  return snapshot;
}

std::vector<Submission> gpfifo_submissions(const real_launch::Snapshot& before, const real_launch::Snapshot& after,
                                           std::span<const real_launch::Mapping> channel) {
  constexpr std::uint32_t kMostEntriesAtOnce = 1024;
  const auto changed = changed_channel_words(before, after, channel);
  auto is_gp_put = [&](std::uint64_t address, std::pair<std::uint32_t, std::uint32_t> put) {
    const real_launch::Mapping* mapping = mapping_holding(channel, address);
    return (address - mapping->start) % channels::kUserdSize == channels::kUserdGpPut && put.second > put.first &&
           put.second - put.first <= kMostEntriesAtOnce;
  };
  std::set<std::uint64_t> userds;
  for (const auto& [address, put] : changed) {
    if (is_gp_put(address, put)) userds.insert(address - channels::kUserdGpPut);
  }
  auto in_a_userd = [&](std::uint64_t address) {
    auto above = userds.upper_bound(address);
    return above != userds.begin() && address < *std::prev(above) + channels::kUserdSize;
  };
  std::vector<Submission> found;
  for (const std::uint64_t userd : userds) {
    const std::uint64_t put_address = userd + channels::kUserdGpPut;
    const real_launch::Mapping* mapping = mapping_holding(channel, put_address);
    const auto [put_before, put_after] = changed.at(put_address);
    // The 8-byte slots that changed below this USERD in its mapping, outside
    // every USERD: each channel's ring lies below its USERD (on the H200,
    // 0x2000 below), so the nearest ones are tried first.
    std::set<std::uint64_t, std::greater<>> slots;
    for (const auto& [address, words] : changed) {
      if (address >= userd || mapping_holding(channel, address) != mapping || in_a_userd(address)) continue;
      slots.insert(address - (address - mapping->start) % channels::kGpEntrySize);
    }
    for (const std::uint64_t newest : slots) {
      const std::uint64_t span_below = std::uint64_t{channels::kGpEntrySize} * (put_after - 1);
      if (newest < mapping->start + span_below) continue;
      const std::uint64_t ring = newest - span_below;
      bool every_entry_changed = true;
      for (std::uint32_t i = put_before; i < put_after; ++i) every_entry_changed &= slots.count(ring + channels::kGpEntrySize * i) > 0;
      if (!every_entry_changed) continue;
      for (std::uint32_t i = put_before; i < put_after; ++i) {
        Submission s;
        s.entry_address = ring + channels::kGpEntrySize * i;
        s.ring = ring;
        s.index = i;
        s.entry0 = word_at(after, s.entry_address).value_or(0);
        s.entry1 = word_at(after, s.entry_address + 4).value_or(0);
        s.entry = channels::decode_gp_entry(s.entry0, s.entry1);
        s.userd = userd;
        s.gp_put_before = put_before;
        s.gp_put_after = put_after;
        s.gp_get_before = word_at(before, userd + channels::kUserdGpGet);
        s.gp_get_after = word_at(after, userd + channels::kUserdGpGet);
        if (auto words = words_at(after, s.entry.address, s.entry.length)) {
          s.segment = std::move(*words);
          try {
            s.groups = channels::parse_pushbuffer(s.segment);
          } catch (const std::exception& e) {
            s.parse_error = e.what();
          }
        } else {
          s.parse_error = "the snapshot does not hold the segment's " + std::to_string(s.entry.length) + " words";
        }
        found.push_back(std::move(s));
      }
      break;
    }
  }
  return found;
}

json decode_calls(const std::vector<Call>& calls, const real_launch::Snapshot& before, const real_launch::Snapshot& after,
                  int arch, bool raw, std::span<const real_launch::Mapping> channel) {
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

  const bool follows_channel = holds_channel_memory(after, channel);
  const std::vector<Submission> submissions =
      follows_channel ? gpfifo_submissions(before, after, channel) : std::vector<Submission>{};

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
    launch["agrees"] = agree;
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
    if (follows_channel) {
      launch["submission"] = nullptr;
      const Submission* carrier = nullptr;
      for (const auto& u : uploads[match->stream]) {
        if (u.address != q.address) continue;
        const std::uint64_t sent_at = stream.address + 4 * stream.groups[u.group].offset;
        for (const auto& s : submissions) {
          if (sent_at >= s.entry.address && sent_at < s.entry.address + 4ull * s.entry.length) carrier = &s;
        }
      }
      agree["gpfifo_entry_found"] = carrier != nullptr;
      if (carrier) {
        // The entry must start a method group of the decoded stream, and its
        // LENGTH must end one (or the stream), with the QMD sent in between.
        std::size_t at = 0;
        bool starts_a_group = false, length_ends_a_group = false;
        for (const auto& g : stream.groups) {
          const std::uint64_t address = stream.address + 4 * g.offset;
          if (address == carrier->entry.address) starts_a_group = true;
          at = g.offset + group_words(g);
          if (stream.address + 4 * at == carrier->entry.address + 4ull * carrier->entry.length) length_ends_a_group = true;
        }
        bool sends_this_qmd = false;
        for (const auto& g : carrier->groups) {
          for (const auto& call : channels::method_calls(g)) {
            if (call.method == channels::compute_method::kSendPcasA && (std::uint64_t{call.data} << 8) == q.address) sends_this_qmd = true;
          }
        }
        agree["gpfifo_entry_starts_a_method_group"] = starts_a_group;
        agree["gpfifo_length_ends_a_method_group"] = length_ends_a_group;
        agree["gpfifo_segment_sends_the_qmd"] = carrier->parse_error.empty() && sends_this_qmd;
        launch["submission"] = submission_json(*carrier, after);
      }
      launch["agrees"] = agree;
    }
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
    if (launch.contains("submission") && !launch.at("submission").is_null()) {
      const json& sub = launch.at("submission");
      const json& e = sub.at("gpfifo_entry");
      out << "  GPFIFO entry " << e.at("index").get<std::uint32_t>() << " of the ring at " << e.at("ring").get<std::string>()
          << " (written at " << e.at("written_at").get<std::string>() << "): " << e.at("entry0").get<std::string>() << " "
          << e.at("entry1").get<std::string>() << " = segment " << e.at("segment_address").get<std::string>() << " (GET_HI "
          << e.at("get_hi").get<std::uint64_t>() << "), " << e.at("length_words").get<std::uint32_t>() << " words, LEVEL "
          << e.at("level").get<std::string>() << "\n";
      const json& u = sub.at("userd");
      out << "  USERD at " << u.at("address").get<std::string>() << ": GP_PUT " << hex(u.at("gp_put")[0].get<std::uint32_t>())
          << " -> " << hex(u.at("gp_put")[1].get<std::uint32_t>());
      if (!u.at("gp_get").is_null()) {
        out << ", GP_GET " << hex(u.at("gp_get")[0].get<std::uint32_t>()) << " -> " << hex(u.at("gp_get")[1].get<std::uint32_t>());
      }
      out << "\n";
      if (const json& r = sub.at("release"); !r.is_null()) {
        out << "  semaphore " << r.at("operation").get<std::string>() << " at " << r.at("address").get<std::string>() << " ("
            << r.at("structure").get<std::string>() << "): payload " << hex(r.at("payload").get<std::uint32_t>());
        if (r.contains("written")) {
          out << "; memory holds " << hex(r.at("written").at("payload").get<std::uint32_t>());
          if (r.at("written").contains("timestamp_ns")) out << ", timestamp " << r.at("written").at("timestamp_ns").get<std::uint64_t>() << " ns";
        }
        out << "\n";
      }
    } else if (launch.contains("submission")) {
      out << "  GPFIFO entry: none of the entries written between the snapshots carries this launch's QMD\n";
    }
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
  return decode_calls(calls, capture.before, capture.after, capture.arch, raw, channel_mappings(capture.mappings));
}

}  // namespace launchlab::trace
