/// @file
/// A channel: how the CPU hands work to the GPU, and a CPU model of the unit
/// that takes it.
///
/// The driver writes *methods* (a method number and a 32-bit value) into a
/// *pushbuffer* in memory, puts an entry pointing at that pushbuffer segment
/// into the channel's *GPFIFO* ring, moves the ring's GP_PUT index in the
/// channel's USERD page and writes the channel's token to a *doorbell*
/// register. The GPU's host unit then fetches the entries from GP_GET up to
/// GP_PUT, turns the pushbuffer into method calls, executes its own methods
/// and passes the rest to the engine bound to each *subchannel*; a compute
/// launch hands the engine a QMD (chapter 07_qmd).
///
/// Encodings are NVIDIA's: clc56f.h (AMPERE_CHANNEL_GPFIFO_A: method headers,
/// GPFIFO entries, USERD, host methods), clc361.h (the usermode doorbell)
/// and the compute classes' headers clc6c0.h, clcbc0.h, clcdc0.h and clcec0.h
/// (launch methods), in NVIDIA/open-gpu-kernel-modules and NVIDIA/open-gpu-doc.
///
/// Every function here reports bad input by throwing ChannelError (or
/// qmd::QmdError from chapter 07's code), never by crashing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "qmd.h"

namespace launchlab::channels {

/// What this lab throws for a malformed method, entry or stream, a bad
/// memory access, or anything the model does not do.
class ChannelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------
// Part A: methods and the pushbuffer (clc56f.h, "dma method formats")
// ---------------------------------------------------------------------------

/// The kinds of method header (NVC56F_DMA_SEC_OP, bits 31:29), by value.
enum class SecOp : std::uint32_t {
  Inc = 1,     ///< INC_METHOD: COUNT data words to method, method + 4, method + 8, ...
  NonInc = 3,  ///< NON_INC_METHOD: COUNT data words, all to the same method
  Immd = 4,    ///< IMMD_DATA_METHOD: no data words; bits 28:16 are the one value for the method
  OneInc = 5,  ///< ONE_INC: COUNT data words, the first to method, the others to method + 4
};

/// "INC", "NON_INC", "IMMD" or "ONE_INC".
std::string_view to_string(SecOp op);

/// The largest COUNT (bits 28:16), and the largest immediate value.
inline constexpr std::uint32_t kMaxMethodCount = 0x1fff;
/// The largest method byte offset: ADDRESS (bits 11:0) holds the offset / 4.
inline constexpr std::uint32_t kMaxMethod = 0x3ffc;
/// Subchannels 0 to 7 (NVC56F_NUMBER_OF_SUBCHANNELS); bits 15:13 select one.
inline constexpr unsigned kSubchannels = 8;

/// One method header word, decoded.
struct MethodHeader {
  SecOp sec_op = SecOp::Inc;  ///< SEC_OP, bits 31:29
  unsigned subchannel = 0;    ///< SUBCHANNEL, bits 15:13
  std::uint32_t method = 0;   ///< the method's byte offset (SEND_PCAS_A is 0x2b4); ADDRESS, bits 11:0, holds method / 4
  /// COUNT, bits 28:16: how many data words follow the header. For
  /// SecOp::Immd the same bits are IMMD_DATA, the method's value, and no
  /// data word follows.
  std::uint32_t count = 0;

  bool operator==(const MethodHeader&) const = default;
};

/// Encodes a method header word.
///
/// SEND_PCAS_A (0x2b4) on subchannel 1 with one data word is `{SecOp::Inc,
/// 1, 0x2b4, 1}`, the word 0x200120AD.
///
/// @throws ChannelError for a subchannel above 7, a method that is not a
///         multiple of 4 or is above kMaxMethod, a count (or immediate value)
///         above kMaxMethodCount, or a sec_op that is none of the four
std::uint32_t encode_method_header(const MethodHeader& header);

/// Decodes a method header word.
/// @throws ChannelError when SEC_OP is not INC, NON_INC, IMMD or ONE_INC (the
///         message names the SEC_OP value)
MethodHeader decode_method_header(std::uint32_t word);

/// One method header and its data, as it stands in a pushbuffer.
struct MethodGroup {
  std::size_t offset = 0;            ///< the index of the header word in the pushbuffer
  MethodHeader header;               ///< the header
  std::vector<std::uint32_t> data;   ///< the data words; for SecOp::Immd, the one immediate value

  bool operator==(const MethodGroup&) const = default;
};

/// One method call: a value for a method on a subchannel. The host unit
/// turns each group into these.
struct MethodCall {
  unsigned subchannel = 0;
  std::uint32_t method = 0;  ///< byte offset
  std::uint32_t data = 0;

  bool operator==(const MethodCall&) const = default;
};

/// Splits a pushbuffer segment into method groups, in order.
///
/// @param words the segment, word 0 first
/// @return every group; a COUNT of 0 makes a group without data
/// @throws ChannelError when a header cannot be decoded, when the words end
///         before a group's COUNT data words, or when an INC or ONE_INC group
///         would run its method past kMaxMethod (the host raises an interrupt
///         for both, dev_pbdma.ref); the message names the word index of the
///         header, counted from 0, in decimal ("pushbuffer word 4: ...")
std::vector<MethodGroup> parse_pushbuffer(std::span<const std::uint32_t> words);

/// The method calls of one group: which method each data word goes to.
std::vector<MethodCall> method_calls(const MethodGroup& group);

// ---------------------------------------------------------------------------
// Part B: GPFIFO entries (clc56f.h, "GPFIFO entry format")
// ---------------------------------------------------------------------------

/// GP_ENTRY1_LEVEL: whether the host reports its progress through the segment
/// in USERD's TOP_LEVEL_GET (MAIN) or not (SUBROUTINE).
enum class GpLevel : std::uint32_t { Main = 0, Subroutine = 1 };

/// One GPFIFO entry: where a pushbuffer segment is and how long it is.
struct GpEntry {
  std::uint64_t address = 0;       ///< byte address of the segment: a multiple of 4, below 2^40
  std::uint32_t length = 0;        ///< LENGTH, in 32-bit words, at most 2^21 - 1; 0 makes a control entry
  GpLevel level = GpLevel::Main;   ///< LEVEL
  bool sync_wait = false;          ///< SYNC_WAIT: wait until the previous segment is processed
  bool fetch_conditional = false;  ///< ENTRY0 FETCH_CONDITIONAL (subdevice masks; the model refuses it)

  bool operator==(const GpEntry&) const = default;
};

/// The two words of an entry, ENTRY0 first (as they lie in memory).
///
/// Address 0x1000002000, 10 words, LEVEL_SUBROUTINE gives {0x2000, 0x2a10}.
/// @throws ChannelError when the address is not a multiple of 4 or not below
///         2^40, or the length does not fit in 21 bits
std::array<std::uint32_t, 2> encode_gp_entry(const GpEntry& entry);

/// Decodes ENTRY0 and ENTRY1. Bit 1 of ENTRY0 and bit 8 of ENTRY1, which
/// clc56f.h leaves undefined, are ignored. For a control entry (LENGTH 0) the
/// address fields are returned as they are; ENTRY1 bits 7:0 are then its OPCODE.
GpEntry decode_gp_entry(std::uint32_t entry0, std::uint32_t entry1);

/// A control entry's OPCODE NOP (NVC56F_GP_ENTRY1_OPCODE_NOP in clc56f.h):
/// the only control entry the model runs.
inline constexpr std::uint32_t kGpEntryOpcodeNop = 0;

// ---------------------------------------------------------------------------
// Part C: a CPU model of a channel
//
// The model's engine reads each QMD with chapter 07's decoder, and the tests
// build their QMDs with chapter 07's encoder: the tests of a whole launch
// (HostEngine.*, Channel.SeveralEntriesInFlight, Finale.*) pass only once
// lab 07's codec is done. Before that they fail with whatever the model
// makes of a QMD the starter decodes as zeros (a program address of 0).
// ---------------------------------------------------------------------------

/// USERD (Nvc56fControl in clc56f.h): GP_GET, the index of the next entry
/// the host will read, at byte 0x88 ...
inline constexpr std::uint32_t kUserdGpGet = 0x88;
/// ... and GP_PUT, the index one past the last entry the driver wrote, at 0x8c.
inline constexpr std::uint32_t kUserdGpPut = 0x8c;
/// The size of the USERD structure, 512 bytes.
inline constexpr std::uint32_t kUserdSize = 0x200;
/// One GPFIFO entry is 8 bytes (NVC56F_GP_ENTRY__SIZE).
inline constexpr std::uint32_t kGpEntrySize = 8;
/// The doorbell: NOTIFY_CHANNEL_PENDING of the usermode region (clc361.h).
inline constexpr std::uint32_t kNotifyChannelPending = 0x90;

/// Host methods (clc56f.h), executed by the host unit whatever the subchannel.
namespace host_method {
inline constexpr std::uint32_t kSetObject = 0x0000;          ///< SET_OBJECT: bits 15:0 the class; also sent to the engine
inline constexpr std::uint32_t kNop = 0x0008;                ///< NOP
inline constexpr std::uint32_t kNonStallInterrupt = 0x0020;  ///< NON_STALL_INTERRUPT
inline constexpr std::uint32_t kSemAddrLo = 0x005c;          ///< SEM_ADDR_LO: semaphore address bits 31:2
inline constexpr std::uint32_t kSemAddrHi = 0x0060;          ///< SEM_ADDR_HI: semaphore address bits 39:32 (in 7:0)
inline constexpr std::uint32_t kSemPayloadLo = 0x0064;       ///< SEM_PAYLOAD_LO
inline constexpr std::uint32_t kSemPayloadHi = 0x0068;       ///< SEM_PAYLOAD_HI
inline constexpr std::uint32_t kSemExecute = 0x006c;         ///< SEM_EXECUTE: OPERATION 2:0, RELEASE_WFI 20, PAYLOAD_SIZE 24
inline constexpr std::uint32_t kWfi = 0x0078;                ///< WFI: wait for the engines to go idle
inline constexpr std::uint32_t kSemExecuteRelease = 1;        ///< SEM_EXECUTE_OPERATION_RELEASE
inline constexpr std::uint32_t kSemExecuteReleaseWfi = 1u << 20;   ///< SEM_EXECUTE_RELEASE_WFI_EN
inline constexpr std::uint32_t kSemExecutePayload64 = 1u << 24;    ///< SEM_EXECUTE_PAYLOAD_SIZE_64BIT
}  // namespace host_method

/// Compute class methods: the same offsets in AMPERE_COMPUTE_A (clc6c0.h),
/// HOPPER_COMPUTE_A (clcbc0.h), BLACKWELL_COMPUTE_A (clcdc0.h) and
/// BLACKWELL_COMPUTE_B (clcec0.h).
namespace compute_method {
inline constexpr std::uint32_t kNoOperation = 0x0100;              ///< NO_OPERATION
inline constexpr std::uint32_t kWaitForIdle = 0x0110;              ///< WAIT_FOR_IDLE
inline constexpr std::uint32_t kSendPcasA = 0x02b4;                ///< SEND_PCAS_A: QMD address >> 8
inline constexpr std::uint32_t kSendSignalingPcas2B = 0x02c0;      ///< SEND_SIGNALING_PCAS2_B: PCAS_ACTION in 3:0
inline constexpr std::uint32_t kSetInlineQmdAddressA = 0x0318;     ///< SET_INLINE_QMD_ADDRESS_A: (QMD address >> 8) >> 32
inline constexpr std::uint32_t kSetInlineQmdAddressB = 0x031c;     ///< SET_INLINE_QMD_ADDRESS_B: low 32 bits of QMD address >> 8
inline constexpr std::uint32_t kLoadInlineQmdData = 0x0320;        ///< LOAD_INLINE_QMD_DATA(i) is 0x320 + 4 i
inline constexpr std::uint32_t kInlineSize384 = 1u << 30;          ///< SET_INLINE_QMD_ADDRESS_A INLINE_SIZE_384 (clcbc0.h, clcdc0.h, clcec0.h)
inline constexpr std::uint32_t kPcasActionInvalidateCopySchedule = 3;  ///< PCAS_ACTION_INVALIDATE_COPY_SCHEDULE
}  // namespace compute_method

/// Compute classes by number, from the class headers.
namespace compute_class {
inline constexpr std::uint32_t kAmpereA = 0xC6C0;     ///< AMPERE_COMPUTE_A, QMD V03_00
inline constexpr std::uint32_t kAmpereB = 0xC7C0;     ///< AMPERE_COMPUTE_B, QMD V03_00
inline constexpr std::uint32_t kAdaA = 0xC9C0;        ///< ADA_COMPUTE_A, QMD V03_00
inline constexpr std::uint32_t kHopperA = 0xCBC0;     ///< HOPPER_COMPUTE_A, QMD V04_00
inline constexpr std::uint32_t kBlackwellA = 0xCDC0;  ///< BLACKWELL_COMPUTE_A, QMD V05_00
inline constexpr std::uint32_t kBlackwellB = 0xCEC0;  ///< BLACKWELL_COMPUTE_B, QMD V05_00
}  // namespace compute_class

/// The QMD version a compute class takes, or nothing for a class that is
/// none of those in compute_class.
std::optional<qmd::QmdVersion> qmd_version_of_class(std::uint32_t class_id);

/// The name of a host method (below 0x100) or a compute class method ("SEND_PCAS_A",
/// "LOAD_INLINE_QMD_DATA(5)"), or nothing when the lab does not know it.
std::optional<std::string> method_name(std::uint32_t method);

/// Simulated GPU memory: separate allocations in a 64-bit GPU virtual address
/// space. Any access outside an allocation, or across its end, throws
/// ChannelError: the model's page fault.
class GpuMemory {
 public:
  /// A new zeroed allocation of @p bytes, aligned to @p alignment (a power of
  /// two), with unmapped space around it.
  std::uint64_t allocate(std::size_t bytes, std::size_t alignment = 256);

  /// The @p size bytes at @p address, which must lie inside one allocation.
  std::byte* bytes(std::uint64_t address, std::size_t size);
  const std::byte* bytes(std::uint64_t address, std::size_t size) const;

  std::uint32_t read32(std::uint64_t address) const;
  void write32(std::uint64_t address, std::uint32_t value);
  std::uint64_t read64(std::uint64_t address) const;
  void write64(std::uint64_t address, std::uint64_t value);
  std::vector<std::uint32_t> read_words(std::uint64_t address, std::size_t count) const;
  void write_words(std::uint64_t address, std::span<const std::uint32_t> words);

  /// A value of type T (trivially copyable) at @p address.
  template <class T>
  T load(std::uint64_t address) const {
    T value;
    std::memcpy(&value, bytes(address, sizeof(T)), sizeof(T));
    return value;
  }
  /// Stores a value of type T at @p address.
  template <class T>
  void store(std::uint64_t address, const T& value) {
    std::memcpy(bytes(address, sizeof(T)), &value, sizeof(T));
  }

 private:
  std::map<std::uint64_t, std::vector<std::byte>> allocations_;  // by start address
  std::uint64_t next_ = 0x100000000ull;
};

/// What a kernel sees while it runs for one thread.
struct ThreadContext {
  std::array<std::uint32_t, 3> grid_dim{};    ///< gridDim
  std::array<std::uint32_t, 3> block_dim{};   ///< blockDim
  std::array<std::uint32_t, 3> block_idx{};   ///< blockIdx
  std::array<std::uint32_t, 3> thread_idx{};  ///< threadIdx
  qmd::ConstantBank cbank0;                   ///< constant bank 0, from the QMD
  GpuMemory* memory = nullptr;                ///< global memory

  /// A value of type T at byte @p offset of constant bank 0 (c[0x0][offset]).
  /// @throws ChannelError when it reaches past the bank's size
  template <class T>
  T param(std::uint32_t offset) const {
    if (static_cast<std::uint64_t>(offset) + sizeof(T) > cbank0.size) {
      throw ChannelError("c[0x0][" + std::to_string(offset) + "] is past the end of constant bank 0 (" +
                         std::to_string(cbank0.size) + " bytes)");
    }
    return memory->load<T>(cbank0.address + offset);
  }
};

/// The most threads one grid of the model may have (the model runs them one
/// after the other on one CPU core).
inline constexpr std::uint64_t kMaxModelThreads = std::uint64_t{1} << 26;

/// A kernel of the model: a C++ function run once per thread of the grid.
using Kernel = std::function<void(const ThreadContext&)>;

class HostEngine;

/// The driver's side of one channel: its GPFIFO ring and its USERD page,
/// both in GPU memory, and the work-submit token its doorbell writes.
class Channel {
 public:
  /// Allocates the ring (@p gpfifo_entries entries of 8 bytes) and USERD in
  /// @p memory, with GP_GET = GP_PUT = 0, and attaches the channel to @p host.
  /// @throws ChannelError when gpfifo_entries is not between 2 and 2^20
  Channel(GpuMemory& memory, HostEngine& host, std::size_t gpfifo_entries, std::uint32_t work_submit_token);
  Channel(const Channel&) = delete;  ///< the host engine keeps a pointer to the channel
  Channel& operator=(const Channel&) = delete;

  std::uint64_t gpfifo_address() const { return gpfifo_; }
  std::uint64_t userd_address() const { return userd_; }
  std::size_t gpfifo_entries() const { return entries_; }
  std::uint32_t token() const { return token_; }
  GpuMemory& memory() const { return *memory_; }
  /// GP_PUT, as USERD holds it.
  std::uint32_t gp_put() const;
  /// GP_GET, as USERD holds it.
  std::uint32_t gp_get() const;

  /// Writes @p entry into the ring at GP_PUT and advances GP_PUT by one
  /// (wrapping at gpfifo_entries()) in USERD. The GPU is not told: that is
  /// ring_doorbell().
  /// @return false, and nothing written, when the ring is full: one slot
  ///         always stays empty, so that GP_PUT == GP_GET means empty
  /// @throws ChannelError when the entry cannot be encoded
  bool submit(const GpEntry& entry);

  /// Copies @p words into a new allocation and submits an entry for them.
  /// @return false when the ring is full
  bool submit_pushbuffer(std::span<const std::uint32_t> words, GpLevel level = GpLevel::Main);

  /// Rings the doorbell: writes the channel's token to the usermode region's
  /// NOTIFY_CHANNEL_PENDING (kNotifyChannelPending) through
  /// HostEngine::usermode_write.
  void ring_doorbell();

 private:
  GpuMemory* memory_;
  HostEngine* host_;
  std::uint64_t gpfifo_ = 0;
  std::uint64_t userd_ = 0;
  std::size_t entries_ = 0;
  std::uint32_t token_ = 0;
};

/// What the host unit keeps for one channel between method calls.
struct ChannelState {
  std::array<std::uint32_t, kSubchannels> subchannel_class{};  ///< the class SET_OBJECT bound to each subchannel, 0 for none
  std::uint64_t semaphore_address = 0;       ///< from SEM_ADDR_LO and SEM_ADDR_HI
  std::uint64_t semaphore_payload = 0;       ///< from SEM_PAYLOAD_LO and SEM_PAYLOAD_HI
  std::uint64_t inline_qmd_address = 0;      ///< from SET_INLINE_QMD_ADDRESS_A and _B
  std::size_t inline_qmd_words = 0;          ///< how many LOAD_INLINE_QMD_DATA words make the QMD (64 or 96)
  std::vector<std::uint32_t> inline_qmd;     ///< the LOAD_INLINE_QMD_DATA words received so far
  std::uint64_t pcas_qmd_address = 0;        ///< from SEND_PCAS_A
  std::size_t non_stall_interrupts = 0;      ///< NON_STALL_INTERRUPT methods seen
};

/// One grid the model ran.
struct Launch {
  qmd::Qmd qmd;                  ///< the QMD, decoded
  std::uint64_t qmd_address = 0; ///< where the QMD was (inline launches: SET_INLINE_QMD_ADDRESS)
  bool inline_qmd = false;       ///< handed over with LOAD_INLINE_QMD_DATA, not SEND_PCAS_A
};

/// The GPU's side: the host unit that reads GPFIFO entries and pushbuffers,
/// and a compute engine that runs each grid's kernel on the CPU.
class HostEngine {
 public:
  explicit HostEngine(GpuMemory& memory) : memory_(&memory) {}

  /// Makes @p kernel the code at @p program_address: a QMD whose program
  /// address is this runs it.
  void register_kernel(std::uint64_t program_address, Kernel kernel);

  /// Called by Channel's constructor: the token the channel's doorbell writes.
  void attach(Channel& channel);

  /// A 32-bit write to the usermode region (clc361.h). A write of a token to
  /// kNotifyChannelPending runs notify_channel_pending(token).
  /// @throws ChannelError for any other offset
  void usermode_write(std::uint32_t offset, std::uint32_t value);

  /// The doorbell rang for the channel with @p token: processes its GPFIFO
  /// entries from GP_GET up to GP_PUT (both read from USERD). For each entry:
  /// fetch the segment, parse it, execute every method call in order, then
  /// advance GP_GET (wrapping) in USERD. A control entry (LENGTH 0) whose
  /// OPCODE is kGpEntryOpcodeNop does nothing but advance GP_GET; a control
  /// entry with another OPCODE, and an entry with FETCH_CONDITIONAL, are
  /// errors of that entry.
  /// @throws ChannelError for an unknown token, and for any error while
  ///         processing an entry, whatever threw it (a qmd::QmdError or a
  ///         page fault of GpuMemory becomes a ChannelError too); the
  ///         message names the entry's GP_GET index, GP_GET still points at
  ///         that entry, and the entries before it have been processed
  void notify_channel_pending(std::uint32_t token);

  /// Executes one method call of a channel: host methods (below 0x100) here,
  /// SET_OBJECT binding the subchannel's class, and the launch methods of a
  /// compute class on a subchannel bound to one. An inline QMD is as many
  /// words as its class's QMD version has (qmd::qmd_words: 64 for V03_00,
  /// 96 for V04_00 and V05_00), its words arrive in order
  /// (LOAD_INLINE_QMD_DATA(i) when i words have arrived), and it launches
  /// when its last word arrives (and is stored at its address); a QMD in
  /// memory launches at SEND_SIGNALING_PCAS2_B with PCAS_ACTION SCHEDULE
  /// (2), INVALIDATE_COPY_SCHEDULE (3), PREFETCH_SCHEDULE (9) or
  /// INVALIDATE_PREFETCH_COPY_SCHEDULE (10); PCAS_ACTION NOP (0) does nothing,
  /// and any other action throws. The compute class's NO_OPERATION and
  /// WAIT_FOR_IDLE do nothing (the model's work is done when execute returns).
  /// The QMD is decoded as the version of the class bound to the subchannel
  /// (qmd_version_of_class): a QMD of another version does not launch.
  /// A host semaphore release (SEM_EXECUTE with OPERATION_RELEASE) writes the
  /// payload, 4 or 8 bytes (PAYLOAD_SIZE), at the semaphore address.
  /// @throws ChannelError for a method the model does not implement (or a
  ///         SEM_EXECUTE operation other than RELEASE), a compute method on a
  ///         subchannel without a compute class, a class that is not a
  ///         compute class, inline QMD words out of order, a PCAS_ACTION
  ///         the model does not run, or a 64-bit release whose address is not
  ///         a multiple of 8; qmd::QmdError for a QMD of the wrong version
  void execute(ChannelState& state, const MethodCall& call);

  /// Runs a grid: the kernel registered at qmd.program_address, once per
  /// thread, block by block (x fastest, then y, then z) and thread by thread
  /// in the same order; then, when release0 is enabled, writes the low 32
  /// bits of its payload at its address. Records the launch.
  /// @throws ChannelError when no kernel is registered at the program
  ///         address, constant bank 0 is not valid or not in memory, or the
  ///         grid has more than kMaxModelThreads threads
  void run_grid(const qmd::Qmd& qmd, std::uint64_t qmd_address, bool inline_qmd);

  /// Every grid run so far, in order.
  const std::vector<Launch>& launches() const { return launches_; }

  /// The state of the channel with @p token (for inspection).
  /// @throws ChannelError for an unknown token
  ChannelState& channel_state(std::uint32_t token);

 private:
  struct Attached {
    Channel* channel = nullptr;
    ChannelState state;
  };
  GpuMemory* memory_;
  std::map<std::uint32_t, Attached> channels_;      // by token
  std::map<std::uint64_t, Kernel> kernels_;         // by program address
  std::vector<Launch> launches_;
};

/// Builds pushbuffers: method headers and their data, in order. A call that
/// throws appends nothing.
class PushbufferBuilder {
 public:
  /// One INC group: @p data to @p method, method + 4, ...
  /// (or, by @p op, a NON_INC or ONE_INC group).
  /// An INC group may run past kMaxMethod: the header can say so, and it is
  /// parse_pushbuffer that refuses such a group, when the host reads it.
  /// @throws ChannelError for SecOp::Immd, more than kMaxMethodCount words,
  ///         or what encode_method_header refuses
  void methods(unsigned subchannel, std::uint32_t method, std::span<const std::uint32_t> data,
               SecOp op = SecOp::Inc);
  /// One method with one value, as an INC group of one word.
  void method(unsigned subchannel, std::uint32_t method, std::uint32_t data);
  /// One method with a value of at most kMaxMethodCount, as an IMMD header alone.
  void immediate(unsigned subchannel, std::uint32_t method, std::uint32_t value);

  /// SET_OBJECT: binds @p class_id (a compute class) to @p subchannel, as
  /// method() writes it (an INC group of one word).
  void bind_class(unsigned subchannel, std::uint32_t class_id);
  /// A launch with the QMD inline: SET_INLINE_QMD_ADDRESS_A and _B (where the
  /// GPU will keep the QMD, a multiple of 256) and LOAD_INLINE_QMD_DATA(0) to
  /// LOAD_INLINE_QMD_DATA(n - 1), as one INC group starting at
  /// SET_INLINE_QMD_ADDRESS_A. A 96-word
  /// QMD sets INLINE_SIZE_384 in SET_INLINE_QMD_ADDRESS_A.
  /// @throws ChannelError when @p qmd is not 64 or 96 words or the address
  ///         is not a multiple of 256, or, for a 96-word QMD, is 2^49 or
  ///         more (its bits 48:40 go in SET_INLINE_QMD_ADDRESS_A's bits 8:0,
  ///         beside INLINE_SIZE_384)
  void launch_inline(unsigned subchannel, std::span<const std::uint32_t> qmd, std::uint64_t qmd_address);
  /// A launch of a QMD already in memory at @p qmd_address (a multiple of
  /// 256): SEND_PCAS_A with the address >> 8, then SEND_SIGNALING_PCAS2_B
  /// with PCAS_ACTION_INVALIDATE_COPY_SCHEDULE, each as method() writes it:
  /// an INC group of one data word, never an immediate, four words in all;
  /// on subchannel 1 they are 0x200120AD, qmd_address >> 8, 0x200120B0, 3.
  /// (An IMMD header would carry the same value, as the chapter's fixture
  /// does; the builder does not use one.)
  /// @throws ChannelError when the address is not a multiple of 256 or its
  ///         >> 8 does not fit in 32 bits
  void launch_by_address(unsigned subchannel, std::uint64_t qmd_address);
  /// A host semaphore release of a 32-bit @p payload at @p address (a multiple
  /// of 4, below 2^40) once the engines are idle: SEM_ADDR_LO, SEM_ADDR_HI,
  /// SEM_PAYLOAD_LO, SEM_PAYLOAD_HI, SEM_EXECUTE (RELEASE, RELEASE_WFI_EN,
  /// 32-bit payload), as one INC group.
  /// @throws ChannelError when the address is not a multiple of 4 or not
  ///         below 2^40
  void release_semaphore(unsigned subchannel, std::uint64_t address, std::uint32_t payload);

  /// The pushbuffer so far.
  const std::vector<std::uint32_t>& words() const { return words_; }

 private:
  std::vector<std::uint32_t> words_;
};

// ---------------------------------------------------------------------------
// Given: text out (used by `launchlab inspect pushbuf`)
// ---------------------------------------------------------------------------

/// Method groups as JSON, the output of `launchlab inspect pushbuf FILE
/// --json`: an array with one object per group, `{"sec_op": "INC",
/// "subchannel": 1, "method": 692, "name": "SEND_PCAS_A", "count": 1,
/// "data": [...]}`, where count is the number of method calls (1 for IMMD)
/// and name is null for a method the lab does not name.
std::string to_json(std::span<const MethodGroup> groups);

/// Method groups as text, one method call per line.
std::string to_text(std::span<const MethodGroup> groups);

}  // namespace launchlab::channels
