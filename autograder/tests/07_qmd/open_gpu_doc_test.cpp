// NVIDIA's own headers: with LAUNCHLAB_OPEN_GPU_DOC naming a checkout of
// NVIDIA/open-gpu-doc, the learner's reader must read every MW define of the
// headers that define V03_00, V04_00 and V05_00, and find in them the ranges
// of the course's table. Skipped, saying so, when the variable is unset.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "header_fields.h"
#include "launchlab/record.h"
#include "qmd.h"

namespace {
using namespace launchlab::qmd;
using namespace launchlab::qmd_tests;

#define LAUNCHLAB_REQUIRE_OPEN_GPU_DOC(checkout)                                                              \
  const char* checkout = std::getenv("LAUNCHLAB_OPEN_GPU_DOC");                                              \
  if (!checkout || !*checkout) {                                                                            \
    GTEST_SKIP() << "LAUNCHLAB_OPEN_GPU_DOC is not set: set it to a checkout of "                            \
                    "https://github.com/NVIDIA/open-gpu-doc to test your code on NVIDIA's headers";          \
  }

// The text of NVIDIA's header of a version ("" when it cannot be read).
std::string nvidia_header(const char* checkout, unsigned version) {
  std::ifstream in(open_gpu_doc_header(checkout, version_of(version)), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(OpenGpuDoc, ReadsEveryDefineOfNvidiasHeaders) {
  LAUNCHLAB_REQUIRE_OPEN_GPU_DOC(checkout);
  for (unsigned v : {3u, 4u, 5u}) {
    const std::string text = nvidia_header(checkout, v);
    const std::string file = open_gpu_doc_header("", version_of(v)).string();
    RECORD_SCOPE("NVIDIA's " + file + " in LAUNCHLAB_OPEN_GPU_DOC");
    RECORD_TRUE(!text.empty()) << "the header can be read";
    std::optional<std::vector<std::string>> got;
    try {
      got.emplace();
      for (const auto& define : parse_mw_defines(text)) got->push_back(describe_define(define));
    } catch (const std::exception&) {
      got.reset();
    }
    RECORD_EQ(got ? std::optional<std::size_t>(got->size()) : std::nullopt, reference_defines(text).size())
        << "how many MW defines parse_mw_defines reads (null if it threw)";
    RECORD_EQ(got, reference_defines(text)) << "its MW defines in order (null if it threw)";
  }
}

TEST(OpenGpuDoc, NvidiasHeadersGiveTheTablesLayouts) {
  LAUNCHLAB_REQUIRE_OPEN_GPU_DOC(checkout);
  for (unsigned v : {3u, 4u, 5u}) {
    const std::string file = open_gpu_doc_header("", version_of(v)).string();
    std::optional<Layout> got;
    try {
      got = layout_from_header(nvidia_header(checkout, v), version_of(v));
    } catch (const std::exception&) {
    }
    RECORD_EQ(got, table_layout(header_fields(v), v))
        << "layout_from_header(NVIDIA's " << file << ", " << version_name(v)
        << "): the ranges of the course's table (null if it threw)";
  }
}

}  // namespace
