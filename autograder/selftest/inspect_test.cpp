// The inspect tools, built from the solutions, on committed files: every
// printed format of every tool (cubin, fatbin, sass, qmd, pushbuf; text and
// JSON) compared byte for byte with what it must print (inspect/README.md
// says where each expected file comes from), every .nv.info record's bytes
// compared with the file's (and with xxd's, where xxd is installed), and the
// JSON compared with what cuobjdump said of the same files.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "launchlab/grader/process.h"

namespace fs = std::filesystem;
using namespace launchlab::grader;
using nlohmann::json;

namespace {

const fs::path kLabs = fs::path(LAUNCHLAB_SOURCE_DIR) / "labs";
const fs::path kInspect = fs::path(LAUNCHLAB_SELFTEST_DIR) / "inspect";
const fs::path kSassFixtures = kLabs / "02_reading_sass" / "fixtures";
const fs::path kContainerFixtures = kLabs / "03_binary_containers" / "fixtures";
const fs::path kChannelFixtures = kLabs / "06_channels" / "fixtures";
const fs::path kQmdFixtures = kLabs / "07_qmd" / "fixtures";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// "launchlab inspect ARGS...", for messages.
std::string command_line(const std::vector<std::string>& args) {
  std::string command = "launchlab inspect";
  for (const auto& a : args) command += " " + a;
  return command;
}

// What `launchlab inspect ARGS...` prints, run in `dir` (so that it prints
// the bare file names of its arguments).
std::string inspect(const fs::path& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {LAUNCHLAB_INSPECT};
  argv.insert(argv.end(), args.begin(), args.end());
  RunLimits limits;
  limits.timeout = std::chrono::seconds(60);
  RunOutcome outcome = run_limited(argv, dir, {}, limits);
  EXPECT_TRUE(outcome.exited_cleanly()) << command_line(args) << ": " << outcome.describe(limits) << "\n"
                                        << outcome.output;
  return outcome.output;
}

// Whether this build has the tool (a lab that is not configured has none).
bool has_tool(const std::string& name) {
  static const std::string help = inspect(fs::current_path(), {"help"});
  return help.find("\n  " + name + " ") != std::string::npos;
}

#define REQUIRE_TOOL(name) \
  if (!has_tool(name)) GTEST_SKIP() << "this build has no `inspect " name "` (its lab is not configured)"

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Expected and printed text, equal byte for byte; otherwise the first line
// where they differ, both ways.
::testing::AssertionResult same_text(const std::string& what, const std::string& expected, const std::string& printed) {
  if (expected == printed) return ::testing::AssertionSuccess();
  const auto want = lines_of(expected), got = lines_of(printed);
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  auto failure = ::testing::AssertionFailure();
  failure << what << " differs from what it must print, first at line " << i + 1 << ":\n";
  failure << "  expected: " << (i < want.size() ? "\"" + want[i] + "\"" : "(no more lines)") << "\n";
  failure << "  printed:  " << (i < got.size() ? "\"" + got[i] + "\"" : "(no more lines)") << "\n";
  if (i == want.size() && i == got.size()) failure << "  (the lines agree; the line endings differ)\n";
  return failure;
}

// `launchlab inspect ARGS...`, run in dir, prints exactly the file expected.
::testing::AssertionResult prints(const fs::path& dir, const std::vector<std::string>& args, const fs::path& expected) {
  return same_text(command_line(args), read_text(expected), inspect(dir, args));
}

// --- .nv.info records, byte for byte ------------------------------------------

std::string hex_groups(const std::vector<std::uint8_t>& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i && i % 4 == 0) out += ' ';
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 0xf];
  }
  return out;
}

bool is_hex_group(const std::string& token) {
  return !token.empty() && token.size() <= 8 && token.size() % 2 == 0 &&
         token.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// One line of a record as `inspect cubin` prints it: the file offset of its
// first byte and its bytes, in groups of four, in file order.
struct RecordLine {
  std::uint64_t offset = 0;
  std::string groups;  ///< "041c1800 40000000 ..."
  std::size_t length = 0;
  bool starts_record = false;  ///< the line names an attribute
};

// The section header lines ("  .nv.info.NAME at 0x57c, 120 bytes:") and the
// record lines under each.
struct PrintedSection {
  std::string name;
  std::uint64_t offset = 0, size = 0;
  std::vector<RecordLine> lines;
};

std::vector<PrintedSection> printed_sections(const std::string& text) {
  static const std::regex section(R"(^  (\.nv\.info\S*) at 0x([0-9a-f]+), ([0-9]+) bytes:$)");
  static const std::regex record(R"(^    0x([0-9a-f]+) +(.*)$)");
  std::vector<PrintedSection> sections;
  bool in_section = false;  // the lines since the last section header are its records
  std::smatch m;
  for (const auto& line : lines_of(text)) {
    if (std::regex_match(line, m, section)) {
      sections.push_back({m[1], std::stoull(m[2], nullptr, 16), std::stoull(m[3]), {}});
      in_section = true;
    } else if (in_section && std::regex_match(line, m, record)) {
      std::vector<std::string> tokens;
      std::istringstream words(m[2].str());
      for (std::string w; words >> w;) tokens.push_back(w);
      std::size_t first = tokens.size();
      while (first > 0 && is_hex_group(tokens[first - 1])) --first;
      RecordLine r;
      r.offset = std::stoull(m[1], nullptr, 16);
      r.starts_record = first > 0;
      for (std::size_t i = first; i < tokens.size(); ++i) {
        r.groups += (i > first ? " " : "") + tokens[i];
        r.length += tokens[i].size() / 2;
      }
      sections.back().lines.push_back(r);
    } else {
      in_section = false;
    }
  }
  return sections;
}

// The hex groups xxd prints for LENGTH bytes at OFFSET of FILE (`xxd -s
// OFFSET -l LENGTH -g 4`), its lines joined by spaces; nothing without xxd.
std::optional<std::string> xxd_groups(const fs::path& file, std::uint64_t offset, std::size_t length) {
  static const bool have_xxd = std::system("command -v xxd >/dev/null 2>&1") == 0;
  if (!have_xxd) return std::nullopt;
  RunLimits limits;
  limits.timeout = std::chrono::seconds(10);
  RunOutcome out = run_limited({"/bin/sh", "-c", "exec xxd -s \"$0\" -l \"$1\" -g 4 \"$2\"", std::to_string(offset),
                                std::to_string(length), file.string()},
                               {}, {}, limits);
  EXPECT_TRUE(out.exited_cleanly()) << out.output;
  std::string joined;
  for (const auto& line : lines_of(out.output)) {
    // "00000534: 042f0800 08000000 0c000000 04110800  ./.............."
    std::size_t colon = line.find(": ");
    if (colon == std::string::npos) continue;
    std::string hex = line.substr(colon + 2, line.find("  ", colon + 2) - colon - 2);
    joined += (joined.empty() ? "" : " ") + hex;
  }
  return joined;
}

void expect_records_are_the_files_bytes(const fs::path& dir, const std::string& name) {
  SCOPED_TRACE("launchlab inspect cubin " + name);
  const fs::path file = dir / name;
  const std::string bytes = read_text(file);
  const auto sections = printed_sections(inspect(dir, {"cubin", name}));
  ASSERT_FALSE(sections.empty()) << "no .nv.info section printed";
  for (const auto& s : sections) {
    SCOPED_TRACE(s.name);
    ASSERT_FALSE(s.lines.empty()) << "no records printed";
    ASSERT_LE(s.offset + s.size, bytes.size()) << "the section lies outside the file";
    // The records tile the section: each starts where the last one ended.
    std::uint64_t at = s.offset;
    for (const auto& line : s.lines) {
      std::ostringstream where;
      where << "the line for offset 0x" << std::hex << line.offset;
      EXPECT_EQ(line.offset, at) << where.str() << " should be at 0x" << std::hex << at;
      ASSERT_LE(line.offset + line.length, bytes.size()) << where.str();
      EXPECT_TRUE(line.starts_record || line.length > 0) << where.str() << " has no bytes";
      std::vector<std::uint8_t> in_file(bytes.begin() + static_cast<std::ptrdiff_t>(line.offset),
                                        bytes.begin() + static_cast<std::ptrdiff_t>(line.offset + line.length));
      EXPECT_EQ(line.groups, hex_groups(in_file)) << where.str() << ": the file's bytes there";
      if (auto xxd = xxd_groups(file, line.offset, line.length)) {
        EXPECT_EQ(line.groups, *xxd) << where.str() << ": xxd -s " << line.offset << " -l " << line.length << " -g 4";
      }
      EXPECT_LE(line.length, 16u) << where.str() << ": xxd prints sixteen bytes a line";
      at = line.offset + line.length;
    }
    EXPECT_EQ(at, s.offset + s.size) << "the records end where the section ends";
  }
}

}  // namespace

// --- inspect cubin ------------------------------------------------------------

TEST(InspectCubin, TextIsExpected) {
  REQUIRE_TOOL("cubin");
  EXPECT_TRUE(prints(kSassFixtures, {"cubin", "vadd.sm_90.cubin"}, kInspect / "expected/cubin.vadd.sm_90.txt"));
}

TEST(InspectCubin, EveryRecordPrintsItsBytesAsXxdDoes) {
  REQUIRE_TOOL("cubin");
  // Every committed cubin, six architectures; and one whose record of exit
  // offsets takes two lines.
  int cubins = 0;
  for (const auto& entry : fs::directory_iterator(kSassFixtures)) {
    if (entry.path().extension() != ".cubin") continue;
    expect_records_are_the_files_bytes(kSassFixtures, entry.path().filename().string());
    ++cubins;
  }
  EXPECT_GE(cubins, 10);
  expect_records_are_the_files_bytes(kInspect, "exits.sm_90.cubin");
  const auto exits = printed_sections(inspect(kInspect, {"cubin", "exits.sm_90.cubin"}));
  std::size_t continued = 0;
  for (const auto& s : exits)
    for (const auto& line : s.lines) continued += line.starts_record ? 0 : 1;
  EXPECT_GE(continued, 1u) << "exits.sm_90.cubin's EIATTR_EXIT_INSTR_OFFSETS should take a second line";
}

TEST(InspectCubin, JsonIsExpected) {
  REQUIRE_TOOL("cubin");
  EXPECT_TRUE(
      prints(kSassFixtures, {"cubin", "vadd.sm_90.cubin", "--json"}, kInspect / "expected/cubin.vadd.sm_90.json"));
}

TEST(InspectCubin, JsonAgreesWithCuobjdumpOnVaddForHopper) {
  REQUIRE_TOOL("cubin");
  json cubin = json::parse(inspect(kSassFixtures, {"cubin", "vadd.sm_90.cubin", "--json"}));
  EXPECT_EQ(cubin.at("arch").get<int>(), 90);
  const auto& kernels = cubin.at("kernels");
  ASSERT_EQ(kernels.size(), 1u);
  const json& vadd = kernels[0];
  EXPECT_EQ(vadd.at("name").get<std::string>(), "_Z4vaddPKfS0_Pfi");
  // cuobjdump -res-usage: "REG:12 ... CONSTANT[0]:556".
  std::smatch registers;
  const std::string usage = read_text(kContainerFixtures / "vadd.sm_90.cubin.res-usage.txt");
  ASSERT_TRUE(std::regex_search(usage, registers, std::regex("REG:([0-9]+)")));
  EXPECT_EQ(vadd.at("registers").get<int>(), std::stoi(registers[1]));
  // sm_90 puts the parameters at c[0x0][0x210]; a, b, c are pointers, n an int.
  EXPECT_EQ(vadd.at("param_base").get<int>(), 0x210);
  EXPECT_EQ(vadd.at("param_size").get<int>(), 28);
  const auto& params = vadd.at("params");
  ASSERT_EQ(params.size(), 4u);
  const int offsets[] = {0, 8, 16, 24}, sizes[] = {8, 8, 8, 4};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(params[i].at("ordinal").get<int>(), static_cast<int>(i));
    EXPECT_EQ(params[i].at("offset").get<int>(), offsets[i]) << "parameter " << i;
    EXPECT_EQ(params[i].at("size").get<int>(), sizes[i]) << "parameter " << i;
  }
}

// --- large parameter lists ------------------------------------------------------

const fs::path kLargeParams = kContainerFixtures / "large_params";
const int kLargeParamArchs[] = {80, 86, 89, 90, 100, 120};

// One kernel as `cuobjdump -elf` prints it: EIATTR_PARAM_CBANK's base and
// size, and each EIATTR_KPARAM_INFO or EIATTR_KPARAM_INFO_V2 as "ordinal
// offset size", in ordinal order; as the same fields of inspect's JSON.
struct ParamLayout {
  std::int64_t base = -1, size = -1;
  std::map<std::int64_t, std::string> params;  ///< ordinal -> "ordinal offset size"
  bool operator==(const ParamLayout&) const = default;
};

std::string layout_text(const ParamLayout& k) {
  std::string text = "base " + std::to_string(k.base) + ", size " + std::to_string(k.size) + ", params {";
  for (const auto& [ordinal, param] : k.params) text += " (" + param + ")";
  return text + " }";
}

std::map<std::string, ParamLayout> cuobjdump_layouts(const std::string& listing) {
  static const std::regex section(R"(^\.nv\.info\.(\S+)$)");
  static const std::regex cbank(R"(^\s*Value:\s*0x[0-9a-f]+ 0x([0-9a-f]+)\s*$)");
  static const std::regex param(R"(Ordinal : 0x([0-9a-f]+)\s+Offset  : 0x([0-9a-f]+)\s+Size    : 0x([0-9a-f]+))");
  std::map<std::string, ParamLayout> kernels;
  ParamLayout* kernel = nullptr;
  std::string attribute;  // the last "Attribute:" line's name
  std::smatch m;
  for (const auto& line : lines_of(listing)) {
    if (std::regex_match(line, m, section)) {
      kernel = &kernels[m[1]];
    } else if (line.empty() || (line[0] != '\t' && line[0] != ' ')) {
      kernel = nullptr;  // another section
    } else if (!kernel) {
      continue;
    } else if (auto at = line.find("Attribute:\t"); at != std::string::npos) {
      attribute = line.substr(at + 11);
    } else if (attribute == "EIATTR_PARAM_CBANK" && std::regex_match(line, m, cbank)) {
      const auto packed = std::stoll(m[1], nullptr, 16);
      kernel->base = packed & 0xffff;
      kernel->size = packed >> 16;
    } else if (attribute.rfind("EIATTR_KPARAM_INFO", 0) == 0 && std::regex_search(line, m, param)) {
      const auto ordinal = std::stoll(m[1], nullptr, 16);
      kernel->params[ordinal] = std::to_string(ordinal) + " " + std::to_string(std::stoll(m[2], nullptr, 16)) + " " +
                                std::to_string(std::stoll(m[3], nullptr, 16));
    }
  }
  return kernels;
}

std::map<std::string, ParamLayout> inspect_layouts(const json& cubin) {
  std::map<std::string, ParamLayout> kernels;
  for (const auto& k : cubin.at("kernels")) {
    ParamLayout& layout = kernels[k.at("name").get<std::string>()];
    layout.base = k.at("param_base").get<long long>();
    layout.size = k.at("param_size").get<long long>();
    for (const auto& p : k.at("params")) {
      const auto ordinal = p.at("ordinal").get<long long>();
      layout.params[ordinal] = std::to_string(ordinal) + " " + std::to_string(p.at("offset").get<long long>()) + " " +
                               std::to_string(p.at("size").get<long long>());
    }
  }
  return kernels;
}

// Every kernel of every large-parameter cubin that cuobjdump listed on a
// GPU host: the same base, size and parameters in `inspect cubin --json`.
TEST(InspectCubin, LargeParameterListsAgreeWithCuobjdumpElf) {
  REQUIRE_TOOL("cubin");
  int kernels = 0;
  for (int arch : kLargeParamArchs) {
    const fs::path dir = kLargeParams / ("sm_" + std::to_string(arch));
    for (const char* stem : {"params_4352", "params_4356", "mixed"}) {
      const std::string cubin = std::string(stem) + ".cubin";
      SCOPED_TRACE("sm_" + std::to_string(arch) + "/" + cubin);
      const auto truth = cuobjdump_layouts(read_text(dir / (cubin + ".cuobjdump-elf.txt")));
      const auto printed = inspect_layouts(json::parse(inspect(dir, {"cubin", cubin, "--json"})));
      ASSERT_FALSE(truth.empty()) << "no kernel in cuobjdump's listing";
      EXPECT_EQ(printed.size(), truth.size()) << "how many kernels";
      for (const auto& [name, layout] : truth) {
        auto it = printed.find(name);
        ASSERT_NE(it, printed.end()) << name << " is not among inspect's kernels";
        EXPECT_EQ(layout_text(it->second), layout_text(layout)) << name << ": inspect cubin, then cuobjdump -elf";
        ++kernels;
      }
    }
  }
  EXPECT_EQ(kernels, 6 * (1 + 1 + 6)) << "every kernel of the fixtures: big twice and the six mixed ones, six times";
}

TEST(InspectCubin, TextOfALargeListIsExpected) {
  REQUIRE_TOOL("cubin");
  EXPECT_TRUE(prints(kLargeParams / "sm_80", {"cubin", "params_4356.cubin"}, kInspect / "expected/cubin.params_4356.sm_80.txt"));
}

// --- inspect fatbin -----------------------------------------------------------

TEST(InspectFatbin, TextIsExpected) {
  REQUIRE_TOOL("fatbin");
  EXPECT_TRUE(prints(kContainerFixtures, {"fatbin", "vadd_exe"}, kInspect / "expected/fatbin.vadd_exe.txt"));
}

TEST(InspectFatbin, JsonIsExpected) {
  REQUIRE_TOOL("fatbin");
  EXPECT_TRUE(prints(kContainerFixtures, {"fatbin", "vadd_exe", "--json"}, kInspect / "expected/fatbin.vadd_exe.json"));
}

TEST(InspectFatbin, JsonListsCuobjdumpsEntriesInItsOrder) {
  REQUIRE_TOOL("fatbin");
  for (const char* name : {"vadd.fatbin", "vadd_exe"}) {
    SCOPED_TRACE(name);
    json fatbin = json::parse(inspect(kContainerFixtures, {"fatbin", name, "--json"}));
    // cuobjdump --list-elf --list-ptx: "ELF file    1: vadd.1.sm_80.cubin", "PTX file    1: vadd.1.sm_90.ptx".
    std::vector<std::pair<std::string, int>> listed;
    std::smatch match;
    for (const auto& line : lines_of(read_text(kContainerFixtures / (std::string(name) + ".list.txt")))) {
      if (std::regex_search(line, match, std::regex("^(ELF|PTX) file +[0-9]+: .*\\.sm_([0-9]+)[a-z]?\\.(cubin|ptx)$"))) {
        listed.emplace_back(match[1] == "ELF" ? "elf" : "ptx", std::stoi(match[2]));
      }
    }
    ASSERT_FALSE(listed.empty());
    const auto& entries = fatbin.at("entries");
    ASSERT_EQ(entries.size(), listed.size());
    for (std::size_t i = 0; i < listed.size(); ++i) {
      EXPECT_EQ(entries[i].at("kind").get<std::string>(), listed[i].first) << "entry " << i;
      EXPECT_EQ(entries[i].at("arch").get<int>(), listed[i].second) << "entry " << i;
      EXPECT_GT(entries[i].at("payload_size").get<int>(), 0) << "entry " << i;
    }
  }
}

// --- inspect sass -------------------------------------------------------------

TEST(InspectSass, TextOfACuobjdumpListingIsExpected) {
  REQUIRE_TOOL("sass");
  EXPECT_TRUE(prints(kSassFixtures, {"sass", "vadd.sm_90.cubin.cuobjdump-sass.txt"},
                     kInspect / "expected/sass.vadd.sm_90.cuobjdump-sass.txt"));
}

TEST(InspectSass, TextOfAnNvdisasmListingIsExpected) {
  REQUIRE_TOOL("sass");
  EXPECT_TRUE(prints(kSassFixtures, {"sass", "vadd.sm_90.cubin.nvdisasm.txt"},
                     kInspect / "expected/sass.vadd.sm_90.nvdisasm.txt"));
}

// The bytes read in each function's parameters, as `inspect sass` prints
// them ("    +32744 MOV at 0x10"), by function name, and the line that says
// where the parameters are.
struct PrintedReads {
  std::string buffer_line;
  std::set<long> offsets;
};

std::map<std::string, PrintedReads> printed_reads(const std::string& text) {
  static const std::regex function(R"(^(\S+) \(sm_[0-9]+\): [0-9]+ instructions$)");
  static const std::regex read(R"(^    \+([0-9]+) +\S+ at 0x[0-9a-f]+$)");
  std::map<std::string, PrintedReads> functions;
  PrintedReads* current = nullptr;
  std::smatch m;
  for (const auto& line : lines_of(text)) {
    if (std::regex_match(line, m, function)) {
      current = &functions[m[1]];
    } else if (current && line.rfind("  parameter buffer at ", 0) == 0) {
      current->buffer_line = line;
    } else if (current && std::regex_match(line, m, read)) {
      current->offsets.insert(std::stol(m[1]));
    }
  }
  return functions;
}

std::string offsets_text(const std::set<long>& offsets) {
  std::string text;
  for (long o : offsets) text += (text.empty() ? "+" : ", +") + std::to_string(o);
  return text.empty() ? "none" : text;
}

// read_at_the_end reads bytes 32,744 to 32,751 and 32,760 of its list,
// past bank offset 0x8000 everywhere (printed negative), at 0x1a80 + X on
// sm_80 to sm_89: nvdisasm's listing carries the kernel's
// EIATTR_PARAM_CBANK, and `inspect sass` finds the reads on every
// architecture (sm_80 to sm_89 read +32748 on its own; sm_90 and later
// load +32744 and +32748 with one LDC.64).
TEST(InspectSass, LargeListReadsOnEveryArchitecture) {
  REQUIRE_TOOL("sass");
  for (int arch : kLargeParamArchs) {
    const fs::path dir = kLargeParams / ("sm_" + std::to_string(arch));
    SCOPED_TRACE("sm_" + std::to_string(arch));
    const auto functions = printed_reads(inspect(dir, {"sass", "mixed.cubin.nvdisasm.txt"}));
    ASSERT_TRUE(functions.count("read_at_the_end")) << "no read_at_the_end in inspect's output";
    const PrintedReads& reads = functions.at("read_at_the_end");
    const std::string base = arch < 90 ? "0x1a80" : arch == 90 ? "0x210" : "0x380";
    EXPECT_EQ(reads.buffer_line, "  parameter buffer at c[0x0][" + base + "] (EIATTR_PARAM_CBANK); bytes read:");
    const std::set<long> expected =
        arch < 90 ? std::set<long>{32744, 32748, 32760} : std::set<long>{32744, 32760};
    EXPECT_EQ(offsets_text(reads.offsets), offsets_text(expected));
  }
  // cuobjdump -sass prints no .nv.info: sm_80's usual base misses them all,
  // and --param-base gives the kernel's own.
  const fs::path sm_80 = kLargeParams / "sm_80";
  auto usual = printed_reads(inspect(sm_80, {"sass", "mixed.cubin.cuobjdump-sass.txt"}))["read_at_the_end"];
  EXPECT_EQ(usual.buffer_line,
            "  parameter buffer at c[0x0][0x160] (sm_80's usual base, for up to 4,352 bytes); bytes read: none");
  // A base past the bank is refused before anything is printed.
  RunLimits limits;
  limits.timeout = std::chrono::seconds(60);
  RunOutcome past = run_limited({LAUNCHLAB_INSPECT, "sass", "mixed.cubin.cuobjdump-sass.txt", "--param-base", "0x10000"},
                                sm_80, {}, limits);
  EXPECT_NE(past.exit_code, 0) << past.output;
  EXPECT_EQ(past.output, "launchlab inspect sass: --param-base 0x10000 lies past constant bank 0's 64 KiB\n");
  auto given = printed_reads(inspect(sm_80, {"sass", "mixed.cubin.cuobjdump-sass.txt", "--param-base", "0x1a80"}));
  EXPECT_EQ(given["read_at_the_end"].buffer_line, "  parameter buffer at c[0x0][0x1a80] (--param-base); bytes read:");
  EXPECT_EQ(offsets_text(given["read_at_the_end"].offsets), offsets_text({32744, 32748, 32760}));
}

// reads_32009(Blob<32000>, double, char) reads +0, +32000 and +32008: on
// sm_80 to sm_89 at base 0x1a80, printed negative everywhere but on sm_90.
// Its listings are made on a GPU host (fixtures/large_params/README.md).
TEST(InspectSass, Reads32009OnEveryArchitecture) {
  REQUIRE_TOOL("sass");
  int listed = 0;
  for (int arch : kLargeParamArchs) {
    const fs::path dir = kLargeParams / ("sm_" + std::to_string(arch));
    for (const char* listing : {"reads_32009.cubin.nvdisasm.txt", "reads_32009.cubin.cuobjdump-sass.txt"}) {
      if (!fs::exists(dir / listing)) continue;
      ++listed;
      SCOPED_TRACE("sm_" + std::to_string(arch) + "/" + listing);
      const std::string base = arch < 90 ? "0x1a80" : arch == 90 ? "0x210" : "0x380";
      // A cuobjdump listing does not say where the parameters are.
      std::vector<std::string> args = {"sass", listing};
      if (std::string(listing).find("cuobjdump") != std::string::npos) args.insert(args.end(), {"--param-base", base});
      const auto reads = printed_reads(inspect(dir, args))["reads_32009"];
      for (long offset : {0L, 32000L, 32008L})
        EXPECT_EQ(reads.offsets.count(offset), 1u) << "+" << offset << " among " << offsets_text(reads.offsets);
    }
  }
  if (listed == 0)
    GTEST_SKIP() << "no listing of fixtures/large_params/sm_NN/reads_32009.cubin is committed yet (made on a GPU host: "
                    "fixtures/large_params/README.md)";
}

// --- inspect qmd ----------------------------------------------------------------

TEST(InspectQmd, TextOfEachVersionIsExpected) {
  REQUIRE_TOOL("qmd");
  for (const auto& [name, version] : std::vector<std::pair<std::string, std::string>>{
           {"vadd_v03", "3"}, {"vadd_v04", "4"}, {"vadd_v05", "5"}, {"stencil_v05", "5"}}) {
    const std::string file = name + ".qmd";
    EXPECT_TRUE(
        prints(kQmdFixtures, {"qmd", file, "--qmd-version", version}, kInspect / ("expected/qmd." + name + ".txt")));
  }
}

TEST(InspectQmd, JsonIsWhatTheFixtureScriptWrote) {
  REQUIRE_TOOL("qmd");
  EXPECT_TRUE(
      prints(kQmdFixtures, {"qmd", "vadd_v04.qmd", "--qmd-version", "4", "--json"}, kQmdFixtures / "vadd_v04.json"));
}

// --- inspect pushbuf --------------------------------------------------------------

TEST(InspectPushbuf, TextIsWhatTheFixtureScriptWrote) {
  REQUIRE_TOOL("pushbuf");
  EXPECT_TRUE(
      prints(kChannelFixtures, {"pushbuf", "launch_pcas_v03.pushbuf"}, kChannelFixtures / "launch_pcas_v03.txt"));
}

TEST(InspectPushbuf, JsonIsWhatTheFixtureScriptWrote) {
  REQUIRE_TOOL("pushbuf");
  for (const char* name : {"launch_pcas_v03", "launch_inline_v04"}) {
    const std::string file = std::string(name) + ".pushbuf";
    EXPECT_TRUE(
        prints(kChannelFixtures, {"pushbuf", file, "--json"}, kChannelFixtures / (std::string(name) + ".json")));
  }
}

// The tools read their arguments as the launchlab program does: a missing
// file, an unknown option or a bad value is named, with status 2.
TEST(InspectArguments, AreCheckedBeforeAToolRuns) {
  struct Case {
    std::vector<std::string> args;
    std::string said;
  };
  const std::string cubin = (kSassFixtures / "vadd.sm_90.cubin").string();
  for (const Case& c : {
           Case{{"cubin"}, "launchlab inspect cubin: FILE is required"},
           Case{{"cubin", cubin, "--jsno"}, "launchlab inspect cubin: unknown option '--jsno' (did you mean '--json'?)"},
           Case{{"fatbin", "/nowhere/at/all"}, "launchlab inspect fatbin: FILE: File does not exist: /nowhere/at/all"},
           Case{{"qmd", cubin}, "launchlab inspect qmd: --qmd-version is required"},
           Case{{"qmd", cubin, "--qmd-version", "9"}, "launchlab inspect qmd: --qmd-version: 9 not in {3,4,5}"},
           Case{{"cubn", cubin}, "launchlab inspect: unknown command 'cubn' (did you mean 'cubin'?)"},
           Case{{"sass", cubin, "--param-base", "0x1g"},
                "launchlab inspect sass: --param-base: '0x1g' is not an unsigned 64-bit number"},
       }) {
    std::vector<std::string> argv = {LAUNCHLAB_INSPECT};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    RunLimits limits;
    limits.timeout = std::chrono::seconds(60);
    RunOutcome outcome = run_limited(argv, {}, {}, limits);
    EXPECT_EQ(outcome.exit_code, 2) << outcome.output;
    EXPECT_NE(outcome.output.find(c.said), std::string::npos) << "expected \"" << c.said << "\" in:\n" << outcome.output;
  }
}

TEST(InspectArguments, HelpListsTheToolsAndEachToolHasItsOwn) {
  RunLimits limits;
  limits.timeout = std::chrono::seconds(60);
  RunOutcome list = run_limited({LAUNCHLAB_INSPECT, "help"}, {}, {}, limits);
  EXPECT_EQ(list.exit_code, 0) << list.output;
  for (const char* tool : {"cubin", "fatbin", "sass", "qmd", "pushbuf"}) {
    EXPECT_NE(list.output.find(tool), std::string::npos) << tool << " is not in:\n" << list.output;
    RunOutcome help = run_limited({LAUNCHLAB_INSPECT, tool, "--help"}, {}, {}, limits);
    EXPECT_EQ(help.exit_code, 0) << help.output;
    EXPECT_NE(help.output.find(std::string("Usage: launchlab inspect ") + tool), std::string::npos) << help.output;
  }
}
