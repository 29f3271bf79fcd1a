/// @file
/// The real launch: what libcuda wrote for a kernel launch, found in the
/// launching process's own memory and decoded with the code of labs 03, 04,
/// 06 and 07.
///
/// A CUDA program can read its own memory through /proc/self/mem. Among its
/// mappings are the ones the NVIDIA driver made of /dev/nvidiactl: memory in
/// RAM that the GPU reads too. After a launch, that memory holds the methods
/// libcuda wrote into the channel's pushbuffer (lab 06's format): uploads of
/// constant bank 0 and of the QMD (lab 07's format) through the compute
/// class's inline-to-memory methods, then SEND_PCAS_A with the QMD's address.
///
/// The lab's pipeline, one part per section of this header:
///
///  1. Mappings: parse /proc/self/maps and keep the driver's memory that may
///     be read (parse_maps, driver_memory).
///  2. Changes: a snapshot before and after a launch (take_snapshot, given),
///     the ranges of words that changed, and the ones that are method streams
///     (changed_ranges, method_streams).
///  3. Uploads and QMDs: the bytes each inline-to-memory upload wrote, and the
///     QMD each SEND_PCAS_A points at, decoded (inline_uploads, qmd_launches).
///  4. The check: constant bank 0 as uploaded, what the launch should have
///     produced from lab 03's reading of the cubin and lab 04's packing of
///     the arguments, and every field compared (constant_bank,
///     expected_launch, check_launch).
///
/// Everything here only reads. take_snapshot opens /proc/self/mem read-only
/// and refuses any mapping that is not the driver's memory in RAM: the
/// GPU's registers and its memory seen through /dev/nvidia0 are never read,
/// and nothing is ever written.
///
/// What the checks expect was measured on an NVIDIA H200 (sm_90, QMD
/// V04_00) with driver 580.159.04 and CUDA 13.0; chapter 12 shows the
/// captures it comes from. Bad input throws LaunchError (or the error type
/// of the lab whose code reported it), never crashes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "channels.h"
#include "containers.h"
#include "param_buffer.h"
#include "qmd.h"

namespace launchlab::real_launch {

/// What this lab throws for malformed input, memory it must not read, or a
/// stream it cannot decode.
class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Three numbers, x first: a grid or block size, or a cluster's.
using Dim3 = std::array<std::uint32_t, 3>;

// ---------------------------------------------------------------------------
// Part A: the process's mappings (proc(5), /proc/[pid]/maps)
// ---------------------------------------------------------------------------

/// One line of /proc/self/maps:
/// `7f9fdede0000-7f9fdede1000 rw-s 00000000 00:05 1041  /dev/nvidiactl`.
struct Mapping {
  std::uint64_t start = 0;  ///< the first address (hexadecimal in the file)
  std::uint64_t end = 0;    ///< one past the last address
  std::string perms;        ///< four letters: r or -, w or -, x or -, then s (shared) or p (private)
  std::uint64_t offset = 0; ///< offset in the mapped file or device (hexadecimal)
  std::string device;       ///< major:minor, as written ("00:05")
  std::uint64_t inode = 0;  ///< decimal
  std::string path;         ///< the rest of the line without the spaces before it; empty for anonymous memory

  /// end - start.
  std::uint64_t size() const { return end - start; }
  bool operator==(const Mapping&) const = default;
};

/// Parses the text of /proc/self/maps: one Mapping per non-empty line, in order.
///
/// The path is everything after the inode and the spaces that follow it, and
/// may itself contain spaces (`/tmp/my file (deleted)`).
///
/// @throws LaunchError for a line that does not have the five fields before
///         the path in their format (the message names the line's number,
///         from 1), or whose end is below its start
std::vector<Mapping> parse_maps(std::string_view text);

/// The driver's device file whose mappings hold memory in RAM.
inline constexpr std::string_view kControlDevice = "/dev/nvidiactl";

/// The mappings a program may read to see what the driver wrote for it:
/// those of kControlDevice that are readable (perms[0] is 'r') and shared
/// (perms[3] is 's'), in the order given. Every other mapping is left out:
/// /dev/nvidia0 maps the GPU's registers and its memory, /dev/nvidia-uvm
/// managed memory, and neither is to be read.
std::vector<Mapping> driver_memory(std::span<const Mapping> maps);

// ---------------------------------------------------------------------------
// Given: reading the process's own memory
// ---------------------------------------------------------------------------

/// Bytes of memory at one moment, starting at an address.
struct Region {
  std::uint64_t address = 0;
  std::vector<std::byte> bytes;
};

/// What some mappings held at one moment: one Region per mapping.
struct Snapshot {
  std::vector<Region> regions;

  /// The region that starts at @p address, or nullptr.
  const Region* find(std::uint64_t address) const;
};

/// The text of /proc/self/maps.
/// @throws LaunchError when it cannot be read
std::string read_own_maps();

/// Reads every given mapping through /proc/self/mem, opened read-only.
///
/// Only mappings that driver_memory would keep are read: any other throws
/// before anything is read, so that this function can never touch the GPU's
/// registers or memory. A page that cannot be read is left zero.
///
/// @throws LaunchError for a mapping that is not the driver's readable
///         shared memory, or when /proc/self/mem cannot be opened
Snapshot take_snapshot(std::span<const Mapping> mappings);

// ---------------------------------------------------------------------------
// Part B: what a launch changed
// ---------------------------------------------------------------------------

/// Changed words closer than this many bytes belong to one range. A QMD
/// holds runs of zero words, which are unchanged where the pushbuffer was
/// zero before; 1 KiB keeps a launch's methods in one range.
inline constexpr std::size_t kMergeGap = 1024;

/// A range of 32-bit words that changed, from the first changed word to the
/// last (unchanged words between them included).
struct Change {
  std::uint64_t address = 0;            ///< the address of the first word
  std::vector<std::uint32_t> before;    ///< the words before
  std::vector<std::uint32_t> after;     ///< the same words after
};

/// The ranges of words that differ between two snapshots, in address order.
///
/// A region of @p after is compared with the region of @p before that has
/// the same address and size, word by word (little-endian, from the region's
/// start; trailing bytes that do not make a whole word are ignored). A
/// region of @p after with no such region in @p before (a mapping that
/// appeared) is compared with zeros. Two changed words whose gap (the bytes
/// of unchanged words between them) is below @p merge_gap share a range;
/// ranges never span two regions.
std::vector<Change> changed_ranges(const Snapshot& before, const Snapshot& after, std::size_t merge_gap = kMergeGap);

/// A change that holds methods: where it starts and its method groups.
struct MethodStream {
  std::uint64_t address = 0;                     ///< the address of the first header
  std::vector<channels::MethodGroup> groups;     ///< lab 06's parse of all its words
};

/// The changes that are method streams, in order: those whose `after` words
/// lab 06's parse_pushbuffer accepts whole and whose groups send a QMD
/// (at least one call of SEND_PCAS_A, channels::compute_method::kSendPcasA,
/// on any subchannel). Other changes (semaphores the GPU released, counters)
/// are left out, whatever they hold.
std::vector<MethodStream> method_streams(std::span<const Change> changes);

// ---------------------------------------------------------------------------
// Part C: inline-to-memory uploads and the QMDs (HOPPER_COMPUTE_A, clcbc0.h)
// ---------------------------------------------------------------------------

/// The compute class's inline-to-memory methods: the same offsets in
/// AMPERE_COMPUTE_A (clc6c0.h), HOPPER_COMPUTE_A (clcbc0.h) and
/// BLACKWELL_COMPUTE_B (clcec0.h).
namespace i2m_method {
inline constexpr std::uint32_t kLineLengthIn = 0x0180;    ///< LINE_LENGTH_IN: bytes per line
inline constexpr std::uint32_t kLineCount = 0x0184;       ///< LINE_COUNT: lines
inline constexpr std::uint32_t kOffsetOutUpper = 0x0188;  ///< OFFSET_OUT_UPPER: destination bits 63:32 (24:0 used)
inline constexpr std::uint32_t kOffsetOut = 0x018c;       ///< OFFSET_OUT: destination bits 31:0
inline constexpr std::uint32_t kLaunchDma = 0x01b0;       ///< LAUNCH_DMA: starts an upload with the values above
inline constexpr std::uint32_t kLoadInlineData = 0x01b4;  ///< LOAD_INLINE_DATA: the upload's data, one word per call
}  // namespace i2m_method

/// One upload through the inline-to-memory methods: the bytes a LAUNCH_DMA
/// and the LOAD_INLINE_DATA words after it wrote to GPU memory.
struct InlineUpload {
  unsigned subchannel = 0;       ///< the subchannel of its LAUNCH_DMA
  std::uint64_t address = 0;     ///< OFFSET_OUT_UPPER:OFFSET_OUT when LAUNCH_DMA arrived
  std::uint32_t launch_dma = 0;  ///< LAUNCH_DMA's value (0x41 seen: pitch layout, no system membar)
  std::vector<std::byte> bytes;  ///< LINE_LENGTH_IN bytes: the data words, little-endian, cut to that length
  std::size_t group = 0;         ///< the index of the LAUNCH_DMA's group in the groups given

  bool operator==(const InlineUpload&) const = default;
};

/// The uploads of a method stream, in order.
///
/// Each subchannel keeps its own destination, line length and line count
/// from the methods above. LAUNCH_DMA starts an upload of LINE_LENGTH_IN
/// bytes, which takes ceil(LINE_LENGTH_IN / 4) LOAD_INLINE_DATA words on the
/// same subchannel; an upload of 0 bytes is complete at once.
///
/// @throws LaunchError for LOAD_INLINE_DATA with no upload in progress,
///         LAUNCH_DMA while one is still in progress, an upload still
///         incomplete at the end, or LINE_COUNT other than 1 at LAUNCH_DMA
///         (only uploads of one line are decoded)
std::vector<InlineUpload> inline_uploads(std::span<const channels::MethodGroup> groups);

/// QMD_TYPE_GRID_NULL (clcbc0qmd.h): a QMD that launches no threads.
inline constexpr unsigned kQmdTypeGridNull = 1;

/// A QMD a stream handed to the compute engine with SEND_PCAS_A.
struct QmdLaunch {
  unsigned subchannel = 0;            ///< the subchannel of SEND_PCAS_A
  std::uint64_t address = 0;          ///< SEND_PCAS_A's value << 8
  std::uint32_t pcas_action = 0;      ///< PCAS_ACTION (3:0) of the SEND_SIGNALING_PCAS2_B that follows on the subchannel
  std::vector<std::uint32_t> words;   ///< the QMD, from the last upload to its address before SEND_PCAS_A
  qmd::Qmd qmd;                       ///< lab 07's decode of the words
  /// QMD_TYPE: MW(25:23) in V04_00, MW(153:151) in V05_00; nothing for V03_00,
  /// which has no such field.
  std::optional<unsigned> type;

  /// Whether it launches threads: any QMD whose type is not kQmdTypeGridNull.
  bool launches_threads() const { return !type || *type != kQmdTypeGridNull; }
};

/// Every SEND_PCAS_A of a stream, with its QMD, in order.
///
/// The QMD is the most recent upload, before SEND_PCAS_A's group, whose
/// address is the QMD address and whose size is qmd::qmd_words(version) * 4
/// bytes; it is decoded with lab 07's qmd::decode.
///
/// @throws LaunchError when SEND_PCAS_A is not followed by
///         SEND_SIGNALING_PCAS2_B on its subchannel, or no upload of the
///         stream wrote a QMD at its address (libcuda may write QMDs some
///         other way: then this lab cannot decode them)
/// @throws qmd::QmdError when lab 07 refuses the QMD (a version field that
///         disagrees with @p version)
std::vector<QmdLaunch> qmd_launches(std::span<const channels::MethodGroup> groups,
                                    std::span<const InlineUpload> uploads, qmd::QmdVersion version);

// ---------------------------------------------------------------------------
// Part D: the kernel's launch, checked
// ---------------------------------------------------------------------------

/// Constant bank 0 as the stream uploaded it: the bytes from the bank's
/// address (qmd.cbank0.address) up to the first byte that no upload writes,
/// each byte from the last upload, in stream order, that wrote it. Only
/// uploads that start inside [address, address + qmd.cbank0.size) count, and
/// their bytes past the bank's end are left out.
///
/// @throws LaunchError when no upload writes the bank's first byte
std::vector<std::byte> constant_bank(const qmd::Qmd& qmd, std::span<const InlineUpload> uploads);

/// The start of constant bank 0 on sm_90: blockDim at c[0x0][0x0], gridDim at
/// c[0x0][0xc] (what the kernel's SASS reads for them).
struct BankHeader {
  Dim3 block_dim{};  ///< three u32 at 0x0, 0x4, 0x8
  Dim3 grid_dim{};   ///< three u32 at 0xc, 0x10, 0x14
  bool operator==(const BankHeader&) const = default;
};

/// Reads the header.
/// @throws LaunchError when the bank holds fewer than 24 bytes
BankHeader read_bank_header(std::span<const std::byte> bank);

/// A launch as the CUDA side saw it.
struct LaunchRecord {
  std::string kernel;                ///< the kernel's name (its symbol)
  std::string api;                   ///< "cuLaunchKernel", "cuLaunchKernelEx", "cudaLaunchKernel", "<<<>>>"
  Dim3 grid{1, 1, 1};                ///< gridDim
  Dim3 block{1, 1, 1};               ///< blockDim
  /// The cluster given at launch (cuLaunchKernelEx's
  /// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION), or else the one the kernel
  /// requires (`__cluster_dims__`); {0, 0, 0} for none.
  Dim3 cluster{0, 0, 0};
  std::uint32_t shared_dynamic = 0;  ///< the launch's dynamic shared memory, in bytes
  int stream = 0;                    ///< which stream: 0 the NULL stream, else the program's own numbering
  std::vector<std::vector<std::byte>> values;  ///< each argument's bytes, in parameter order
};

/// What a launch should produce, derived from the launch, the cubin and the
/// arguments (expected_launch), in the units of qmd::Qmd.
struct ExpectedLaunch {
  Dim3 qmd_grid{};                   ///< the QMD's grid: in clusters when there is a cluster
  Dim3 block{};                      ///< the QMD's block, and blockDim in the bank
  Dim3 grid_dim{};                   ///< gridDim in the bank: the launch's grid, in blocks
  std::uint32_t registers = 0;       ///< the QMD's REGISTER_COUNT
  std::uint32_t shared_memory = 0;   ///< the QMD's SHARED_MEMORY_SIZE, in bytes
  std::uint32_t barrier_count = 0;   ///< the QMD's BARRIER_COUNT
  std::uint32_t sass_version = 0;    ///< the QMD's SASS_VERSION
  std::uint32_t param_base = 0;      ///< where the parameters start in constant bank 0
  std::uint32_t bank_size = 0;       ///< the QMD's constant bank 0 size, in bytes
  std::vector<std::byte> params;     ///< the parameter bytes the bank holds at param_base
  std::vector<std::byte> code;       ///< the kernel's code (its .text section in the cubin)
};

/// The facts of one kernel that expected_launch takes from the device.
struct DeviceFacts {
  /// Shared memory the system keeps in every block on this device, in bytes
  /// (CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: 1024 on an
  /// H200). nvcc 13.0's cubin already counts it in `.nv.shared.<kernel>`,
  /// whose size is this plus the kernel's static shared memory.
  std::uint32_t reserved_shared = 1024;
};

/// What a launch of @p record.kernel should produce, from lab 03's reading of
/// the cubin it was loaded from and lab 04's packing of its arguments. The
/// rules, as measured on an H200 with driver 580.159.04 (chapter 12):
///
/// - qmd_grid: the launch's grid divided by the cluster, dimension by
///   dimension, where there is a cluster; the grid itself otherwise;
///   grid_dim the grid; block the block.
/// - registers: EIATTR_REGCOUNT, but at least 16.
/// - shared_memory: the size of `.nv.shared.<kernel>` (reserved and static
///   shared memory; facts.reserved_shared when the cubin has no such
///   section) plus the dynamic shared memory, rounded up to a multiple of 128.
/// - barrier_count: EIATTR_NUM_BARRIERS (0x4c) of `.nv.info.<kernel>`, at
///   least 1.
/// - sass_version: the cubin's architecture as two hexadecimal digits
///   (sm_90 is 0x90).
/// - param_base: EIATTR_PARAM_CBANK's offset (a kernel without parameters
///   has no such record: then the size of `.nv.constant0.<kernel>`, where
///   they would start); bank_size: the size of `.nv.constant0.<kernel>` (the
///   bank's header and the parameters), rounded up to a multiple of 256.
/// - params: lab 04's pack of @p record.values into the layout nvcc
///   recorded (each parameter at its offset with its size; the buffer as long
///   as EIATTR_PARAM_CBANK's size). The layout is lab 03's
///   KernelInfo::params (EIATTR_KPARAM_INFO); a kernel whose parameters pass
///   4,352 bytes has EIATTR_KPARAM_INFO_V2 (0x45) records instead, which lab
///   03 keeps in KernelInfo::records: the same 12 bytes, {u32 index, u16
///   ordinal, u16 offset, u32}, with the size in the low 16 bits of the last
///   word.
/// - code: the bytes of `.text.<kernel>`.
///
/// @throws LaunchError when the cubin has no kernel of that name or no
///         `.nv.constant0.<kernel>`, or the cluster does not divide the grid
/// @throws containers::FormatError from lab 03 for a malformed cubin, and
///         std::invalid_argument from lab 04 when the values do not fit the layout
ExpectedLaunch expected_launch(const containers::ElfFile& cubin, const LaunchRecord& record, const DeviceFacts& facts);

/// One field of a decoded launch that is not what was expected.
struct Mismatch {
  std::string field;     ///< "grid", "block", "registers", "shared_memory", "barrier_count", "sass_version",
                         ///< "bank_size", "bank_valid", "bank_block_dim", "bank_grid_dim", "params", "code"
  std::string expected;  ///< the expected value, as text
  std::string found;     ///< the decoded value, as text

  bool operator==(const Mismatch&) const = default;
};

/// Compares a decoded launch with what was expected, field by field, in the
/// order of Mismatch::field: the QMD's grid (with qmd_grid), block,
/// registers, shared memory, barrier count, SASS version, constant bank 0's
/// size and valid bit, then the bank's header (block_dim, grid_dim) and the
/// @p expected.params.size() bytes at param_base, then the code.
///
/// @p code is what the GPU holds at the QMD's program address, when it could
/// be read back: it and expected.code match when neither is empty and the
/// shorter is the start of the longer; it is not compared when empty. Numbers are written in decimal,
/// dimensions as `(1021, 5, 7)`, the valid bit as `true` or `false`. Two byte
/// strings that differ are reported by their first differing byte, as
/// `at 3: 0x2a` on each side, or, when one is the start of the other, by their
/// lengths, as `16 bytes`. A bank too short for its header gives `N bytes of
/// bank` as found for both header fields.
///
/// @return every field that differs; empty when the launch is what was expected
std::vector<Mismatch> check_launch(const qmd::Qmd& qmd, std::span<const std::byte> bank, const ExpectedLaunch& expected,
                                   std::span<const std::byte> code = {});

// ---------------------------------------------------------------------------
// Given: captures (labs/12_real_launch/captures)
// ---------------------------------------------------------------------------

/// Memory a capture read back from the GPU after the launch, at an address a
/// QMD named.
struct ReadBack {
  std::uint64_t address = 0;
  std::string what;               ///< "code" or "constant_bank"
  std::vector<std::byte> bytes;
};

/// One capture file: the launches as the CUDA side saw them and the memory
/// that changed in the driver's mappings, before and after.
struct Capture {
  std::string name;                                    ///< the shape's name
  std::string note;                                    ///< what the shape is
  std::string gpu;                                     ///< "NVIDIA H200"
  std::string driver;                                  ///< "580.159.04"
  int arch = 0;                                        ///< 90
  std::map<std::string, std::int64_t> device;          ///< device attributes, by name ("reserved_shared_per_block")
  std::vector<LaunchRecord> launches;                  ///< in the order they were made
  std::map<std::string, std::map<std::string, std::int64_t>> attributes;  ///< the driver's attributes, by kernel
  std::map<std::string, std::vector<std::pair<std::uint32_t, std::uint32_t>>> param_info;  ///< cuFuncGetParamInfo (offset, size), by kernel
  std::map<std::string, std::string> cubins;           ///< the cubin file of each kernel, by kernel
  std::vector<Mapping> mappings;                       ///< the nvidia device mappings
  Snapshot before;                                     ///< the windows that changed, as they were before
  Snapshot after;                                      ///< the same windows after the launches
  std::vector<ReadBack> read_back;                     ///< code and constant banks read back after the launch
};

/// Reads a capture file (the format is described in the captures' README.md).
/// @throws LaunchError naming the line for anything malformed
Capture read_capture(std::string_view text);

/// The QMD version of an architecture: V03_00 up to sm_89, V04_00 for
/// sm_90, V05_00 from sm_100 on.
qmd::QmdVersion qmd_version_of_arch(int arch);

}  // namespace launchlab::real_launch
