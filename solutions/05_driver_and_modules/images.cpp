// Part A: telling the images nvcc writes apart, and preparing them for
// cuModuleLoadData.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "driver.h"

namespace launchlab::driver {

namespace {

template <class T>
std::optional<T> read_at(std::span<const std::byte> bytes, std::size_t offset) {
  if (offset > bytes.size() || sizeof(T) > bytes.size() - offset) return std::nullopt;
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

constexpr std::uint16_t kEmCuda = 190;
constexpr std::uint32_t kFatbinMagic = 0xBA55ED50u;

bool is_cuda_elf(std::span<const std::byte> image) {
  if (image.size() < 64 || std::memcmp(image.data(), "\x7f" "ELF", 4) != 0) return false;
  return read_at<std::uint16_t>(image, 18) == kEmCuda;  // e_machine
}

bool is_ptx(std::span<const std::byte> image) {
  std::size_t at = 0;
  while (at < image.size()) {
    std::size_t end = at;
    while (end < image.size() && image[end] != std::byte{'\n'}) ++end;
    std::string line(reinterpret_cast<const char*>(image.data()) + at, end - at);
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos && line.compare(first, 2, "//") != 0) {
      return line.compare(first, 8, ".version") == 0;
    }
    at = end + 1;
  }
  return false;
}

}  // namespace

ImageKind identify_image(std::span<const std::byte> image) {
  if (is_cuda_elf(image)) return ImageKind::Cubin;
  if (read_at<std::uint32_t>(image, 0) == kFatbinMagic) return ImageKind::Fatbin;
  if (is_ptx(image)) return ImageKind::Ptx;
  return ImageKind::Unknown;
}

std::vector<std::byte> ptx_image(std::string_view ptx) {
  std::string_view text = ptx;
  if (!text.empty() && text.back() == '\0') text.remove_suffix(1);
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    throw std::invalid_argument("ptx_image: the text holds a NUL at byte " + std::to_string(nul) +
                                ", where the driver would stop reading");
  }
  std::vector<std::byte> image(text.size() + 1, std::byte{0});
  std::memcpy(image.data(), text.data(), text.size());
  return image;
}

int cubin_sm(std::span<const std::byte> cubin) {
  if (!is_cuda_elf(cubin)) throw std::invalid_argument("cubin_sm: not a cubin (an ELF file for EM_CUDA)");
  const auto os_abi = read_at<std::uint8_t>(cubin, 7);
  const auto abi_version = read_at<std::uint8_t>(cubin, 8);
  if (os_abi != 0x41 || abi_version != 8) {
    throw std::invalid_argument("cubin_sm: EI_OSABI " + std::to_string(os_abi.value_or(0)) + ", EI_ABIVERSION " +
                                std::to_string(abi_version.value_or(0)) + ": not the ELF ABI of nvcc 13.0's cubins");
  }
  const auto flags = read_at<std::uint32_t>(cubin, 48);  // e_flags of an ELF64 header
  return static_cast<int>((*flags >> 8) & 0xffu);
}

bool sass_runs_on(int sm, int major, int minor) { return sm / 10 == major && sm % 10 <= minor; }

}  // namespace launchlab::driver
