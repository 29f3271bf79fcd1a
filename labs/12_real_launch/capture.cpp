// Given code: reading the capture files made on a GPU host
// (labs/12_real_launch/captures: README.md describes the format).
#include <charconv>
#include <sstream>

#include "real_launch.h"

namespace launchlab::real_launch {
namespace {

struct Reader {
  std::size_t line = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw LaunchError("capture line " + std::to_string(line) + ": " + what);
  }

  std::uint64_t number(std::string_view text, int base = 10) const {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) fail("'" + std::string(text) + "' is not a number");
    return value;
  }

  std::int64_t signed_number(std::string_view text) const {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) fail("'" + std::string(text) + "' is not a number");
    return value;
  }

  Dim3 dims(std::string_view text) const {
    Dim3 d{};
    for (std::size_t i = 0; i < 3; ++i) {
      const auto comma = text.find(',');
      if ((i < 2) != (comma != std::string_view::npos)) fail("'" + std::string(text) + "' is not X,Y,Z");
      d[i] = static_cast<std::uint32_t>(number(text.substr(0, comma)));
      text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return d;
  }

  void append_hex(std::string_view text, std::vector<std::byte>& to) const {
    if (text.size() % 2 != 0) fail("hexadecimal bytes of odd length");
    for (std::size_t i = 0; i < text.size(); i += 2) to.push_back(static_cast<std::byte>(number(text.substr(i, 2), 16)));
  }
};

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> words;
  while (!line.empty()) {
    const auto start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    line = line.substr(start);
    const auto end = line.find(' ');
    words.push_back(line.substr(0, end));
    line = end == std::string_view::npos ? std::string_view() : line.substr(end);
  }
  return words;
}

// key=value words after the first `skip` words.
std::map<std::string, std::string, std::less<>> pairs_of(const std::vector<std::string_view>& words, std::size_t skip) {
  std::map<std::string, std::string, std::less<>> pairs;
  for (std::size_t i = skip; i < words.size(); ++i) {
    const auto eq = words[i].find('=');
    if (eq != std::string_view::npos) pairs.emplace(std::string(words[i].substr(0, eq)), std::string(words[i].substr(eq + 1)));
  }
  return pairs;
}

}  // namespace

qmd::QmdVersion qmd_version_of_arch(int arch) {
  if (arch < 90) return qmd::QmdVersion::V03_00;
  if (arch < 100) return qmd::QmdVersion::V04_00;
  return qmd::QmdVersion::V05_00;
}

Capture read_capture(std::string_view text) {
  Capture capture;
  Reader r;
  std::map<std::size_t, std::vector<std::byte>> packed;  // by launch index
  std::vector<std::byte>* filling = nullptr;             // the window or memory being read
  std::vector<std::byte>* filling_before = nullptr;
  bool seen_header = false, seen_end = false;
  std::string default_cubin;
  std::istringstream lines{std::string(text)};
  for (std::string line_text; std::getline(lines, line_text);) {
    ++r.line;
    if (!line_text.empty() && line_text.back() == '\r') line_text.pop_back();
    const std::string_view line = line_text;
    if (line.empty()) continue;
    if (!seen_header) {
      if (line != "launchlab-capture 1") r.fail("not a capture of format 1 (it starts with '" + std::string(line) + "')");
      seen_header = true;
      continue;
    }
    if (seen_end) r.fail("text after 'end'");
    if (line[0] == '#') {
      if (capture.note.empty()) capture.note = std::string(line.substr(line.find_first_not_of("# ") == std::string_view::npos ? line.size() : line.find_first_not_of("# ")));
      continue;
    }
    const auto words = words_of(line);
    const std::string_view key = words[0];
    auto rest = [&] { return std::string(line.size() > key.size() + 1 ? line.substr(key.size() + 1) : std::string_view()); };
    if (key == "a" || key == "b" || key == "m") {
      std::vector<std::byte>* to = key == "b" ? filling_before : filling;
      if (!to || words.size() != 2) r.fail("bytes outside a window or memory record");
      r.append_hex(words[1], *to);
      continue;
    }
    filling = filling_before = nullptr;
    if (key == "name") {
      capture.name = rest();
    } else if (key == "gpu") {
      capture.gpu = rest();
    } else if (key == "driver") {
      capture.driver = rest();
    } else if (key == "arch") {
      if (words.size() != 2) r.fail("arch takes one number");
      capture.arch = static_cast<int>(r.number(words[1]));
    } else if (key == "cubin") {
      default_cubin = rest();
    } else if (key == "device") {
      for (const auto& [k, v] : pairs_of(words, 1)) capture.device[k] = r.signed_number(v);
    } else if (key == "snapshot_seconds" || key == "stack_limit") {
      // For the record only.
    } else if (key == "kernel") {
      if (words.size() < 2) r.fail("kernel without a name");
      const std::string name(words[1]);
      for (const auto& [k, v] : pairs_of(words, 2)) {
        if (k == "cubin") {
          capture.cubins[name] = v;
        } else {
          capture.attributes[name][k] = r.signed_number(v);
        }
      }
      if (!capture.cubins.count(name)) capture.cubins[name] = default_cubin;
    } else if (key == "kernel_params") {
      if (words.size() < 2) r.fail("kernel_params without a name");
      auto& info = capture.param_info[std::string(words[1])];
      for (std::size_t i = 2; i < words.size(); ++i) {
        const auto plus = words[i].find('+');
        if (plus == std::string_view::npos) r.fail("a parameter is not OFFSET+SIZE");
        info.emplace_back(static_cast<std::uint32_t>(r.number(words[i].substr(0, plus))),
                          static_cast<std::uint32_t>(r.number(words[i].substr(plus + 1))));
      }
    } else if (key == "launch") {
      if (words.size() < 2 || r.number(words[1]) != capture.launches.size()) r.fail("launches must be numbered 0, 1, ...");
      const auto p = pairs_of(words, 2);
      auto get = [&](const char* k) -> const std::string& {
        auto it = p.find(k);
        if (it == p.end()) r.fail(std::string("launch without ") + k);
        return it->second;
      };
      LaunchRecord l;
      l.kernel = get("kernel");
      l.api = get("api");
      l.grid = r.dims(get("grid"));
      l.block = r.dims(get("block"));
      if (p.count("cluster")) l.cluster = r.dims(get("cluster"));
      l.shared_dynamic = static_cast<std::uint32_t>(r.number(get("shared_dynamic")));
      l.stream = static_cast<int>(r.number(get("stream")));
      packed[capture.launches.size()].reserve(r.number(get("param_bytes")));
      capture.launches.push_back(std::move(l));
    } else if (key == "params") {
      if (words.size() != 4) r.fail("params takes LAUNCH OFFSET BYTES");
      auto& buffer = packed[r.number(words[1])];
      if (r.number(words[2]) != buffer.size()) r.fail("parameter bytes out of order");
      r.append_hex(words[3], buffer);
    } else if (key == "mapping") {
      if (words.size() < 5) r.fail("mapping takes START END PERMS OFFSET [PATH]");
      Mapping m;
      m.start = r.number(words[1], 16);
      m.end = r.number(words[2], 16);
      m.perms = std::string(words[3]);
      m.offset = r.number(words[4], 16);
      if (words.size() > 5) m.path = std::string(words[5]);
      capture.mappings.push_back(std::move(m));
    } else if (key == "window") {
      if (words.size() < 3) r.fail("window takes ADDRESS SIZE PATH [new]");
      const std::uint64_t address = r.number(words[1], 16);
      capture.after.regions.push_back(Region{address, {}});
      filling = &capture.after.regions.back().bytes;
      if (words.size() < 5 || words[4] != "new") {
        capture.before.regions.push_back(Region{address, {}});
        filling_before = &capture.before.regions.back().bytes;
      }
    } else if (key == "memory") {
      if (words.size() != 4) r.fail("memory takes ADDRESS SIZE WHAT");
      capture.read_back.push_back(ReadBack{r.number(words[1], 16), std::string(words[3]), {}});
      filling = &capture.read_back.back().bytes;
    } else if (key == "end") {
      seen_end = true;
    } else {
      r.fail("unknown record '" + std::string(key) + "'");
    }
  }
  if (!seen_header) throw LaunchError("an empty capture");
  if (!seen_end) throw LaunchError("the capture ends without 'end' (cut short?)");
  for (std::size_t i = 0; i < capture.before.regions.size(); ++i) {
    const Region& b = capture.before.regions[i];
    const Region* a = capture.after.find(b.address);
    if (!a || a->bytes.size() != b.bytes.size()) {
      throw LaunchError("the window at " + std::to_string(b.address) + " has different sizes before and after");
    }
  }
  // Each argument's bytes, cut out of the packed buffer at the offsets the
  // driver reported; a cluster the kernel requires counts when the launch
  // gave none.
  for (std::size_t i = 0; i < capture.launches.size(); ++i) {
    LaunchRecord& l = capture.launches[i];
    const auto& buffer = packed[i];
    for (const auto& [offset, size] : capture.param_info[l.kernel]) {
      if (offset + size > buffer.size()) throw LaunchError("launch " + std::to_string(i) + ": a parameter lies past its buffer");
      l.values.emplace_back(buffer.begin() + offset, buffer.begin() + offset + size);
    }
    const auto& attributes = capture.attributes[l.kernel];
    auto required = [&](const char* k) -> std::uint32_t {
      auto it = attributes.find(k);
      return it == attributes.end() ? 0u : static_cast<std::uint32_t>(it->second);
    };
    if (l.cluster == Dim3{0, 0, 0} && required("cluster_x") != 0) {
      l.cluster = {required("cluster_x"), required("cluster_y"), required("cluster_z")};
    }
  }
  return capture;
}

}  // namespace launchlab::real_launch
