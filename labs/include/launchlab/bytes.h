#pragma once
/// @file
/// Given code for the labs that read binary formats: little-endian integers
/// from a span of bytes, with bounds checks, and hexadecimal text for the
/// offsets, addresses and words that messages name.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

namespace launchlab::bytes {

/// `value` in hexadecimal, lowercase, with a `0x` prefix and at least
/// `min_digits` digits (zeros in front): hex(0xba55ed50) is "0xba55ed50",
/// hex(0x2c, 4) is "0x002c", hex(0) is "0x0".
inline std::string hex(std::uint64_t value, int min_digits = 1) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string digits;
  do {
    digits.insert(digits.begin(), kDigits[value & 0xf]);
    value >>= 4;
  } while (value != 0);
  if (static_cast<int>(digits.size()) < min_digits) digits.insert(0, min_digits - digits.size(), '0');
  return "0x" + digits;
}

/// Whether the `size` bytes at `offset` lie inside a buffer of `total`
/// bytes, without overflow however large offset and size are.
constexpr bool fits(std::uint64_t offset, std::uint64_t size, std::uint64_t total) noexcept {
  return offset <= total && size <= total - offset;
}

/// The unsigned integer T stored little-endian (least significant byte
/// first) at `offset` of `bytes`.
///
/// The check here is a guard, not a format's error: a reader that must name
/// what is cut short checks with fits() first and throws its own error.
/// @throws std::out_of_range when the sizeof(T) bytes at `offset` run past
///   the end of `bytes`; the message gives the offset and the size
template <std::unsigned_integral T>
T read_le(std::span<const std::byte> bytes, std::uint64_t offset) {
  if (!fits(offset, sizeof(T), bytes.size())) {
    throw std::out_of_range("a read of " + std::to_string(sizeof(T)) + " bytes at offset " + hex(offset) +
                            " runs past the end of " + std::to_string(bytes.size()) + " bytes");
  }
  T value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(static_cast<T>(std::to_integer<std::uint8_t>(bytes[offset + i])) << (8 * i));
  }
  return value;
}

}  // namespace launchlab::bytes
