// Test support for 07_qmd: the course's table of QMD fields
// (labs/07_qmd/headers/fields.csv, compiled into the lab), a reader and a
// writer of the headers' notation that share nothing with the learner's,
// bit operations on word arrays done one bit at a time, and how the tests
// record QMDs and layouts.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "qmd.h"

namespace launchlab::lab_files {
std::string_view lab_07_qmd(std::string_view path);  // the files labs/07_qmd/CMakeLists.txt embeds
}

namespace launchlab::qmd {

/// A Qmd as the tests record it: every member by name, addresses and the
/// payload in hex, so that a difference reads ".cbank0.size: expected 528,
/// got 33".
nlohmann::json record_value(const Qmd& q);

/// A Layout as the tests record it: each member as "MW(hi:lo)", with
/// " SHIFTEDn" when it is scaled.
nlohmann::json record_value(const Layout& layout);

}  // namespace launchlab::qmd

namespace launchlab::qmd_tests {

/// One line of fields.csv: where a header puts one define.
struct HeaderField {
  unsigned version = 0;     ///< 3, 4 or 5
  std::string field;        ///< grid_width, cbank0_address_lower, ...; "-" for a define the lab does not cover
  std::string header_name;  ///< GRID_WIDTH, CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6, ... (no "(i)")
  unsigned hi = 0;          ///< MW(hi:lo), of index 0 for an indexed define
  unsigned lo = 0;
  unsigned stride = 0;      ///< 0, or how far index i moves the range: the define is NAME(i)
  unsigned shift = 0;       ///< n of a name that ends in _SHIFTEDn
  std::vector<std::pair<std::string, std::string>> values;  ///< the named values (FALSE, 0x00000000)

  bool covered() const { return field != "-"; }
  unsigned width() const { return hi - lo + 1; }
  std::uint64_t all_ones() const { return width() == 64 ? ~0ull : (1ull << width()) - 1; }
};
using Rows = std::vector<HeaderField>;

/// Every line of fields.csv, in file order.
const Rows& table_rows();

/// The covered lines of one version (the fields of Qmd).
Rows header_fields(unsigned version);

/// The line of one field among @p rows (throws std::runtime_error when absent).
HeaderField header_field(const Rows& rows, const std::string& field);
HeaderField header_field(unsigned version, const std::string& field);

/// "V04_00 grid_width (GRID_WIDTH, MW(1055:1024))", for messages.
std::string describe(const HeaderField& f);

qmd::QmdVersion version_of(unsigned number);
std::string version_name(unsigned number);  ///< "V04_00"

/// "NVCBC0_QMDV04_00_": the prefix the course's header of @p version uses.
std::string course_prefix(unsigned version);

/// The Layout that @p rows (one version's covered lines) describe.
qmd::Layout table_layout(const Rows& rows, unsigned version);

/// A header in the notation of NVIDIA's class headers holding @p rows, each
/// name after @p prefix; written here, sharing nothing with make_headers.py.
std::string write_header(const Rows& rows, const std::string& prefix);

/// One version's covered lines at other bits: a made-up layout with the
/// same names and widths, no two ranges overlapping, none crossing a word,
/// all inside the version's size; which goes where depends on @p seed.
Rows moved_rows(unsigned version, std::uint32_t seed);

/// The MW defines of a header's text, as the tests read them (a regular
/// expression per line), each written as describe_define writes it.
std::vector<std::string> reference_defines(std::string_view header_text);

/// "NAME MW(1055:1024)", or "NAME(i) MW((416+(i)*4):(416+(i)*4))" for an indexed define.
std::string describe_define(const qmd::MwDefine& define);

/// Sets bits lo..hi of @p words to @p value (its low hi-lo+1 bits). Written
/// bit by bit, on purpose: it shares nothing with a learner's write_field.
void set_bits(std::vector<std::uint32_t>& words, unsigned hi, unsigned lo, std::uint64_t value);

/// The bits lo..hi of @p words, bit lo as bit 0.
std::uint64_t get_bits(const std::vector<std::uint32_t>& words, unsigned hi, unsigned lo);

/// A zero QMD of @p version with only QMD_MAJOR_VERSION set, where @p rows put it.
std::vector<std::uint32_t> blank_qmd(const Rows& rows, unsigned version);
std::vector<std::uint32_t> blank_qmd(unsigned version);

/// The value a Qmd holds for one range, in the header's stored units (an
/// address part before scaling: for cbank0_address_upper of V04_00, bits 63:32
/// of address >> 6).
std::uint64_t get_part(const qmd::Qmd& q, const HeaderField& f);

/// Stores @p raw, in the header's units, as the Qmd's value of one range,
/// leaving the other ranges of the same member alone.
void set_part(qmd::Qmd& q, const HeaderField& f, std::uint64_t raw);

/// The Qmd that @p rows give for @p words, read bit by bit (the tests' own
/// decoder, sharing nothing with the learner's).
qmd::Qmd table_decode(const std::vector<std::uint32_t>& words, const Rows& rows, unsigned version);
qmd::Qmd table_decode(const std::vector<std::uint32_t>& words, unsigned version);

/// A QMD's bits as the tests record them: "96 words", then every run of set
/// bits within one range of @p rows, in the header's notation and with the
/// range's name: "MW(582:582) QMD_MAJOR_VERSION", "MW(1055:1024) GRID_WIDTH",
/// or "(no covered field)" outside them.
std::vector<std::string> set_bit_runs(std::span<const std::uint32_t> words, const Rows& rows);
std::vector<std::string> set_bit_runs(std::span<const std::uint32_t> words, unsigned version);

/// Words as hex strings, [i] is word i ("0x0000ffff").
std::vector<std::string> hex_words(std::span<const std::uint32_t> words);

/// "MW(583:580)".
std::string mw(unsigned hi, unsigned lo);

/// A mask of every bit the covered fields of @p rows occupy, major version included.
std::vector<std::uint32_t> covered_mask(const Rows& rows, unsigned version);
std::vector<std::uint32_t> covered_mask(unsigned version);

/// The bytes of a file of labs/07_qmd/fixtures/.
std::string fixture_bytes(const std::string& name);

}  // namespace launchlab::qmd_tests
