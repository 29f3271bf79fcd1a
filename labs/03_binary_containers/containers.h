/// @file
/// The containers GPU code travels in: the cubin (an ELF file with the
/// kernels' SASS and their `.nv.info` records) and the fatbin (the cubins and
/// the PTX of a program, packed into a host executable or library).
///
/// The readers take the file's bytes and return plain values; none of them
/// runs a tool. Malformed input makes them throw FormatError, which names the
/// file offset where the structure that could not be read starts: they never
/// read outside the bytes they are given, whatever those bytes hold.
///
/// The tests hold them to that with damaged files: 1,500 copies each of a
/// cubin, an object file and a fatbin, changed at random, mostly in their
/// headers, some cut short. Every copy must either be read or make the
/// reader throw FormatError (read_cubin's std::invalid_argument for a file
/// that is not a cubin also counts), never crash or throw anything else.
/// The checks listed below catch much of that damage, so a reader that
/// refuses fewer than one copy in ten (150 of 1,500) is missing checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::containers {

/// A malformed or truncated file. The message says what is wrong and ends
/// with " (at offset 0x1a0)"; offset() gives the same number.
///
/// The offset is where the structure that could not be read starts, in the
/// file (not in a section):
///
/// - the ELF header, 0: a file shorter than 64 bytes, a wrong e_ident, an
///   e_shentsize other than 64, an e_shstrndx that is not a section;
/// - a section header, e_shoff + 64 * index: a table that is cut fails at
///   the first header that does not fit whole (at e_shoff when not even
///   the first one does); a section whose bytes lie outside the file, or
///   whose name does not resolve, fails at its own header (not at the
///   bytes sh_offset points to); so does `.symtab` when its entry size or
///   its link is wrong;
/// - a `.symtab` entry, for a symbol whose name does not resolve;
/// - an `.nv.info` record, the record's first byte;
/// - a fatbin container, its header: a header that is cut, a wrong magic,
///   a header size below 16, entries that run past the bytes given;
/// - a fatbin entry, its header: a header cut by its container's end, a
///   header size below 64, a payload that runs past its container; but a
///   compressed payload that does not inflate is named by the payload's
///   own offset (FatbinEntry::payload_offset);
/// - a fatbin wrapper, its first byte; `.nvFatBinSegment` whose size is
///   not a multiple of 24, its first byte.
class FormatError : public std::runtime_error {
 public:
  FormatError(std::uint64_t offset, const std::string& what);
  /// The file offset of the structure that could not be read (see above).
  std::uint64_t offset() const { return offset_; }

 private:
  std::uint64_t offset_;
};

// ---------------------------------------------------------------------------
// Part A: ELF64
// ---------------------------------------------------------------------------

/// A section header of an ELF64 file (Elf64_Shdr), with its name resolved.
struct ElfSection {
  std::string name;              ///< from the section-name string table (e_shstrndx)
  std::uint32_t type = 0;        ///< sh_type: 1 PROGBITS, 2 SYMTAB, 3 STRTAB, 8 NOBITS, 0x70000000 CUDA_INFO, ...
  std::uint64_t flags = 0;       ///< sh_flags
  std::uint64_t address = 0;     ///< sh_addr: where it is loaded (0 in a cubin and an object)
  std::uint64_t offset = 0;      ///< sh_offset: where its bytes are in the file
  std::uint64_t size = 0;        ///< sh_size
  std::uint32_t link = 0;        ///< sh_link
  std::uint32_t info = 0;        ///< sh_info
  std::uint64_t alignment = 0;   ///< sh_addralign
  std::uint64_t entry_size = 0;  ///< sh_entsize
};

/// A symbol of the `.symtab` section (Elf64_Sym), with its name resolved.
struct ElfSymbol {
  std::string name;             ///< from the string table the symbol table links to
  std::uint64_t value = 0;      ///< st_value
  std::uint64_t size = 0;       ///< st_size
  std::uint8_t type = 0;        ///< st_info & 0xf: 0 NOTYPE, 1 OBJECT, 2 FUNC, 3 SECTION, ...
  std::uint8_t binding = 0;     ///< st_info >> 4: 0 LOCAL, 1 GLOBAL, 2 WEAK
  std::uint8_t other = 0;       ///< st_other: a cubin marks a kernel with 0x10 (STO_CUDA_ENTRY)
  std::uint16_t section = 0;    ///< st_shndx: the index of the section it is defined in
};

/// An ELF64 little-endian file: its header fields, its sections and the
/// symbols of its `.symtab`.
struct ElfFile {
  /// The whole file; not owned: the bytes given to read_elf, which must
  /// outlive this value.
  std::span<const std::byte> bytes;
  std::uint16_t type = 0;         ///< e_type: 1 REL (an object), 2 EXEC (a cubin, an executable), 3 DYN
  std::uint16_t machine = 0;      ///< e_machine: 190 EM_CUDA (a cubin), 62 EM_X86_64
  std::uint8_t os_abi = 0;        ///< e_ident[EI_OSABI]: 0x41 in a cubin of CUDA 13.0
  std::uint8_t abi_version = 0;   ///< e_ident[EI_ABIVERSION]: 8 in a cubin of CUDA 13.0
  std::uint32_t flags = 0;        ///< e_flags: a cubin's architecture lives here
  std::vector<ElfSection> sections;  ///< every section header, in order (index 0 is the null section)
  std::vector<ElfSymbol> symbols;    ///< every `.symtab` entry, in order (index 0 is the null symbol); empty without .symtab

  /// The first section with this name, or nullptr.
  const ElfSection* find_section(std::string_view name) const;
  /// A section's bytes in the file (none for a NULL or NOBITS section).
  /// read_elf has checked that they lie inside the file; when they do not
  /// (an ElfFile read without that check), throws FormatError at the
  /// section's header, e_shoff + 64 * its index in `sections` (and
  /// std::invalid_argument for a section that is not one of `sections`).
  std::span<const std::byte> contents(const ElfSection& section) const;
};

/// Reads an ELF64 little-endian file: the header, every section header, the
/// section names and `.symtab` with its names. The symbol table is the
/// section of type SYMTAB (2), whatever its name; its names come from the
/// string table its sh_link names.
///
/// Throws FormatError (at the offsets FormatError lists) when the file is
/// shorter than its header, is not ELF64 little-endian (e_ident), when
/// e_shentsize is not 64, when the section header table or a section's
/// bytes (other than NULL and NOBITS) lie outside the file, when a name
/// offset lies outside its string table or is not NUL-terminated in it,
/// when e_shstrndx is not a section, or when `.symtab`'s entry size is not
/// 24 or its link is not a section. A file with e_shoff 0 has no sections.
ElfFile read_elf(std::span<const std::byte> bytes);

/// The SM architecture of a cubin (90 for sm_90, 100 for sm_100) from its
/// e_flags. Before ABI version 8 it is e_flags & 0xff; from version 8 on,
/// (e_flags >> 8) & 0xff (LLVM's llvm/BinaryFormat/ELF.h: EF_CUDA_SM,
/// EF_CUDA_SM_MASK, EF_CUDA_SM_OFFSET, ELFABIVERSION_CUDA_V1). Throws
/// std::invalid_argument when the file is not a cubin (e_machine is not 190).
int cubin_arch(const ElfFile& elf);

// ---------------------------------------------------------------------------
// Part B: .nv.info
// ---------------------------------------------------------------------------

/// The four record formats of `.nv.info` (cuobjdump -elf spells them EIFMT_...).
enum class NvInfoFormat : std::uint8_t { NVAL = 1, BVAL = 2, HVAL = 3, SVAL = 4 };

/// One `.nv.info` record: `u8 format, u8 attribute, u16 value`, and for an
/// SVAL record `value` more bytes of payload.
struct NvInfoRecord {
  std::uint64_t offset = 0;      ///< the record's offset in the file
  std::uint8_t format = 0;       ///< an NvInfoFormat value, as read
  std::uint8_t attribute = 0;    ///< EIATTR code: 0x2f REGCOUNT, 0x17 KPARAM_INFO, ... (unknown codes are kept)
  std::uint16_t value = 0;       ///< NVAL, BVAL, HVAL: the value; SVAL: the payload's length in bytes
  std::vector<std::byte> payload;  ///< SVAL: the payload; empty otherwise
};

/// The name cuobjdump -elf gives an attribute ("EIATTR_REGCOUNT"), or
/// "EIATTR_UNKNOWN_0xNN" for a code the course does not know.
std::string attribute_name(std::uint8_t attribute);

/// Decodes the records of one info section.
/// The section is `.nv.info` or `.nv.info.<kernel>`, and its bytes start at
/// file offset section_offset. Every record is kept, in
/// order, whatever its attribute. Throws FormatError (naming the record's
/// offset) for a format that is not 1 to 4 or a record that runs past the
/// end of the section.
std::vector<NvInfoRecord> decode_nv_info(std::span<const std::byte> section, std::uint64_t section_offset);

/// A kernel parameter as EIATTR_KPARAM_INFO (or EIATTR_KPARAM_INFO_V2)
/// gives it.
struct KernelParam {
  std::uint32_t ordinal = 0;  ///< its position in the parameter list, from 0
  std::uint32_t offset = 0;   ///< its offset in the parameter buffer
  std::uint32_t size = 0;     ///< its size in bytes
  bool operator==(const KernelParam&) const = default;
};

/// What a cubin's `.nv.info` sections say about one kernel.
struct KernelInfo {
  std::string name;  ///< the kernel's symbol (mangled)
  /// EIATTR_REGCOUNT in `.nv.info` for the kernel's symbol: the registers
  /// per thread ptxas allocated.
  std::optional<std::uint32_t> registers;
  /// EIATTR_PARAM_CBANK: where the parameters start in constant bank 0...
  std::uint32_t param_base = 0;
  /// ...and how many bytes they take.
  std::uint32_t param_size = 0;
  /// EIATTR_KPARAM_INFO or EIATTR_KPARAM_INFO_V2, one per parameter,
  /// sorted by ordinal (a kernel has records of one attribute or the other).
  std::vector<KernelParam> params;
  /// EIATTR_MAX_THREADS ({x, y, z} from `__launch_bounds__`): x * y * z.
  std::optional<std::uint32_t> max_threads;
  /// EIATTR_FRAME_SIZE in `.nv.info` for the kernel's symbol: the bytes of
  /// stack (local memory) per thread.
  std::optional<std::uint32_t> frame_size;
  /// Every record of the kernel's own info section, in order.
  /// That is `.nv.info.<name>`; unknown attributes are included.
  std::vector<NvInfoRecord> records;
};

/// What a cubin holds: its architecture and its kernels.
struct CubinInfo {
  int arch = 0;                       ///< cubin_arch()
  /// One per kernel, in section order.
  /// A kernel is a `.text.<name>` section with a FUNC symbol that has STO_CUDA_ENTRY.
  std::vector<KernelInfo> kernels;
  std::vector<NvInfoRecord> module_records;  ///< the records of `.nv.info`, in order
};

/// Reads the kernels of a cubin from its `.nv.info` sections. In
/// `.nv.info`, the EIATTR_REGCOUNT, EIATTR_FRAME_SIZE (and
/// EIATTR_MIN_STACK_SIZE) records start with the u32 index of the kernel's
/// symbol in `.symtab`. In `.nv.info.<name>`: EIATTR_PARAM_CBANK is {u32
/// symbol, u16 offset, u16 size}, EIATTR_KPARAM_INFO is {u32 index, u16
/// ordinal, u16 offset, u32 flags} with the size in flags >> 18,
/// EIATTR_MAX_THREADS is {u32 x, u32 y, u32 z}. A kernel whose parameters
/// take more than 4,352 bytes in all has, from nvcc 13.0, one record of
/// attribute 0x45 (EIATTR_KPARAM_INFO_V2) per parameter instead of
/// EIATTR_KPARAM_INFO, on every architecture: 12 bytes, {u32 index, u16
/// ordinal, u16 offset, u16 size, u8 log-alignment, u8 space}, the size in
/// bytes as it is (no flags, not shifted). The last two bytes are what
/// cuobjdump -elf prints as "Pointee's logAlignment" and "Space" (nvdisasm
/// prints them `.byte 0x00, 0x05` for a pointer on sm_100 and sm_120, and
/// `.zero 2` elsewhere), not part of the size. Its parameters come from
/// those records: ordinal, offset and size, as cuobjdump -elf prints them.
/// Throws FormatError for a malformed section or a known record whose
/// payload is too short, and std::invalid_argument when the file is not a
/// cubin.
CubinInfo read_cubin(const ElfFile& elf);

// ---------------------------------------------------------------------------
// Part C: fatbins
// ---------------------------------------------------------------------------

inline constexpr std::uint32_t kWrapperMagic = 0x466243B1;    ///< FATBINC_MAGIC, CUDA's fatbinary_section.h
inline constexpr std::uint32_t kContainerMagic = 0xBA55ED50;  ///< the first word of every fatbin container
inline constexpr std::uint64_t kFlagCompressedLz4 = 0x2000;   ///< an entry compressed with LZ4 (older toolkits)
inline constexpr std::uint64_t kFlagCompressedZstd = 0x8000;  ///< an entry compressed with zstd (CUDA 13.0's nvcc)

/// The fatbin wrapper (`__fatBinC_Wrapper_t`, CUDA's fatbinary_section.h)
/// that a host file keeps in `.nvFatBinSegment`, 24 bytes each.
struct FatbinWrapper {
  std::uint64_t offset = 0;    ///< where it is in the file
  std::uint32_t magic = 0;     ///< kWrapperMagic
  std::uint32_t version = 0;   ///< 1, or 2 when the fatbin was device-linked (FATBINC_LINK_VERSION)
  std::uint64_t data = 0;      ///< the address of its container (0 in an object file: a relocation fills it)
  std::uint64_t filename_or_fatbins = 0;  ///< the fourth field, as stored
};

/// One entry of a container: a cubin (ELF) or a PTX text, for one architecture.
struct FatbinEntry {
  std::uint64_t offset = 0;          ///< where its header is in the file
  std::uint16_t kind = 0;            ///< 1 PTX, 2 ELF (other values kept as read)
  std::uint32_t header_size = 0;     ///< bytes of header before the payload (64, 80, 112, ... observed)
  std::uint64_t payload_offset = 0;  ///< where the payload is in the file: offset + header_size
  std::uint64_t payload_size = 0;    ///< the bytes after the header that belong to this entry
  std::uint32_t compressed_size = 0; ///< of a compressed payload, its exact length (the rest is padding); else 0
  std::uint16_t version_major = 0;   ///< for PTX the ISA version (9.0 with CUDA 13.0)
  std::uint16_t version_minor = 0;
  std::uint32_t arch = 0;            ///< 90 for sm_90 or compute_90
  /// kFlagCompressedZstd, kFlagCompressedLz4, 0x100000 for an
  /// architecture-specific target (cuobjdump: sm_90a), and others.
  std::uint64_t flags = 0;
  std::uint64_t uncompressed_size = 0;  ///< of a compressed payload, the size it inflates to; else payload_size

  /// Whether the payload is compressed (either flag).
  bool compressed() const { return (flags & (kFlagCompressedLz4 | kFlagCompressedZstd)) != 0; }
};

/// A container: a 16-byte header {u32 magic, u16 version, u16 header size,
/// u64 size of the entries} and its entries, back to back.
struct FatbinContainer {
  std::uint64_t offset = 0;       ///< where its header is in the file
  std::uint16_t version = 0;
  std::uint16_t header_size = 0;
  std::uint64_t size = 0;         ///< the bytes of entries after the header
  std::vector<FatbinEntry> entries;
};

/// Everything fatbin-related in a file.
struct FatbinFile {
  std::vector<FatbinWrapper> wrappers;      ///< from `.nvFatBinSegment`; none in a bare .fatbin
  std::vector<FatbinContainer> containers;  ///< in file order
};

/// Reads the containers that lie back to back in bytes (a bare .fatbin
/// file, or the contents of `.nv_fatbin`), bytes starting at file offset
/// base. Zero bytes between two containers (alignment) are skipped. Each
/// entry header is read as: u16 kind, u16 (unknown), u32 header size, u64
/// payload size, u32 compressed size, u32 (unknown), u16 minor, u16 major,
/// u32 arch, u32 name offset, u32 name length, u64 flags, u64 (unknown),
/// u64 uncompressed size; the next entry starts after header and payload.
/// Throws FormatError when a container's magic is wrong, when a header or
/// a payload runs past its container or past the bytes, or when an entry's
/// header size is smaller than 64: at the container's header when the
/// container itself does not fit, at the entry's header when an entry does
/// not fit in its container (FormatError lists them). A payload is never
/// read here.
std::vector<FatbinContainer> walk_containers(std::span<const std::byte> bytes, std::uint64_t base);

/// Reads the fatbins of any file that has some: a bare .fatbin (it starts
/// with kContainerMagic); a host ELF file (executable, shared library,
/// object) with `.nv_fatbin` and `.nvFatBinSegment` sections; or a cubin,
/// which becomes one container with one uncompressed ELF entry covering
/// the whole file (offset 0, header size 0, the cubin's architecture).
/// A host ELF file without `.nv_fatbin` has none. Throws FormatError for a
/// malformed file and when `.nvFatBinSegment`'s size is not a multiple of
/// 24 or a wrapper's magic is wrong.
///
/// It reads headers only, never a payload, so that listing a library of
/// hundreds of MiB costs little more than its headers: the tests give it
/// `libcublasLt.so.13` (over 500 MiB, 5,737 entries), mapped with
/// MappedFile, and want every entry listed within two seconds (on a
/// two-core machine); a reader that touches the payloads takes longer.
FatbinFile read_fatbin_file(std::span<const std::byte> bytes);

/// An entry's payload as the toolkit would use it: decompressed when it is
/// compressed with zstd (through zstd_decompress), the payload bytes
/// otherwise (padding included). Throws FormatError at the entry's header
/// (FatbinEntry::offset) when the payload lies outside the file, when
/// compressed_size is larger than the payload, or when it claims more than
/// 1 GiB inflated; and at the payload (FatbinEntry::payload_offset) when it
/// does not inflate to uncompressed_size bytes. Throws std::runtime_error,
/// not FormatError, for an LZ4 entry (not supported: the message says
/// "LZ4") and when libzstd is not available (zstd_decompress's error).
std::vector<std::byte> entry_payload(const FatbinEntry& entry, std::span<const std::byte> file);

// ---------------------------------------------------------------------------
// Given: files and zstd
// ---------------------------------------------------------------------------

/// A file's bytes, mapped into memory read-only (nothing is read until it is
/// touched, so a 500 MB library costs only the pages its headers live on).
class MappedFile {
 public:
  /// Maps the file; throws std::runtime_error naming it when it cannot.
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::span<const std::byte> bytes() const { return {data_, size_}; }

 private:
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Inflates a zstd frame (it starts with 28 b5 2f fd) to exactly
/// expected_size bytes, with the system's libzstd (libzstd.so.1, loaded on
/// first use). Throws std::runtime_error when libzstd cannot be loaded or
/// the data is not a valid frame of that size.
std::vector<std::byte> zstd_decompress(std::span<const std::byte> frame, std::size_t expected_size);

/// Whether zstd_decompress can work here (libzstd.so.1 loads).
bool zstd_available();

}  // namespace launchlab::containers
