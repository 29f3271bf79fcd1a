// Part C, the layouts: what layout_from_header reads from a header's text,
// and every range the decoder reads and the encoder writes, bit by bit,
// against the course's table (labs/07_qmd/headers/fields.csv): through the
// course's headers (decode by version), and through headers of made-up
// layouts that only a reader of the text can follow.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "header_fields.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "qmd.h"

namespace {
using namespace launchlab::qmd;
using namespace launchlab::qmd_tests;

// What layout_from_header gives, or nothing when it threw.
std::optional<Layout> layout_of(std::string_view text, unsigned version) {
  try {
    return layout_from_header(text, version_of(version));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// LAUNCHLAB_OPEN_GPU_DOC set for as long as it lives, as it was afterwards.
class OpenGpuDocVariable {
 public:
  explicit OpenGpuDocVariable(const char* value) {
    if (const char* before = std::getenv(kName)) before_ = before;
    setenv(kName, value, 1);
  }
  ~OpenGpuDocVariable() {
    if (before_) {
      setenv(kName, before_->c_str(), 1);
    } else {
      unsetenv(kName);
    }
  }
  OpenGpuDocVariable(const OpenGpuDocVariable&) = delete;
  OpenGpuDocVariable& operator=(const OpenGpuDocVariable&) = delete;

 private:
  static constexpr const char* kName = "LAUNCHLAB_OPEN_GPU_DOC";
  std::optional<std::string> before_;
};

// The codec under test: by version (the course's headers, through layout())
// or with a layout the test made the learner read from a header.
struct Codec {
  std::string name;  // how the context names the calls
  std::function<Qmd(const std::vector<std::uint32_t>&)> decode;
  std::function<std::vector<std::uint32_t>(const Qmd&)> encode;
  std::function<void(const Qmd&, std::vector<std::uint32_t>&)> encode_into;
};

Codec by_version(unsigned version) {
  const QmdVersion v = version_of(version);
  return {"decode(words, " + version_name(version) + ")",
          [v](const std::vector<std::uint32_t>& words) { return decode(words, v); },
          [](const Qmd& q) { return encode(q); },
          [](const Qmd& q, std::vector<std::uint32_t>& words) { encode_into(q, words); }};
}

Codec with_layout(const std::optional<Layout>& layout, unsigned version) {
  auto need = [layout]() -> const Layout& {
    if (!layout) throw std::runtime_error("layout_from_header threw");
    return *layout;
  };
  return {"decode(words, the layout read from that header)",
          [need](const std::vector<std::uint32_t>& words) { return decode(words, need()); },
          [need, version](const Qmd& q) {
            std::vector<std::uint32_t> words(qmd_words(version_of(version)), 0);
            encode_into(q, need(), words);
            return words;
          },
          [need](const Qmd& q, std::vector<std::uint32_t>& words) { encode_into(q, need(), words); }};
}

// What the codec decodes, or nothing when it threw.
std::optional<Qmd> decoded(const Codec& codec, const std::vector<std::uint32_t>& words) {
  try {
    return codec.decode(words);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// What the codec encodes, as its runs of set bits, or nothing when it threw.
std::optional<std::vector<std::string>> encoded(const Codec& codec, const Qmd& q, const Rows& rows) {
  try {
    return set_bit_runs(codec.encode(q), rows);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// "a V04_00 Qmd of zeros but grid = [4294967295,0,0]".
std::string qmd_text(const Qmd& q, unsigned version) {
  Qmd zero;
  zero.version = q.version;
  const nlohmann::json given = record_value(q), zeros = record_value(zero);
  std::string members;
  for (const auto& [key, value] : given.items()) {
    if (value != zeros[key]) members += (members.empty() ? "" : ", ") + key + " = " + value.dump();
  }
  return "a " + version_name(version) + " Qmd of zeros" + (members.empty() ? "" : " but " + members);
}

// With only one range's bits set (and the version), the decoder must see
// all ones in that range and zero everywhere else; with every bit set except
// that range's, it must see zero in that range (and ones in every other).
void check_decoder(const Codec& codec, const Rows& rows, unsigned version) {
  const HeaderField major = header_field(rows, "major_version");
  for (const auto& f : rows) {
    if (f.field == "major_version") continue;
    RECORD_SCOPE(describe(f));

    auto words = blank_qmd(rows, version);
    set_bits(words, f.hi, f.lo, f.all_ones());
    RECORD_EQ(decoded(codec, words), table_decode(words, rows, version))
        << codec.name << " of a " << version_name(version) << " QMD with only " << mw(f.hi, f.lo)
        << " all ones, and QMD_MAJOR_VERSION, as the header's ranges read it (null if it threw)";

    auto inverse = std::vector<std::uint32_t>(words.size(), 0xffffffffu);
    set_bits(inverse, f.hi, f.lo, 0);
    set_bits(inverse, major.hi, major.lo, version);
    RECORD_EQ(decoded(codec, inverse), table_decode(inverse, rows, version))
        << codec.name << " of a " << version_name(version) << " QMD with every bit set but " << mw(f.hi, f.lo)
        << " and QMD_MAJOR_VERSION's, as the header's ranges read it (null if it threw)";
  }
}

// A zero Qmd encodes to the version field alone; setting one part to all
// ones sets exactly that range; encode_into a QMD of all ones clears exactly
// the covered ranges.
void check_encoder(const Codec& codec, const Rows& rows, unsigned version) {
  Qmd zero;
  zero.version = version_of(version);
  RECORD_EQ(encoded(codec, zero, rows), set_bit_runs(blank_qmd(rows, version), rows))
      << "encoding " << qmd_text(zero, version)
      << ": its set bits, which must be QMD_MAJOR_VERSION's alone (null if it threw)";

  for (const auto& f : rows) {
    if (f.field == "major_version") continue;
    RECORD_SCOPE(describe(f));
    Qmd q = zero;
    set_part(q, f, f.all_ones());
    RECORD_EQ(encoded(codec, q, rows), [&] {
      auto expected = blank_qmd(rows, version);
      set_bits(expected, f.hi, f.lo, f.all_ones());
      return set_bit_runs(expected, rows);
    }()) << "encoding " << qmd_text(q, version) << ", the largest value of this field: its set bits (null if it threw)";
  }

  std::vector<std::uint32_t> words(qmd_words(version_of(version)), 0xffffffffu);
  RECORD_NO_THROW(codec.encode_into(zero, words)) << "encode_into(a Qmd of zeros, a QMD of all ones)";
  RECORD_EQ(set_bit_runs(words, rows), [&] {
    std::vector<std::uint32_t> expected(words.size(), 0xffffffffu);
    for (const auto& f : rows) set_bits(expected, f.hi, f.lo, 0);
    const HeaderField major = header_field(rows, "major_version");
    set_bits(expected, major.hi, major.lo, version);
    return set_bit_runs(expected, rows);
  }()) << "encode_into(a " << version_name(version) << " Qmd of zeros, a QMD of all ones): the set bits afterwards; "
       << "every covered range cleared, QMD_MAJOR_VERSION set, no other bit touched";
}

TEST(HeaderV03, DecoderReadsEachFieldAtTheHeadersBits) { check_decoder(by_version(3), header_fields(3), 3); }
TEST(HeaderV03, EncoderWritesEachFieldAtTheHeadersBits) { check_encoder(by_version(3), header_fields(3), 3); }
TEST(HeaderV04, DecoderReadsEachFieldAtTheHeadersBits) { check_decoder(by_version(4), header_fields(4), 4); }
TEST(HeaderV04, EncoderWritesEachFieldAtTheHeadersBits) { check_encoder(by_version(4), header_fields(4), 4); }
TEST(HeaderV05, DecoderReadsEachFieldAtTheHeadersBits) { check_decoder(by_version(5), header_fields(5), 5); }
TEST(HeaderV05, EncoderWritesEachFieldAtTheHeadersBits) { check_encoder(by_version(5), header_fields(5), 5); }

TEST(Layout, ReadsEachFieldFromTheCourseHeaders) {
  for (unsigned v : {3u, 4u, 5u}) {
    RECORD_EQ(layout_of(course_header(version_of(v)), v), table_layout(header_fields(v), v))
        << "layout_from_header(the text of labs/07_qmd/headers/qmd_v0" << v << "_00.h, " << version_name(v)
        << "): each member's MW(hi:lo) and SHIFTEDn (null if it threw)";
  }
  // Where LAUNCHLAB_OPEN_GPU_DOC names no checkout, header_text says so
  // rather than falling back on the course's headers.
  const OpenGpuDocVariable nowhere("labs/07_qmd/no-open-gpu-doc-checkout-here");
  RECORD_THROWS(header_text(QmdVersion::V04_00), QmdError)
      << "header_text(V04_00) with LAUNCHLAB_OPEN_GPU_DOC naming a folder that does not exist";
}

TEST(Layout, TakesOnlyItsVersionAndItsExactNames) {
  // A header as NVIDIA's are: several versions (V04_01 beside V04_00, as in
  // clcdc0qmd.h), and names that begin like the covered ones (the RESUME
  // fields, a SHIFTED name of another field) placed before them.
  const Rows moved = moved_rows(4, 41);
  Rows decoys = header_fields(4);
  for (auto& f : decoys) {
    f.header_name += "_RESUME";
    f.values.clear();
  }
  const std::string text = write_header(header_fields(3), "NVCBC0_QMDV03_00_") +
                           write_header(header_fields(4), "NVCDC0_QMDV04_01_") +
                           write_header(decoys, "NVCBC0_QMDV04_00_") +
                           write_header(header_fields(4), "XNVCBC0_QMDV04_00_") +
                           write_header(moved, "NVCBC0_QMDV04_00_");
  RECORD_SCOPE("a header that defines V03_00, V04_01 and a made-up V04_00 layout; before each V04_00 field NAME, a "
               "NAME_RESUME at other bits, and XNVCBC0_QMDV04_00_NAME");
  RECORD_EQ(layout_of(text, 4), table_layout(moved, 4))
      << "layout_from_header(it, V04_00): the ranges of NVCBC0_QMDV04_00_NAME alone (null if it threw)";

  Rows missing;
  for (const auto& f : header_fields(5)) {
    if (f.field != "grid_depth") missing.push_back(f);
  }
  const std::string without_grid_depth = write_header(missing, course_prefix(5));
  RECORD_THROWS(layout_from_header(without_grid_depth, QmdVersion::V05_00), QmdError)
      << "layout_from_header(a V05_00 header without GRID_DEPTH, V05_00)";
  RECORD_CONTAINS(launchlab::testing::message_thrown<QmdError>(
                      [&] { layout_from_header(without_grid_depth, QmdVersion::V05_00); }),
                  "GRID_DEPTH")
      << "the message of layout_from_header(a V05_00 header without GRID_DEPTH)";
}

TEST(Layout, CodecUsesTheRangesTheHeaderGives) {
  // Made-up layouts: the names of a version at other bits. Only a codec whose
  // every range comes from the header's text follows them.
  for (unsigned v : {3u, 4u, 5u}) {
    const Rows moved = moved_rows(v, 7 * v);
    const std::string text = write_header(moved, course_prefix(v));
    RECORD_SCOPE("a header of a made-up " + version_name(v) + " layout (the same names at other bits)");
    const std::optional<Layout> layout = layout_of(text, v);
    RECORD_EQ(layout, table_layout(moved, v))
        << "layout_from_header(it, " << version_name(v) << ") (null if it threw); the header:\n" << text;
    check_decoder(with_layout(layout, v), moved, v);
    check_encoder(with_layout(layout, v), moved, v);
  }
}

}  // namespace
