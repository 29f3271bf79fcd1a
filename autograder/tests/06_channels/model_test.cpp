// Part C: the pushbuffer builder, the ring, the doorbell and the host engine
// model, and the finale: vadd through the whole model.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "channels.h"
#include "launchlab/record.h"
#include "qmd.h"
#include "views.h"

namespace {
using namespace launchlab::channels;
namespace q = launchlab::qmd;
using launchlab::channel_tests::gp_entry_text;
using launchlab::channel_tests::header_word;
using launchlab::channel_tests::hex;
using launchlab::channel_tests::hex_words;
using launchlab::channel_tests::pushbuffer_text;

constexpr std::uint32_t kInc = 1;

// What a builder call appended, decoded, or what it threw.
template <class Build>
std::vector<std::string> built(Build&& build) {
  PushbufferBuilder pb;
  try {
    build(pb);
  } catch (const std::exception& e) {
    return {std::string("threw: ") + e.what()};
  }
  return pushbuffer_text(pb.words());
}

// A GPU of the model: memory and the host engine that reads it.
struct Gpu {
  GpuMemory memory;
  HostEngine host{memory};
};

q::Qmd make_qmd(q::QmdVersion v, std::array<std::uint32_t, 3> grid, std::array<std::uint32_t, 3> block,
                std::uint64_t program, std::uint64_t cbank, std::uint32_t cbank_size) {
  q::Qmd qmd;
  qmd.version = v;
  qmd.grid = grid;
  qmd.block = block;
  qmd.registers = 16;
  qmd.program_address = program;
  qmd.cbank0 = {cbank, cbank_size, true};
  return qmd;
}

// A one-thread QMD of @p version for the kernel at @p program, written into
// the model's memory: its address.
std::uint64_t qmd_in_memory(Gpu& gpu, q::QmdVersion version, std::uint64_t program) {
  const std::uint64_t at = gpu.memory.allocate(384);
  gpu.memory.write_words(at, q::encode(make_qmd(version, {1, 1, 1}, {1, 1, 1}, program, gpu.memory.allocate(64), 64)));
  return at;
}

// ---------------------------------------------------------------------------
// The builder
// ---------------------------------------------------------------------------

TEST(Builder, BindsTheComputeClassWithSetObject) {
  RECORD_EQ(built([](PushbufferBuilder& pb) { pb.bind_class(1, compute_class::kHopperA); }),
            pushbuffer_text(std::vector<std::uint32_t>{header_word(kInc, 1, 0x0000, 1), 0xCBC0}))
      << "bind_class(1, HOPPER_COMPUTE_A (0xcbc0)): the pushbuffer, decoded ([i] is group i): SET_OBJECT on "
         "subchannel 1";
}

TEST(Builder, InlineLaunchCarriesTheAddressAndEveryQmdWord) {
  std::vector<std::uint32_t> qmd96(96), qmd64(64);
  for (std::uint32_t i = 0; i < 96; ++i) qmd96[i] = 0x1000 + i;
  for (std::uint32_t i = 0; i < 64; ++i) qmd64[i] = 0x2000 + i;
  RECORD_EQ(built([&](PushbufferBuilder& pb) { pb.launch_inline(1, qmd96, 0x7F3C2A500000); }), [&] {
    std::vector<std::uint32_t> expected = {header_word(kInc, 1, 0x318, 98),
                                           0x7F | 1u << 30,  // (address >> 8) >> 32, INLINE_SIZE_384
                                           0x3C2A5000};      // low 32 bits of address >> 8
    expected.insert(expected.end(), qmd96.begin(), qmd96.end());
    return pushbuffer_text(expected);
  }()) << "launch_inline(1, a 96-word QMD whose word i is 0x1000 + i, 0x7f3c2a500000): the pushbuffer, decoded ([i] "
          "is group i): one INC group from SET_INLINE_QMD_ADDRESS_A: A, B, then LOAD_INLINE_QMD_DATA(0..95)";
  RECORD_EQ(built([&](PushbufferBuilder& pb) { pb.launch_inline(2, qmd64, 0x12345600); }), [&] {
    std::vector<std::uint32_t> expected = {header_word(kInc, 2, 0x318, 66), 0, 0x123456};
    expected.insert(expected.end(), qmd64.begin(), qmd64.end());
    return pushbuffer_text(expected);
  }()) << "launch_inline(2, a 64-word QMD (V03_00) whose word i is 0x2000 + i, 0x12345600): the pushbuffer, decoded "
          "([i] is group i): INLINE_SIZE stays 0";
}

TEST(Builder, LaunchByAddressAndSemaphoreRelease) {
  RECORD_EQ(built([](PushbufferBuilder& pb) {
              pb.launch_by_address(1, 0xFC2A500000);
              pb.release_semaphore(0, 0xFC2A800010, 7);
              pb.immediate(0, host_method::kNonStallInterrupt, 0);
            }),
            pushbuffer_text(std::vector<std::uint32_t>{
                header_word(kInc, 1, 0x2b4, 1), 0xFC2A5000,  // SEND_PCAS_A: address >> 8
                header_word(kInc, 1, 0x2c0, 1), 3,           // SEND_SIGNALING_PCAS2_B: INVALIDATE_COPY_SCHEDULE
                header_word(kInc, 0, 0x5c, 5),  0x2A800010, 0xFC, 7, 0, 1 | 1u << 20,  // SEM_*: RELEASE, RELEASE_WFI_EN
                header_word(4, 0, 0x20, 0),                  // IMMD NON_STALL_INTERRUPT
            }))
      << "launch_by_address(1, 0xfc2a500000), release_semaphore(0, 0xfc2a800010, 7), immediate(0, "
         "NON_STALL_INTERRUPT, 0): the pushbuffer, decoded ([i] is group i)";
}

TEST(Builder, RefusesWhatCannotBeEncoded) {
  PushbufferBuilder pb;
  std::vector<std::uint32_t> qmd95(95), qmd96(96), many(0x2000);
  RECORD_THROWS(pb.launch_inline(1, qmd95, 0x1000), ChannelError) << "launch_inline(1, a QMD of 95 words, 0x1000)";
  RECORD_THROWS(pb.launch_inline(1, qmd96, 0x1080), ChannelError)
      << "launch_inline(1, a 96-word QMD, 0x1080): the address is not a multiple of 256";
  RECORD_THROWS(pb.launch_inline(1, qmd96, 1ull << 49), ChannelError)
      << "launch_inline(1, a 96-word QMD, 2^49): 2^49 >> 40 does not fit in SET_INLINE_QMD_ADDRESS_A's bits 8:0";
  RECORD_THROWS(pb.launch_by_address(1, 0x1010), ChannelError)
      << "launch_by_address(1, 0x1010): the address is not a multiple of 256";
  RECORD_THROWS(pb.release_semaphore(0, 0x1002, 1), ChannelError) << "release_semaphore(0, 0x1002, 1): unaligned";
  RECORD_THROWS(pb.release_semaphore(0, 1ull << 40, 1), ChannelError) << "release_semaphore(0, 2^40, 1)";
  RECORD_THROWS(pb.methods(0, 8, many, SecOp::NonInc), ChannelError)
      << "methods(0, NOP, 8192 data words, NON_INC): more than one header holds";
  RECORD_THROWS(pb.methods(0, 8, qmd96, SecOp::Immd), ChannelError) << "methods(0, NOP, 96 data words, IMMD)";
  RECORD_THROWS(pb.immediate(0, 8, 0x2000), ChannelError) << "immediate(0, NOP, 0x2000): a value of 14 bits";
  RECORD_EQ(pushbuffer_text(pb.words()), std::vector<std::string>{})
      << "the pushbuffer after these calls, decoded: nothing may be appended by a call that throws";
}

// ---------------------------------------------------------------------------
// The ring and the doorbell
// ---------------------------------------------------------------------------

TEST(Channel, SubmitWritesTheEntryThenGpPut) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 4, 7);
  const std::uint64_t segment = gpu.memory.allocate(64);
  const GpEntry entry{segment, 10, GpLevel::Main, false, false};
  RECORD_SCOPE("submit({" + record_value(entry).get<std::string>() + "}) on a channel of 4 entries");
  RECORD_TRUE(channel.submit(entry)) << "submit returns true: the ring has room";
  const auto ring = gpu.memory.read_words(channel.gpfifo_address(), 2);
  RECORD_EQ(gp_entry_text(ring[0], ring[1]), [&] {
    const auto words = encode_gp_entry(entry);
    return gp_entry_text(words[0], words[1]);
  }()) << "entry 0 in the ring, decoded";
  RECORD_EQ(gpu.memory.read32(channel.userd_address() + 0x8c), 1u) << "GP_PUT in USERD at 0x8c";
  RECORD_EQ(gpu.memory.read32(channel.userd_address() + 0x88), 0u) << "GP_GET in USERD at 0x88: the GPU has read nothing";
  RECORD_THROWS(channel.submit({segment + 2, 10, GpLevel::Main, false, false}), ChannelError)
      << "submit of the same entry 2 bytes further: an address that is not a multiple of 4";
  RECORD_EQ(gpu.memory.read32(channel.userd_address() + 0x8c), 1u) << "GP_PUT in USERD after the refused entry";
}

TEST(Channel, TheRingWrapsAround) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 4, 7);
  const std::uint64_t semaphore = gpu.memory.allocate(4);
  for (std::uint32_t round = 1; round <= 10; ++round) {
    RECORD_SCOPE("a channel of 4 entries, round " + std::to_string(round) +
                 ": submit_pushbuffer of a semaphore release of " + std::to_string(round) + ", then ring_doorbell");
    PushbufferBuilder pb;
    pb.release_semaphore(0, semaphore, round);
    const bool submitted = channel.submit_pushbuffer(pb.words());
    RECORD_TRUE(submitted) << "submit_pushbuffer returns true";
    RECORD_REQUIRE(submitted);
    RECORD_EQ(channel.gp_put(), round % 4) << "GP_PUT after " << round << " entries";
    channel.ring_doorbell();
    RECORD_EQ(channel.gp_get(), round % 4) << "GP_GET after the host read entry " << round - 1;
    RECORD_EQ(gpu.memory.read32(semaphore), round) << "the semaphore";
  }
}

TEST(Channel, SeveralEntriesInFlight) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 8, 7);
  const std::uint64_t program = 0x5000;
  std::vector<std::uint32_t> order;
  gpu.host.register_kernel(program, [&](const ThreadContext& t) { order.push_back(t.grid_dim[0]); });
  const std::uint64_t cbank = gpu.memory.allocate(0x300);
  RECORD_SCOPE("three entries on a channel of 8, each an inline launch (HOPPER_COMPUTE_A) of a grid of 1, 2 and 3 "
               "blocks of one thread, then one ring_doorbell");
  for (std::uint32_t id = 1; id <= 3; ++id) {
    const auto qmd = q::encode(make_qmd(q::QmdVersion::V04_00, {id, 1, 1}, {1, 1, 1}, program, cbank, 0x300));
    PushbufferBuilder pb;
    pb.bind_class(1, compute_class::kHopperA);
    pb.launch_inline(1, qmd, gpu.memory.allocate(384));
    RECORD_TRUE(channel.submit_pushbuffer(pb.words())) << "submit_pushbuffer of entry " << id - 1;
  }
  RECORD_EQ(gpu.host.launches().size(), 0u) << "grids run before the doorbell: none";
  channel.ring_doorbell();
  RECORD_EQ(order, (std::vector<std::uint32_t>{1, 2, 2, 3, 3, 3}))
      << "gridDim.x as each thread saw it, in the order the threads ran";
  RECORD_EQ(channel.gp_get(), 3u) << "GP_GET";
  RECORD_EQ(gpu.host.launches().size(), 3u) << "launches()";
}

TEST(Channel, AFullRingRefusesAnEntry) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 4, 7);
  PushbufferBuilder pb;
  pb.method(0, host_method::kNop, 0);
  RECORD_SCOPE("a channel of 4 entries, submit_pushbuffer of a NOP again and again");
  for (int i = 0; i < 3; ++i) {
    RECORD_TRUE(channel.submit_pushbuffer(pb.words())) << "entry " << i << ": submit_pushbuffer returns true";
  }
  // The ring as it stands: what a refused entry must leave as it is.
  const auto ring_before = gpu.memory.read_words(channel.gpfifo_address(), 8);
  RECORD_FALSE(channel.submit_pushbuffer(pb.words()))
      << "a fourth entry: submit_pushbuffer returns false, GP_PUT + 1 would equal GP_GET";
  RECORD_EQ(channel.gp_put(), 3u) << "GP_PUT after the refused entry";
  const auto ring_after = gpu.memory.read_words(channel.gpfifo_address(), 8);
  RECORD_TRUE(ring_after == ring_before) << "the refused entry writes nothing into the ring";
  channel.ring_doorbell();
  RECORD_EQ(channel.gp_get(), 3u) << "GP_GET after ring_doorbell";
  RECORD_TRUE(channel.submit_pushbuffer(pb.words())) << "room again once the GPU has read the ring";
  RECORD_EQ(channel.gp_put(), 0u) << "GP_PUT wraps to 0";
  // A ring of one entry could hold nothing; more than 2^20 entries is more than the host reads.
  constexpr std::size_t kTooMany = (std::size_t{1} << 20) + 1;
  RECORD_THROWS(Channel too_small(gpu.memory, gpu.host, 1, 8), ChannelError) << "Channel(memory, host, 1 entry, 8)";
  RECORD_THROWS(Channel too_large(gpu.memory, gpu.host, kTooMany, 9), ChannelError)
      << "Channel(memory, host, 2^20 + 1 entries, 9)";
}

TEST(Channel, TheDoorbellNamesOneChannel) {
  Gpu gpu;
  Channel a(gpu.memory, gpu.host, 4, 7);
  Channel b(gpu.memory, gpu.host, 4, 9);
  const std::uint64_t sem_a = gpu.memory.allocate(4), sem_b = gpu.memory.allocate(4);
  PushbufferBuilder pa, pbb;
  pa.release_semaphore(0, sem_a, 1);
  pbb.release_semaphore(0, sem_b, 2);
  RECORD_SCOPE("channels with tokens 7 and 9, each with a semaphore release submitted (1 and 2)");
  RECORD_TRUE(a.submit_pushbuffer(pa.words())) << "submit_pushbuffer on channel 7";
  RECORD_TRUE(b.submit_pushbuffer(pbb.words())) << "submit_pushbuffer on channel 9";
  b.ring_doorbell();
  RECORD_EQ(gpu.memory.read32(sem_b), 2u) << "channel 9 rang: its semaphore";
  RECORD_EQ(b.gp_get(), 1u) << "channel 9 rang: its GP_GET";
  RECORD_EQ(gpu.memory.read32(sem_a), 0u) << "channel 7 did not ring: its semaphore, its work waits";
  RECORD_EQ(a.gp_get(), 0u) << "channel 7 did not ring: its GP_GET";
  gpu.host.usermode_write(0x90, 7);  // what a.ring_doorbell() writes
  RECORD_EQ(gpu.memory.read32(sem_a), 1u) << "usermode_write(0x90, 7): NOTIFY_CHANNEL_PENDING with token 7; channel 7's semaphore";
  RECORD_THROWS(gpu.host.usermode_write(0x90, 8), ChannelError) << "usermode_write(0x90, 8): no channel has token 8";
  RECORD_THROWS(gpu.host.notify_channel_pending(8), ChannelError) << "notify_channel_pending(8): no channel has token 8";
  RECORD_THROWS(gpu.host.channel_state(8), ChannelError) << "channel_state(8): no channel has token 8";
}

// ---------------------------------------------------------------------------
// The host engine
// ---------------------------------------------------------------------------

TEST(HostEngine, SetObjectBindsASubchannelToAComputeClass) {
  Gpu gpu;
  ChannelState state;
  RECORD_NO_THROW(gpu.host.execute(state, {3, host_method::kSetObject, compute_class::kBlackwellB}))
      << "execute({subchannel 3, SET_OBJECT (0x0000) = 0xcec0}), BLACKWELL_COMPUTE_B";
  RECORD_EQ(hex(state.subchannel_class[3]), hex(compute_class::kBlackwellB))
      << "after execute({subchannel 3, SET_OBJECT (0x0000) = 0xcec0}): the class of subchannel 3";
  RECORD_THROWS(gpu.host.execute(state, {1, host_method::kSetObject, 0xC56F}), ChannelError)
      << "execute({subchannel 1, SET_OBJECT (0x0000) = 0xc56f}): 0xc56f is a channel class, not a compute class";
  RECORD_THROWS(gpu.host.execute(state, {1, compute_method::kSendPcasA, 0x1000}), ChannelError)
      << "execute({subchannel 1, SEND_PCAS_A (0x02b4) = 0x1000}): a compute method on subchannel 1, which has no class";
  RECORD_NO_THROW(gpu.host.execute(state, {3, compute_method::kSendPcasA, 0x1000}))
      << "execute({subchannel 3, SEND_PCAS_A (0x02b4) = 0x1000}): the same method on subchannel 3";
  RECORD_EQ(hex(state.pcas_qmd_address), hex(0x100000u))
      << "after execute({subchannel 3, SEND_PCAS_A (0x02b4) = 0x1000}): pcas_qmd_address, the address SEND_PCAS_A holds "
         "shifted back";
}

TEST(HostEngine, RunsTheKernelOncePerThreadInOrder) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 4, 7);
  std::vector<std::string> seen;
  gpu.host.register_kernel(0x8000, [&](const ThreadContext& t) {
    seen.push_back(std::to_string(t.block_idx[0]) + std::to_string(t.block_idx[1]) + std::to_string(t.block_idx[2]) +
                   "/" + std::to_string(t.thread_idx[0]) + std::to_string(t.thread_idx[1]) +
                   std::to_string(t.thread_idx[2]));
  });
  const std::uint64_t cbank = gpu.memory.allocate(256);
  const auto qmd = q::encode(make_qmd(q::QmdVersion::V03_00, {2, 2, 1}, {2, 1, 2}, 0x8000, cbank, 256));
  PushbufferBuilder pb;
  pb.bind_class(1, compute_class::kAmpereA);
  pb.launch_inline(1, qmd, gpu.memory.allocate(256));
  RECORD_SCOPE("an inline launch (AMPERE_COMPUTE_A) of a grid of 2 x 2 x 1 blocks of 2 x 1 x 2 threads");
  RECORD_TRUE(channel.submit_pushbuffer(pb.words())) << "submit_pushbuffer";
  channel.ring_doorbell();
  RECORD_EQ(seen, (std::vector<std::string>{
                      "000/000", "000/100", "000/001", "000/101", "100/000", "100/100", "100/001", "100/101",
                      "010/000", "010/100", "010/001", "010/101", "110/000", "110/100", "110/001", "110/101",
                  }))
      << "blockIdx/threadIdx (x, y, z digits) of every call of the kernel, in order: x fastest";
  RECORD_EQ(gpu.host.launches().size(), 1u) << "launches()";
  RECORD_REQUIRE(gpu.host.launches().size() == 1);
  RECORD_TRUE(gpu.host.launches()[0].inline_qmd) << "launches()[0].inline_qmd";

  // Grids run_grid cannot run, each checked before any thread runs.
  const auto one_thread = [&](std::uint64_t program, std::uint64_t bank) {
    return make_qmd(q::QmdVersion::V03_00, {1, 1, 1}, {1, 1, 1}, program, bank, 256);
  };
  RECORD_THROWS(gpu.host.run_grid(one_thread(0xdead00, cbank), 0x7000, false), ChannelError)
      << "run_grid of a QMD whose program address 0xdead00 has no kernel";
  q::Qmd invalid_bank = one_thread(0x8000, cbank);
  invalid_bank.cbank0.valid = false;
  RECORD_THROWS(gpu.host.run_grid(invalid_bank, 0x7000, false), ChannelError)
      << "run_grid of a QMD whose constant bank 0 is not valid";
  RECORD_THROWS(gpu.host.run_grid(one_thread(0x8000, 0x10), 0x7000, false), ChannelError)
      << "run_grid of a QMD whose constant bank 0 is at 0x10, outside every allocation";
  gpu.host.register_kernel(0x8100, [](const ThreadContext&) {});  // cheap, should a grid too large run anyway
  const q::Qmd too_large = make_qmd(q::QmdVersion::V03_00, {65537, 1, 1}, {1024, 1, 1}, 0x8100, cbank, 256);
  RECORD_THROWS(gpu.host.run_grid(too_large, 0x7000, false), ChannelError)
      << "run_grid of 65537 blocks of 1024 threads, more than 2^26 threads";
  RECORD_EQ(seen.size(), 16u) << "how many times the kernel ran in all: none of these grids ran a thread";
  RECORD_EQ(gpu.host.launches().size(), 1u) << "launches() after them";

  // A kernel's reads of constant bank 0 stay inside the bank's size.
  ThreadContext thread;
  thread.cbank0 = {cbank, 256, true};
  thread.memory = &gpu.memory;
  RECORD_NO_THROW(thread.param<std::uint32_t>(252)) << "c[0x0][0xfc] as 4 bytes, in a bank of 256";
  RECORD_THROWS(thread.param<std::uint64_t>(252), ChannelError) << "c[0x0][0xfc] as 8 bytes, in a bank of 256";
}

TEST(HostEngine, InlineQmdIsStoredAndQmdInMemoryIsRead) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 4, 7);
  int runs = 0;
  gpu.host.register_kernel(0x9000, [&](const ThreadContext&) { ++runs; });
  const std::uint64_t cbank = gpu.memory.allocate(0x400);
  const auto inline_words = q::encode(make_qmd(q::QmdVersion::V05_00, {3, 1, 1}, {4, 1, 1}, 0x9000, cbank, 0x400));
  const auto memory_words = q::encode(make_qmd(q::QmdVersion::V05_00, {1, 1, 1}, {5, 1, 1}, 0x9000, cbank, 0x400));
  const std::uint64_t inline_at = gpu.memory.allocate(384);
  const std::uint64_t memory_at = gpu.memory.allocate(384);
  gpu.memory.write_words(memory_at, memory_words);
  PushbufferBuilder pb;
  pb.bind_class(2, compute_class::kBlackwellB);
  pb.launch_inline(2, inline_words, inline_at);
  pb.launch_by_address(2, memory_at);
  RECORD_SCOPE("on BLACKWELL_COMPUTE_B, an inline launch of 3 blocks of 4 threads, then a launch by address of 1 "
               "block of 5");
  RECORD_TRUE(channel.submit_pushbuffer(pb.words())) << "submit_pushbuffer";
  channel.ring_doorbell();
  RECORD_EQ(runs, 3 * 4 + 5) << "how many times the kernel ran: a grid of 3 x 4 threads, then one of 5";
  // The QMD as lab 07's encode (the learner's own) wrote it, against what the GPU memory holds.
  RECORD_TRUE(gpu.memory.read_words(inline_at, 96) == inline_words)
      << "the inline QMD is stored at SET_INLINE_QMD_ADDRESS, word for word";
  RECORD_EQ(gpu.host.launches().size(), 2u) << "launches()";
  RECORD_REQUIRE(gpu.host.launches().size() == 2);
  RECORD_EQ(hex(gpu.host.launches()[0].qmd_address), hex(inline_at)) << "launches()[0].qmd_address";
  RECORD_EQ(hex(gpu.host.launches()[1].qmd_address), hex(memory_at)) << "launches()[1].qmd_address";
  RECORD_FALSE(gpu.host.launches()[1].inline_qmd) << "launches()[1].inline_qmd";
  RECORD_EQ(gpu.host.launches()[1].qmd.block[0], 5u) << "launches()[1].qmd.block[0], from the QMD SEND_PCAS_A pointed at";
}

TEST(HostEngine, HostSemaphoreReleaseOfFourAndEightBytes) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 4, 7);
  const std::uint64_t sem = gpu.memory.allocate(16);
  PushbufferBuilder pb;
  pb.release_semaphore(0, sem, 0xabcd);
  // A 64-bit release at sem + 8, by hand: SEM_EXECUTE with PAYLOAD_SIZE_64BIT.
  const std::uint32_t data[] = {static_cast<std::uint32_t>(sem + 8), static_cast<std::uint32_t>((sem + 8) >> 32),
                                0x11111111, 0x22222222, 1 | 1u << 24};
  pb.methods(5, host_method::kSemAddrLo, data);
  RECORD_SCOPE("release_semaphore(0, sem, 0xabcd), then a 64-bit release of 0x2222222211111111 at sem + 8 on "
               "subchannel 5 (SEM_EXECUTE with PAYLOAD_SIZE_64BIT)");
  RECORD_TRUE(channel.submit_pushbuffer(pb.words())) << "submit_pushbuffer";
  channel.ring_doorbell();
  RECORD_EQ(hex(gpu.memory.read32(sem)), hex(0xabcd)) << "the 4 bytes at sem: a 32-bit release";
  RECORD_EQ(hex(gpu.memory.read32(sem + 4)), hex(0)) << "the 4 bytes at sem + 4: a 32-bit release writes 4 bytes";
  RECORD_EQ(hex(gpu.memory.read64(sem + 8)), hex(0x2222222211111111ull)) << "the 8 bytes at sem + 8: a 64-bit release";
}

TEST(HostEngine, QmdReleaseSemaphoreIsWrittenAfterTheGrid) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 4, 7);
  const std::uint64_t sem = gpu.memory.allocate(8);
  std::vector<std::uint32_t> seen_during;
  gpu.host.register_kernel(0xa000, [&](const ThreadContext& t) { seen_during.push_back(t.memory->read32(sem)); });
  q::Qmd qmd = make_qmd(q::QmdVersion::V04_00, {2, 1, 1}, {2, 1, 1}, 0xa000, gpu.memory.allocate(64), 64);
  qmd.release0 = {true, sem, 0x5a};
  PushbufferBuilder pb;
  pb.bind_class(1, compute_class::kHopperA);
  pb.launch_inline(1, q::encode(qmd), gpu.memory.allocate(384));
  RECORD_SCOPE("an inline launch (HOPPER_COMPUTE_A) of 2 blocks of 2 threads whose QMD releases 0x5a at sem");
  RECORD_TRUE(channel.submit_pushbuffer(pb.words())) << "submit_pushbuffer";
  channel.ring_doorbell();
  RECORD_EQ(seen_during, (std::vector<std::uint32_t>{0, 0, 0, 0}))
      << "the semaphore as each thread saw it: no thread sees the release, it comes after the grid";
  RECORD_EQ(hex(gpu.memory.read32(sem)), hex(0x5a)) << "the semaphore after the grid: RELEASE_SEMAPHORE0";
}

TEST(HostEngine, MalformedWorkIsReportedAtItsEntry) {
  auto check = [](const char* why, auto make_bad) {
    Gpu gpu;
    Channel channel(gpu.memory, gpu.host, 8, 7);
    gpu.host.register_kernel(0xb000, [](const ThreadContext&) {});
    const std::uint64_t sem = gpu.memory.allocate(4);
    PushbufferBuilder good;
    good.release_semaphore(0, sem, 1);
    RECORD_SCOPE(std::string("entry 0 a semaphore release, entry 1 ") + why + ", then ring_doorbell");
    RECORD_TRUE(channel.submit_pushbuffer(good.words())) << "submit_pushbuffer of entry 0";
    RECORD_TRUE(make_bad(gpu, channel)) << "submit of entry 1";
    RECORD_THROWS(channel.ring_doorbell(), ChannelError);
    RECORD_EQ(channel.gp_get(), 1u) << "GP_GET after the error: it stays at the bad entry";
    RECORD_EQ(gpu.memory.read32(sem), 1u) << "the semaphore: the good entry before the bad one ran";
  };
  check("a compute method on a subchannel without a class", [](Gpu&, Channel& c) {
    PushbufferBuilder pb;
    pb.launch_by_address(1, 0x1000);
    return c.submit_pushbuffer(pb.words());
  });
  check("LOAD_INLINE_QMD_DATA out of order", [](Gpu&, Channel& c) {
    PushbufferBuilder pb;
    pb.bind_class(1, compute_class::kHopperA);
    const std::uint32_t ab[] = {1u << 30, 0x1000};
    pb.methods(1, compute_method::kSetInlineQmdAddressA, ab);
    pb.method(1, compute_method::kLoadInlineQmdData + 8, 0);  // word 2 first
    return c.submit_pushbuffer(pb.words());
  });
  check("a QMD whose program address has no kernel", [](Gpu& gpu, Channel& c) {
    PushbufferBuilder pb;
    pb.bind_class(1, compute_class::kHopperA);
    const auto qmd = q::encode(make_qmd(q::QmdVersion::V04_00, {1, 1, 1}, {1, 1, 1}, 0xdead00, gpu.memory.allocate(64), 64));
    pb.launch_inline(1, qmd, gpu.memory.allocate(384));
    return c.submit_pushbuffer(pb.words());
  });
  check("a QMD of the wrong version for the class", [](Gpu& gpu, Channel& c) {
    PushbufferBuilder pb;
    pb.bind_class(1, compute_class::kHopperA);
    pb.launch_by_address(1, qmd_in_memory(gpu, q::QmdVersion::V05_00, 0xb000));
    return c.submit_pushbuffer(pb.words());
  });
  check("a segment that ends inside a group", [](Gpu&, Channel& c) {
    const std::uint32_t words[] = {header_word(kInc, 0, host_method::kSemAddrLo, 5), 1, 2};
    return c.submit_pushbuffer(words);
  });
  check("an entry pointing at unmapped memory", [](Gpu&, Channel& c) {
    return c.submit({0x10, 4, GpLevel::Main, false, false});
  });
  check("a SEM_EXECUTE acquire, which the model does not do", [](Gpu& gpu, Channel& c) {
    const std::uint64_t sem = gpu.memory.allocate(4);
    const std::uint32_t data[] = {static_cast<std::uint32_t>(sem), static_cast<std::uint32_t>(sem >> 32), 1, 0, 0};
    PushbufferBuilder pb;
    pb.methods(0, host_method::kSemAddrLo, data);
    return c.submit_pushbuffer(pb.words());
  });
  check("a 64-bit release at an address 4 past a multiple of 8", [](Gpu& gpu, Channel& c) {
    const std::uint64_t sem = gpu.memory.allocate(16) + 4;
    const std::uint32_t data[] = {static_cast<std::uint32_t>(sem), static_cast<std::uint32_t>(sem >> 32), 1, 0,
                                  1 | 1u << 24};
    PushbufferBuilder pb;
    pb.methods(0, host_method::kSemAddrLo, data);
    return c.submit_pushbuffer(pb.words());
  });
  check("SEND_SIGNALING_PCAS2_B with PCAS_ACTION 5, which the model does not run", [](Gpu& gpu, Channel& c) {
    PushbufferBuilder pb;
    pb.bind_class(1, compute_class::kHopperA);
    const std::uint64_t at = qmd_in_memory(gpu, q::QmdVersion::V04_00, 0xb000);
    pb.method(1, compute_method::kSendPcasA, static_cast<std::uint32_t>(at >> 8));
    pb.method(1, compute_method::kSendSignalingPcas2B, 5);
    return c.submit_pushbuffer(pb.words());
  });
  check("a control entry whose OPCODE is 1, not NOP", [](Gpu&, Channel& c) {
    return c.submit({1ull << 32, 0, GpLevel::Main, false, false});  // ENTRY1 bits 7:0 are the OPCODE
  });
  check("an entry with FETCH_CONDITIONAL", [](Gpu& gpu, Channel& c) {
    PushbufferBuilder pb;
    pb.method(0, host_method::kSemAddrLo, 0);
    const std::uint64_t segment = gpu.memory.allocate(4 * pb.words().size());
    gpu.memory.write_words(segment, pb.words());
    return c.submit({segment, static_cast<std::uint32_t>(pb.words().size()), GpLevel::Main, false, true});
  });
}

TEST(HostEngine, NoOperationsChangeNothing) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 8, 7);
  int threads = 0;
  gpu.host.register_kernel(0xb000, [&](const ThreadContext&) { ++threads; });
  const std::uint64_t qmd_at = qmd_in_memory(gpu, q::QmdVersion::V04_00, 0xb000);
  PushbufferBuilder pb;
  pb.bind_class(1, compute_class::kHopperA);
  pb.method(1, compute_method::kNoOperation, 0);
  pb.method(1, compute_method::kWaitForIdle, 0);
  pb.method(1, compute_method::kSendPcasA, static_cast<std::uint32_t>(qmd_at >> 8));
  pb.method(1, compute_method::kSendSignalingPcas2B, 0);  // PCAS_ACTION NOP
  RECORD_SCOPE("entry 0 a control entry with OPCODE NOP; entry 1 binds HOPPER_COMPUTE_A, then NO_OPERATION, "
               "WAIT_FOR_IDLE, SEND_PCAS_A to a QMD and SEND_SIGNALING_PCAS2_B with PCAS_ACTION NOP (0)");
  RECORD_TRUE(channel.submit({0, 0, GpLevel::Main, false, false})) << "submit of the control entry";
  RECORD_TRUE(channel.submit_pushbuffer(pb.words())) << "submit_pushbuffer";
  RECORD_NO_THROW(channel.ring_doorbell()) << "ring_doorbell";
  RECORD_EQ(channel.gp_get(), 2u) << "GP_GET after the doorbell: both entries were read";
  RECORD_EQ(gpu.host.launches().size(), 0u) << "launches(): PCAS_ACTION NOP launches nothing";
  RECORD_EQ(threads, 0) << "threads run";
  PushbufferBuilder past_the_end;
  const std::uint32_t data[] = {1, 2, 3};
  RECORD_NO_THROW(past_the_end.methods(0, kMaxMethod - 4, data))
      << "methods(0, 0x3ff8, {1, 2, 3}): an INC group past kMaxMethod is built; the host refuses it when it reads it";
  const std::uint32_t expected[] = {header_word(kInc, 0, kMaxMethod - 4, 3), 1, 2, 3};
  RECORD_EQ(hex_words(past_the_end.words()), hex_words(expected)) << "the words methods(0, 0x3ff8, {1, 2, 3}) built";
}

// ---------------------------------------------------------------------------
// The finale
// ---------------------------------------------------------------------------

// vadd as the model runs it: the parameters a, b, c, n at c[0x0][base],
// base + 8, + 16, + 24, the offsets the kernel's SASS reads them from.
Kernel vadd_kernel(std::uint32_t base) {
  return [base](const ThreadContext& t) {
    const auto a = t.param<std::uint64_t>(base);
    const auto b = t.param<std::uint64_t>(base + 8);
    const auto c = t.param<std::uint64_t>(base + 16);
    const auto n = t.param<std::int32_t>(base + 24);
    const std::uint64_t i = std::uint64_t{t.block_idx[0]} * t.block_dim[0] + t.thread_idx[0];
    if (i < static_cast<std::uint64_t>(n)) {
      t.memory->store<float>(c + 4 * i, t.memory->load<float>(a + 4 * i) + t.memory->load<float>(b + 4 * i));
    }
  };
}

struct VaddCase {
  const char* what;
  q::QmdVersion version;
  std::uint32_t class_id;
  std::uint32_t param_base;  // where nvcc puts the first parameter for this generation
  bool inline_qmd;
  std::int32_t n;
  std::uint32_t blocks;
};

void run_vadd(const VaddCase& c) {
  RECORD_SCOPE(std::string("vadd through the model: ") + c.what);
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 16, 0x1234);

  // The driver's work before the launch: the arrays, the code, the parameters.
  const std::uint64_t bytes = 4ull * static_cast<std::uint64_t>(c.n);
  const std::uint64_t da = gpu.memory.allocate(bytes), db = gpu.memory.allocate(bytes), dc = gpu.memory.allocate(bytes);
  for (std::int32_t i = 0; i < c.n; ++i) {
    gpu.memory.store<float>(da + 4ull * i, static_cast<float>(i));
    gpu.memory.store<float>(db + 4ull * i, 0.5f * static_cast<float>(i % 1000));
  }
  const std::uint64_t program = gpu.memory.allocate(0x100);  // where the SASS would be
  gpu.host.register_kernel(program, vadd_kernel(c.param_base));
  const std::uint32_t cbank_size = (c.param_base + 32 + 15) / 16 * 16;
  const std::uint64_t cbank = gpu.memory.allocate(cbank_size);
  gpu.memory.store<std::uint64_t>(cbank + c.param_base, da);
  gpu.memory.store<std::uint64_t>(cbank + c.param_base + 8, db);
  gpu.memory.store<std::uint64_t>(cbank + c.param_base + 16, dc);
  gpu.memory.store<std::int32_t>(cbank + c.param_base + 24, c.n);

  const auto qmd = q::encode(make_qmd(c.version, {c.blocks, 1, 1}, {256, 1, 1}, program, cbank, cbank_size));
  const std::uint64_t qmd_at = gpu.memory.allocate(qmd.size() * 4);
  const std::uint64_t done = gpu.memory.allocate(4);

  PushbufferBuilder pb;
  pb.bind_class(1, c.class_id);
  if (c.inline_qmd) {
    pb.launch_inline(1, qmd, qmd_at);
  } else {
    gpu.memory.write_words(qmd_at, qmd);
    pb.launch_by_address(1, qmd_at);
  }
  pb.release_semaphore(0, done, 1);
  const bool submitted = channel.submit_pushbuffer(pb.words());
  RECORD_TRUE(submitted) << "submit_pushbuffer";
  if (!submitted) return;  // recorded: nothing was handed over to wait for
  channel.ring_doorbell();

  RECORD_EQ(gpu.memory.read32(done), 1u) << "the semaphore the CPU would wait on";
  RECORD_TRUE(channel.gp_get() == channel.gp_put())
      << "the host consumed the entry: GP_GET " << channel.gp_get() << ", GP_PUT " << channel.gp_put();
  RECORD_EQ(gpu.host.launches().size(), 1u) << "launches()";
  if (gpu.host.launches().size() != 1) return;  // recorded just above
  RECORD_EQ(gpu.host.launches()[0].qmd.grid[0], c.blocks) << "launches()[0].qmd.grid[0]";
  std::int32_t wrong = 0, first_wrong = -1;
  for (std::int32_t i = 0; i < c.n; ++i) {
    const float expected = static_cast<float>(i) + 0.5f * static_cast<float>(i % 1000);
    if (gpu.memory.load<float>(dc + 4ull * i) != expected) {
      if (first_wrong < 0) first_wrong = i;
      ++wrong;
    }
  }
  RECORD_EQ(wrong, 0) << "elements of c that are not a + b"
                      << (first_wrong < 0 ? std::string() : "; the first is c[" + std::to_string(first_wrong) + "]");
}

TEST(Finale, VaddRunsThroughTheModel) {
  // vadd<<<4096, 256>>> on a Hopper channel with the QMD inline; the
  // parameters at c[0x0][0x210], where sm_90 code reads them.
  run_vadd({"Hopper, inline QMD, vadd<<<4096, 256>>>", q::QmdVersion::V04_00, compute_class::kHopperA, 0x210, true,
            4096 * 256, 4096});
  // Ampere with the QMD in memory (sm_80 code reads its parameters from 0x160),
  // and Blackwell inline (sm_100: 0x380); n is not a multiple of the block.
  run_vadd({"Ampere, QMD by address", q::QmdVersion::V03_00, compute_class::kAmpereA, 0x160, false, 10000, 40});
  run_vadd({"Blackwell, inline QMD", q::QmdVersion::V05_00, compute_class::kBlackwellB, 0x380, true, 5000, 20});
}

}  // namespace
