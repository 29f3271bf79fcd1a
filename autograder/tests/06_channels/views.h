// How the tests of 06_channels record methods, GPFIFO entries and
// pushbuffers: decoded, with method names and fields, so that a difference
// reads as "INC, subchannel 1" against "IMMD, subchannel 1" rather than as
// two hex words. The words a test builds or gets back are decoded here by
// the tests' own reading of clc56f.h, never by the code under test; method
// names come from the lab's given method_name.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "channels.h"
#include "launchlab/bytes.h"

namespace launchlab::channels {

/// "INC", "NON_INC", "IMMD", "ONE_INC", or "SEC_OP 7" for another value.
nlohmann::json record_value(SecOp op);
/// "MAIN", "SUBROUTINE", or "LEVEL 2" for another value.
nlohmann::json record_value(GpLevel level);
/// "INC, subchannel 1, SEND_PCAS_A (0x02b4), count 1".
nlohmann::json record_value(const MethodHeader& header);
/// "subchannel 1, SEND_PCAS_A (0x02b4) = 0xfc2a5000".
nlohmann::json record_value(const MethodCall& call);
/// A group as lines: "word 2: INC, subchannel 1, 1 data word", then one line
/// per method call, "  SEND_PCAS_A (0x02b4) = 0xfc2a5000".
nlohmann::json record_value(const MethodGroup& group);
/// "address 0x1000002000, length 10, SUBROUTINE" (and SYNC_WAIT,
/// FETCH_CONDITIONAL when set).
nlohmann::json record_value(const GpEntry& entry);

}  // namespace launchlab::channels

namespace launchlab::channel_tests {

/// "0x2b4"; with digits, zero-padded: hex(0x2b4, 8) is "0x000002b4".
using launchlab::bytes::hex;

/// A method by name and number: "SEND_PCAS_A (0x02b4)", or "0x02b5" for a
/// method the lab does not name.
std::string method_text(std::uint32_t method);

/// The method header word of clc56f.h: SEC_OP 31:29, COUNT (or IMMD_DATA)
/// 28:16, SUBCHANNEL 15:13, ADDRESS 11:0 (the method / 4). Throws
/// std::invalid_argument for a value wider than its field (a problem of the test).
std::uint32_t header_word(std::uint32_t sec_op, unsigned subchannel, std::uint32_t method, std::uint32_t count);

/// A header word decoded by the tests: "0x200120ad: INC, subchannel 1,
/// SEND_PCAS_A (0x02b4), count 1", or "0xe0000000: SEC_OP 7, no method
/// header"; bit 12, which no field uses, is named when set.
std::string header_text(std::uint32_t word);

/// A pushbuffer segment decoded by the tests, one entry per group: "word 0:
/// INC, subchannel 1, 1 data word (header 0x20012000)" and a line per method
/// call, "  SET_OBJECT (0x0000) = 0xcbc0". A word that is no header, or a
/// group cut short, ends the list with an entry that says so.
std::vector<std::string> pushbuffer_text(std::span<const std::uint32_t> words);

/// Two GPFIFO entry words decoded by the tests: "ENTRY0 0x00002000, ENTRY1
/// 0x00002a10: address 0x1000002000, length 10, SUBROUTINE".
std::string gp_entry_text(std::uint32_t entry0, std::uint32_t entry1);

/// Words as the tests show an input: "{0x200120ad, 0x5, 0x20052318}".
std::string words_text(std::span<const std::uint32_t> words);

/// Words as hex strings, one per word, for records of words that are no
/// pushbuffer (a QMD, a ring).
std::vector<std::string> hex_words(std::span<const std::uint32_t> words);

}  // namespace launchlab::channel_tests
