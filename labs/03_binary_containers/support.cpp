// Given code: the error type, two ElfFile helpers, the attribute names,
// file mapping and zstd. Not a student file.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>

#include <launchlab/bytes.h>

#include "containers.h"

namespace launchlab::containers {

using bytes::hex;

FormatError::FormatError(std::uint64_t offset, const std::string& what)
    : std::runtime_error(what + " (at offset " + hex(offset) + ")"), offset_(offset) {}

const ElfSection* ElfFile::find_section(std::string_view name) const {
  for (const auto& section : sections) {
    if (section.name == name) return &section;
  }
  return nullptr;
}

namespace {

bool same_section(const ElfSection& a, const ElfSection& b) {
  return a.name == b.name && a.type == b.type && a.flags == b.flags && a.address == b.address &&
         a.offset == b.offset && a.size == b.size && a.link == b.link && a.info == b.info &&
         a.alignment == b.alignment && a.entry_size == b.entry_size;
}

// Where a section's header is in the file, e_shoff + 64 * its index: the
// offset FormatError names for a section whose bytes are not in the file.
std::uint64_t header_offset(const ElfFile& elf, const ElfSection& section) {
  constexpr std::size_t kElfHeaderSize = 64, kSectionHeaderSize = 64, kShoffAt = 40;
  std::size_t index = elf.sections.size();
  const std::less<const ElfSection*> before;
  if (!before(&section, elf.sections.data()) && before(&section, elf.sections.data() + elf.sections.size())) {
    index = static_cast<std::size_t>(&section - elf.sections.data());
  } else {
    for (std::size_t i = 0; i < elf.sections.size() && index == elf.sections.size(); ++i) {
      if (same_section(elf.sections[i], section)) index = i;
    }
  }
  if (index == elf.sections.size())
    throw std::invalid_argument("ElfFile::contents: section " + section.name + " is not one of this file's sections");
  if (elf.bytes.size() < kElfHeaderSize) throw FormatError(0, "the ELF header is cut short");
  std::uint64_t shoff = 0;
  for (std::size_t i = 0; i < 8; ++i)
    shoff |= static_cast<std::uint64_t>(std::to_integer<std::uint8_t>(elf.bytes[kShoffAt + i])) << (8 * i);
  return shoff + kSectionHeaderSize * index;
}

}  // namespace

std::span<const std::byte> ElfFile::contents(const ElfSection& section) const {
  constexpr std::uint32_t kNull = 0, kNoBits = 8;
  if (section.type == kNull || section.type == kNoBits || section.size == 0) return {};
  if (section.offset > bytes.size() || section.size > bytes.size() - section.offset)
    throw FormatError(header_offset(*this, section), "section " + section.name + "'s bytes lie outside the file");
  return bytes.subspan(section.offset, section.size);
}

std::string attribute_name(std::uint8_t attribute) {
  // The names cuobjdump -elf prints (CUDA 13.0) for the codes of the course's
  // cubins, and those CuAssembler's CuNVInfo.py lists.
  static const std::map<std::uint8_t, const char*> names = {
      {0x04, "EIATTR_CTAIDZ_USED"},
      {0x05, "EIATTR_MAX_THREADS"},
      {0x0a, "EIATTR_PARAM_CBANK"},
      {0x0f, "EIATTR_EXTERNS"},
      {0x10, "EIATTR_REQNTID"},
      {0x11, "EIATTR_FRAME_SIZE"},
      {0x12, "EIATTR_MIN_STACK_SIZE"},
      {0x15, "EIATTR_BINDLESS_TEXTURE_BANK"},
      {0x16, "EIATTR_BINDLESS_SURFACE_BANK"},
      {0x17, "EIATTR_KPARAM_INFO"},
      {0x19, "EIATTR_CBANK_PARAM_SIZE"},
      {0x1b, "EIATTR_MAXREG_COUNT"},
      {0x1c, "EIATTR_EXIT_INSTR_OFFSETS"},
      {0x1d, "EIATTR_S2RCTAID_INSTR_OFFSETS"},
      {0x1e, "EIATTR_CRS_STACK_SIZE"},
      {0x1f, "EIATTR_NEED_CNP_WRAPPER"},
      {0x20, "EIATTR_NEED_CNP_PATCH"},
      {0x21, "EIATTR_EXPLICIT_CACHING"},
      {0x23, "EIATTR_MAX_STACK_SIZE"},
      {0x25, "EIATTR_LD_CACHEMOD_INSTR_OFFSETS"},
      {0x27, "EIATTR_ATOM_SYS_INSTR_OFFSETS"},
      {0x28, "EIATTR_COOP_GROUP_INSTR_OFFSETS"},
      {0x2a, "EIATTR_SW1850030_WAR"},
      {0x2b, "EIATTR_WMMA_USED"},
      {0x2e, "EIATTR_ATOM16_EMUL_INSTR_REG_MAP"},
      {0x2f, "EIATTR_REGCOUNT"},
      {0x30, "EIATTR_SW2393858_WAR"},
      {0x31, "EIATTR_INT_WARP_WIDE_INSTR_OFFSETS"},
      {0x34, "EIATTR_INDIRECT_BRANCH_TARGETS"},
      {0x35, "EIATTR_SW2861232_WAR"},
      {0x36, "EIATTR_SW_WAR"},
      {0x37, "EIATTR_CUDA_API_VERSION"},
      {0x45, "EIATTR_KPARAM_INFO_V2"},  // a name ptxas 13.0 carries; in the course's cubins of large lists
      {0x4a, "EIATTR_VRC_CTA_INIT_COUNT"},
      {0x4c, "EIATTR_NUM_BARRIERS"},
      {0x50, "EIATTR_SPARSE_MMA_MASK"},
      {0x5f, "EIATTR_MERCURY_ISA_VERSION"},
  };
  if (auto it = names.find(attribute); it != names.end()) return it->second;
  std::string code = hex(attribute).substr(2);
  if (code.size() < 2) code.insert(code.begin(), '0');
  return "EIATTR_UNKNOWN_0x" + code;
}

MappedFile::MappedFile(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(path.string() + " is not a regular file");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int error = errno;
      ::close(fd);
      throw std::runtime_error("cannot map " + path.string() + ": " + std::strerror(error));
    }
    data_ = static_cast<const std::byte*>(p);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<std::byte*>(data_), size_);
}

namespace {

// libzstd, loaded on first use: only its stable API (zstd.h, "stable API").
struct Zstd {
  std::size_t (*decompress)(void*, std::size_t, const void*, std::size_t) = nullptr;
  unsigned (*is_error)(std::size_t) = nullptr;
  const char* (*error_name)(std::size_t) = nullptr;
};

const Zstd* zstd() {
  static const Zstd* loaded = [] () -> const Zstd* {
    void* handle = ::dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return nullptr;
    static Zstd z;
    z.decompress = reinterpret_cast<decltype(z.decompress)>(::dlsym(handle, "ZSTD_decompress"));
    z.is_error = reinterpret_cast<decltype(z.is_error)>(::dlsym(handle, "ZSTD_isError"));
    z.error_name = reinterpret_cast<decltype(z.error_name)>(::dlsym(handle, "ZSTD_getErrorName"));
    if (!z.decompress || !z.is_error || !z.error_name) return nullptr;
    return &z;
  }();
  return loaded;
}

}  // namespace

bool zstd_available() { return zstd() != nullptr; }

std::vector<std::byte> zstd_decompress(std::span<const std::byte> frame, std::size_t expected_size) {
  const Zstd* z = zstd();
  if (!z) throw std::runtime_error("libzstd.so.1 is not installed (Debian: apt-get install libzstd1)");
  // One byte more than expected, so that a frame that inflates to more is caught.
  std::vector<std::byte> out(expected_size + 1);
  std::size_t n = z->decompress(out.data(), out.size(), frame.data(), frame.size());
  if (z->is_error(n)) throw std::runtime_error(std::string("zstd: ") + z->error_name(n));
  if (n != expected_size)
    throw std::runtime_error("zstd: the frame inflates to " + std::to_string(n) + " bytes, not " +
                             std::to_string(expected_size));
  out.resize(n);
  return out;
}

}  // namespace launchlab::containers
