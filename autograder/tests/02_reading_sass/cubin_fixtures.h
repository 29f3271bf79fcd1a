// The cubins committed in 02_reading_sass/fixtures, which the tests of
// 02_reading_sass and 03_binary_containers both read, and what `cuobjdump
// -elf` (committed in 03_binary_containers/fixtures) says about them. One
// list for both labs: every *.cubin of the fixtures folder, as gpu_steps.sh
// lists them too. Likewise chapter 03's large-parameter cubins
// (03_binary_containers/fixtures/large_params/sm_NN/), with their listings.
//
// Everything here is inline, so a test program holds only what it uses:
// 02's tests give the parameter layouts cuobjdump reports to the learner's
// param_reads() as inputs, while for 03's tests what cuobjdump says is the
// truth, used only in the expected half of records, which the learner's
// program leaves out (launchlab/record.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "launchlab/testing.h"

namespace launchlab::cubin_fixtures {

/// The architecture in a stem: "zoo.sm_100" gives 100.
inline int stem_arch(const std::string& stem) { return std::stoi(stem.substr(stem.find("sm_") + 3)); }

/// The committed cubins, without ".cubin", by kernel and then architecture:
/// "vadd.sm_80", "vadd.sm_86", ..., "zoo.sm_120".
inline std::vector<std::string> cubin_stems() {
  std::vector<std::string> stems;
  for (const auto& entry : std::filesystem::directory_iterator(launchlab::testing::lab_material("02_reading_sass/fixtures"))) {
    if (entry.path().extension() == ".cubin") stems.push_back(entry.path().stem().string());
  }
  auto key = [](const std::string& stem) { return std::make_pair(stem.substr(0, stem.find('.')), stem_arch(stem)); };
  std::sort(stems.begin(), stems.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  return stems;
}

/// A committed cubin: 02_reading_sass/fixtures/<stem>.cubin.
inline std::filesystem::path cubin_path(const std::string& stem) {
  return launchlab::testing::lab_material("02_reading_sass/fixtures/" + stem + ".cubin");
}

namespace detail {
inline std::uint64_t parse_hex(const std::string& s) { return std::stoull(s, nullptr, 16); }
inline std::uint64_t number(const std::string& s) {
  return s.rfind("0x", 0) == 0 ? std::stoull(s.substr(2), nullptr, 16) : std::stoull(s);
}
}  // namespace detail

/// One `Attribute:` block of `cuobjdump -elf` inside a .nv.info section.
struct CuobjdumpAttribute {
  std::string name;    ///< "EIATTR_REGCOUNT"
  std::string format;  ///< "EIFMT_SVAL"
  std::string value;   ///< the text after "Value:" and any lines that continue it, blanks collapsed
};

/// Section name (".nv.info", ".nv.info._Z4vaddPKfS0_Pfi") -> its attributes, in order.
inline std::map<std::string, std::vector<CuobjdumpAttribute>> cuobjdump_nv_info(std::string_view cuobjdump_elf) {
  namespace lt = launchlab::testing;
  static const std::regex section_re(R"(^\s*(?:\.section\s+)?(\.[A-Za-z_][\w.$]*)\s*$)");
  static const std::regex attribute_re(R"(^\s*Attribute:\s*(\w+)\s*$)");
  static const std::regex format_re(R"(^\s*Format:\s*(\w+)\s*$)");
  static const std::regex value_re(R"(^\s*Value:\s*(.*)$)");
  static const std::regex number_re(R"(^\s*<0x[0-9a-f]+>\s*$)");
  std::map<std::string, std::vector<CuobjdumpAttribute>> sections;
  std::string section;
  bool in_value = false;
  for (const auto& line : lt::lines_of(cuobjdump_elf)) {
    std::smatch m;
    if (std::regex_match(line, m, section_re)) {
      section = m[1].str().rfind(".nv.info", 0) == 0 ? m[1].str() : "";
      in_value = false;
    } else if (section.empty()) {
      continue;
    } else if (std::regex_match(line, m, attribute_re)) {
      sections[section].push_back({m[1].str(), "", ""});
      in_value = false;
    } else if (sections[section].empty()) {
      continue;
    } else if (std::regex_match(line, m, format_re)) {
      sections[section].back().format = m[1].str();
    } else if (std::regex_match(line, m, value_re)) {
      sections[section].back().value = lt::collapse_spaces(m[1].str());
      in_value = true;
    } else if (std::regex_match(line, number_re) || lt::collapse_spaces(line).empty()) {
      in_value = false;
    } else if (in_value) {
      std::string more = lt::collapse_spaces(line);
      if (more.rfind(" ", 0) == 0) more.erase(0, 1);
      sections[section].back().value += " " + more;
    }
  }
  return sections;
}

/// A kernel parameter as EIATTR_KPARAM_INFO (or EIATTR_KPARAM_INFO_V2)
/// gives it.
struct CuobjdumpParam {
  std::uint32_t ordinal = 0, offset = 0, size = 0;
};

/// What cuobjdump -elf says about one kernel.
struct CuobjdumpKernel {
  std::optional<std::uint32_t> registers;   ///< EIATTR_REGCOUNT in .nv.info
  std::optional<std::uint32_t> frame_size;  ///< EIATTR_FRAME_SIZE in .nv.info
  std::uint32_t param_base = 0, param_size = 0;  ///< EIATTR_PARAM_CBANK
  std::vector<CuobjdumpParam> params;       ///< EIATTR_KPARAM_INFO or _V2, sorted by ordinal
  std::optional<std::uint32_t> max_threads;  ///< EIATTR_MAX_THREADS, x * y * z
};

/// Kernel name -> what `cuobjdump -elf` printed for it.
inline std::map<std::string, CuobjdumpKernel> cuobjdump_kernels(std::string_view cuobjdump_elf) {
  using detail::parse_hex;
  static const std::regex kparam_re(R"(Ordinal\s*:\s*0x([0-9a-f]+)\s+Offset\s*:\s*0x([0-9a-f]+)\s+Size\s*:\s*0x([0-9a-f]+))");
  static const std::regex two_hex_re(R"(^0x([0-9a-f]+) 0x([0-9a-f]+)\b.*$)");
  static const std::regex three_hex_re(R"(^0x([0-9a-f]+) 0x([0-9a-f]+) 0x([0-9a-f]+)\b.*$)");
  // .nv.info: "function: NAME(0x8) register count: 12" style lines; see fixtures.
  static const std::regex per_function_re(R"(function:\s*(\S+?)\(0x[0-9a-f]+\)\s*[^:]*:\s*(\d+|0x[0-9a-f]+))");
  std::map<std::string, CuobjdumpKernel> kernels;
  for (const auto& [section, attributes] : cuobjdump_nv_info(cuobjdump_elf)) {
    if (section == ".nv.info") {
      for (const auto& a : attributes) {
        std::smatch m;
        if (!std::regex_search(a.value, m, per_function_re)) continue;
        std::uint32_t v = static_cast<std::uint32_t>(detail::number(m[2].str()));
        if (a.name == "EIATTR_REGCOUNT") kernels[m[1].str()].registers = v;
        if (a.name == "EIATTR_FRAME_SIZE") kernels[m[1].str()].frame_size = v;
      }
      continue;
    }
    std::string name = section.substr(std::string(".nv.info.").size());
    CuobjdumpKernel& k = kernels[name];
    for (const auto& a : attributes) {
      std::smatch m;
      if (a.name == "EIATTR_PARAM_CBANK" && std::regex_match(a.value, m, two_hex_re)) {
        std::uint64_t v = parse_hex(m[2].str());
        k.param_base = static_cast<std::uint32_t>(v & 0xffff);
        k.param_size = static_cast<std::uint32_t>(v >> 16);
      } else if ((a.name == "EIATTR_KPARAM_INFO" || a.name == "EIATTR_KPARAM_INFO_V2") &&
                 std::regex_search(a.value, m, kparam_re)) {
        k.params.push_back({static_cast<std::uint32_t>(parse_hex(m[1].str())), static_cast<std::uint32_t>(parse_hex(m[2].str())),
                            static_cast<std::uint32_t>(parse_hex(m[3].str()))});
      } else if (a.name == "EIATTR_MAX_THREADS" && std::regex_match(a.value, m, three_hex_re)) {
        k.max_threads = static_cast<std::uint32_t>(parse_hex(m[1].str()) * parse_hex(m[2].str()) * parse_hex(m[3].str()));
      }
    }
    std::sort(k.params.begin(), k.params.end(), [](const auto& a, const auto& b) { return a.ordinal < b.ordinal; });
  }
  return kernels;
}

/// What `cuobjdump -elf` says about the committed cubin <stem>.
inline std::map<std::string, CuobjdumpKernel> committed_cuobjdump_kernels(const std::string& stem) {
  return cuobjdump_kernels(
      launchlab::testing::read_file(launchlab::testing::lab_material("03_binary_containers/fixtures/" + stem + ".cubin.cuobjdump-elf.txt")));
}

/// The architectures of the large-parameter fixtures
/// (03_binary_containers/fixtures/large_params/sm_NN/).
inline constexpr int kLargeParamArchs[] = {80, 86, 89, 90, 100, 120};

/// A file of the large-parameter fixtures: "large_params/sm_<arch>/<name>",
/// relative to 03_binary_containers/fixtures.
inline std::string large_param_file(int arch, const std::string& name) {
  return "large_params/sm_" + std::to_string(arch) + "/" + name;
}

/// One large-parameter cubin: its architecture and its stem ("mixed").
struct LargeParamCubin {
  int arch = 0;
  std::string stem;
  /// "large_params/sm_80/mixed.cubin", relative to 03_binary_containers/fixtures.
  std::string file() const { return large_param_file(arch, stem + ".cubin"); }
};

/// The stems whose cubins cuobjdump and nvdisasm listed on a GPU host
/// (their listings lie beside them).
inline const std::vector<std::string> kListedLargeParamStems = {"params_4352", "params_4356", "mixed"};

/// The cubins of these stems, on every architecture.
inline std::vector<LargeParamCubin> large_param_cubins(const std::vector<std::string>& stems = kListedLargeParamStems) {
  std::vector<LargeParamCubin> cubins;
  for (int arch : kLargeParamArchs) {
    for (const auto& stem : stems) cubins.push_back({arch, stem});
  }
  return cubins;
}

/// What `cuobjdump -elf` says about the large-parameter cubin <stem> of sm_<arch>.
inline std::map<std::string, CuobjdumpKernel> committed_large_param_kernels(int arch, const std::string& stem) {
  return cuobjdump_kernels(launchlab::testing::read_file(launchlab::testing::lab_material(
      "03_binary_containers/fixtures/" + large_param_file(arch, stem + ".cubin.cuobjdump-elf.txt"))));
}

}  // namespace launchlab::cubin_fixtures
