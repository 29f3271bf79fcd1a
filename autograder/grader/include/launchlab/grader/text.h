/// @file
/// Text that came from a learner's program or build (compiler messages, a
/// crash's last output, record values, skip messages, failures), made safe
/// to put into a message: valid UTF-8, bounded in size, and shown so that it
/// cannot pass for the grader's own words.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace launchlab::grader {

/// Which end of a text is kept when it is cut.
enum class KeepEnd { head, tail };

/// The bytes as valid UTF-8 of at most max_bytes bytes: every byte that is
/// not part of a well-formed UTF-8 sequence (a Latin-1 byte, a sequence cut
/// short, an overlong form, a surrogate) and every control character but
/// newline and tab becomes U+FFFD; a text longer than the bound is cut on a
/// character boundary, keeping its head or its tail, and says how much was
/// cut. Never throws for the bytes' sake.
std::string learner_text(std::string_view bytes, std::size_t max_bytes, KeepEnd keep = KeepEnd::head);

/// The text as a Markdown (CommonMark) code block whose fence is longer than
/// any run of backticks in it, so that nothing in it can close the block
/// and render as Markdown.
std::string fenced_block(std::string_view text);

}  // namespace launchlab::grader
