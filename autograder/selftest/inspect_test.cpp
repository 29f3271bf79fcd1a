// `launchlab inspect cubin|fatbin --json`, built from the solutions, against
// what cuobjdump said of the same committed files (its listings sit beside
// them, with the commands that made them).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "launchlab/grader/process.h"
#include "launchlab/grader/value.h"

namespace fs = std::filesystem;
using namespace launchlab::grader;

namespace {

const fs::path kTests = fs::path(LAUNCHLAB_SOURCE_DIR) / "autograder" / "tests";

Value inspect_json(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {LAUNCHLAB_INSPECT};
  argv.insert(argv.end(), args.begin(), args.end());
  RunLimits limits;
  limits.timeout = std::chrono::seconds(60);
  RunOutcome outcome = run_limited(argv, {}, {}, limits);
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  return parse_json(outcome.output);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(InspectCubin, JsonAgreesWithCuobjdumpOnVaddForHopper) {
  Value cubin = inspect_json({"cubin", (kTests / "02_reading_sass/fixtures/vadd.sm_90.cubin").string(), "--json"});
  EXPECT_EQ(cubin.find("arch")->as_int(), 90);
  const auto& kernels = cubin.find("kernels")->as_array();
  ASSERT_EQ(kernels.size(), 1u);
  const Value& vadd = kernels[0];
  EXPECT_EQ(vadd.find("name")->as_string(), "_Z4vaddPKfS0_Pfi");
  // cuobjdump -res-usage: "REG:12 ... CONSTANT[0]:556".
  std::smatch registers;
  const std::string usage = read_text(kTests / "03_binary_containers/fixtures/vadd.sm_90.cubin.res-usage.txt");
  ASSERT_TRUE(std::regex_search(usage, registers, std::regex("REG:([0-9]+)")));
  EXPECT_EQ(vadd.find("registers")->as_int(), std::stoi(registers[1]));
  // sm_90 puts the parameters at c[0x0][0x210]; a, b, c are pointers, n an int.
  EXPECT_EQ(vadd.find("param_base")->as_int(), 0x210);
  EXPECT_EQ(vadd.find("param_size")->as_int(), 28);
  const auto& params = vadd.find("params")->as_array();
  ASSERT_EQ(params.size(), 4u);
  const int offsets[] = {0, 8, 16, 24}, sizes[] = {8, 8, 8, 4};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(params[i].find("ordinal")->as_int(), static_cast<int>(i));
    EXPECT_EQ(params[i].find("offset")->as_int(), offsets[i]) << "parameter " << i;
    EXPECT_EQ(params[i].find("size")->as_int(), sizes[i]) << "parameter " << i;
  }
}

TEST(InspectFatbin, JsonListsCuobjdumpsEntriesInItsOrder) {
  Value fatbin = inspect_json({"fatbin", (kTests / "03_binary_containers/fixtures/vadd.fatbin").string(), "--json"});
  // cuobjdump --list-elf --list-ptx: "ELF file    1: vadd.1.sm_80.cubin", "PTX file    1: vadd.1.sm_90.ptx".
  std::vector<std::pair<std::string, int>> listed;
  std::istringstream lines(read_text(kTests / "03_binary_containers/fixtures/vadd.fatbin.list.txt"));
  std::string line;
  std::smatch match;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, match, std::regex("^(ELF|PTX) file +[0-9]+: .*\\.sm_([0-9]+)[a-z]?\\.(cubin|ptx)$"))) {
      listed.emplace_back(match[1] == "ELF" ? "elf" : "ptx", std::stoi(match[2]));
    }
  }
  ASSERT_FALSE(listed.empty());
  const auto& entries = fatbin.find("entries")->as_array();
  ASSERT_EQ(entries.size(), listed.size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(entries[i].find("kind")->as_string(), listed[i].first) << "entry " << i;
    EXPECT_EQ(entries[i].find("arch")->as_int(), listed[i].second) << "entry " << i;
    EXPECT_GT(entries[i].find("payload_size")->as_int(), 0) << "entry " << i;
  }
}
