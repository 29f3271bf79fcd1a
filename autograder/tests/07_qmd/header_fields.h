// Test support for 07_qmd: the field ranges of NVIDIA's class headers, read
// from fields.csv (copied by hand from the headers), bit operations on word
// arrays that do not use the learner's code, and how the tests record QMDs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qmd.h"

namespace launchlab::qmd {

/// A Qmd as the tests record it: every member by name, addresses and the
/// payload in hex, so that a difference reads ".cbank0.size: expected 528,
/// got 33".
nlohmann::json record_value(const Qmd& q);

}  // namespace launchlab::qmd

namespace launchlab::qmd_tests {

/// One line of fields.csv: where a header puts one range of a covered field.
struct HeaderField {
  unsigned version = 0;     ///< 3, 4 or 5
  std::string field;        ///< grid_width, cbank0_address_lower, ...
  std::string header_name;  ///< GRID_WIDTH, CONSTANT_BUFFER_ADDR_LOWER_SHIFTED6(0), ...
  unsigned hi = 0;
  unsigned lo = 0;
  unsigned shift = 0;       ///< n of SHIFTEDn

  unsigned width() const { return hi - lo + 1; }
  std::uint64_t all_ones() const { return width() == 64 ? ~0ull : (1ull << width()) - 1; }
};

/// Every line of fields.csv, in file order.
const std::vector<HeaderField>& header_fields();

/// The lines of one version.
std::vector<HeaderField> header_fields(unsigned version);

/// The line of one version's field (throws std::runtime_error when absent).
HeaderField header_field(unsigned version, const std::string& field);

/// "V04_00 grid_width (GRID_WIDTH, MW(1055:1024))", for messages.
std::string describe(const HeaderField& f);

qmd::QmdVersion version_of(unsigned number);

/// Sets bits lo..hi of @p words to @p value (its low hi-lo+1 bits). Written
/// bit by bit, on purpose: it shares nothing with a learner's write_field.
void set_bits(std::vector<std::uint32_t>& words, unsigned hi, unsigned lo, std::uint64_t value);

/// The bits lo..hi of @p words, bit lo as bit 0.
std::uint64_t get_bits(const std::vector<std::uint32_t>& words, unsigned hi, unsigned lo);

/// A zero QMD of @p version with only QMD_MAJOR_VERSION set, as the header says.
std::vector<std::uint32_t> blank_qmd(unsigned version);

/// The value a Qmd holds for one range, in the header's stored units (an
/// address part before scaling: for cbank0_address_upper of V04_00, bits 63:32
/// of address >> 6).
std::uint64_t get_part(const qmd::Qmd& q, const HeaderField& f);

/// Stores @p raw, in the header's units, as the Qmd's value of one range,
/// leaving the other ranges of the same member alone.
void set_part(qmd::Qmd& q, const HeaderField& f, std::uint64_t raw);

/// The Qmd that the ranges of fields.csv give for @p words, read bit by bit
/// (the tests' own decoder, sharing nothing with the learner's).
qmd::Qmd table_decode(const std::vector<std::uint32_t>& words, unsigned version);

/// A QMD's bits as the tests record them: "96 words", then every run of set
/// bits within one range of @p version's header, in the header's notation
/// and with the range's name: "MW(582:582) QMD_MAJOR_VERSION",
/// "MW(1055:1024) GRID_WIDTH", or "(no covered field)" outside them.
std::vector<std::string> set_bit_runs(std::span<const std::uint32_t> words, unsigned version);

/// Words as hex strings, [i] is word i ("0x0000ffff").
std::vector<std::string> hex_words(std::span<const std::uint32_t> words);

/// "MW(583:580)".
std::string mw(unsigned hi, unsigned lo);

/// A mask of every bit the covered fields of @p version occupy, major version included.
std::vector<std::uint32_t> covered_mask(unsigned version);

}  // namespace launchlab::qmd_tests
