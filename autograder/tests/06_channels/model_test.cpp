// Part C: the pushbuffer builder, the ring, the doorbell and the host engine
// model, and the finale: vadd through the whole model.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "channels.h"
#include "launchlab/testing.h"
#include "qmd.h"

namespace {
namespace lt = launchlab::testing;
using namespace launchlab::channels;
namespace q = launchlab::qmd;

// clc56f.h method header: SEC_OP 31:29, COUNT 28:16, SUBCHANNEL 15:13, ADDRESS 11:0 (method / 4).
std::uint32_t header_word(std::uint32_t sec_op, unsigned subchannel, std::uint32_t method, std::uint32_t count) {
  return sec_op << 29 | count << 16 | subchannel << 13 | method >> 2;
}
constexpr std::uint32_t kInc = 1;

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::vector<std::string> hex_words(const std::vector<std::uint32_t>& words) {
  std::vector<std::string> out;
  for (auto w : words) out.push_back(hex(w));
  return out;
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

// ---------------------------------------------------------------------------
// The builder
// ---------------------------------------------------------------------------

TEST(Builder, BindsTheComputeClassWithSetObject) {
  PushbufferBuilder pb;
  pb.bind_class(1, compute_class::kHopperA);
  EXPECT_TRUE(lt::SameSequence(hex_words({header_word(kInc, 1, 0x0000, 1), 0xCBC0}), hex_words(pb.words())))
      << "SET_OBJECT (0x0) on subchannel 1 with HOPPER_COMPUTE_A";
}

TEST(Builder, InlineLaunchCarriesTheAddressAndEveryQmdWord) {
  std::vector<std::uint32_t> qmd96(96), qmd64(64);
  for (std::uint32_t i = 0; i < 96; ++i) qmd96[i] = 0x1000 + i;
  for (std::uint32_t i = 0; i < 64; ++i) qmd64[i] = 0x2000 + i;
  {
    PushbufferBuilder pb;
    pb.launch_inline(1, qmd96, 0x7F3C2A500000);
    std::vector<std::uint32_t> expected = {header_word(kInc, 1, 0x318, 98),
                                           0x7F | 1u << 30,  // (address >> 8) >> 32, INLINE_SIZE_384
                                           0x3C2A5000};      // low 32 bits of address >> 8
    expected.insert(expected.end(), qmd96.begin(), qmd96.end());
    EXPECT_TRUE(lt::SameSequence(hex_words(expected), hex_words(pb.words())))
        << "one INC group from SET_INLINE_QMD_ADDRESS_A: A, B, then LOAD_INLINE_QMD_DATA(0..95)";
  }
  {
    PushbufferBuilder pb;
    pb.launch_inline(2, qmd64, 0x12345600);
    std::vector<std::uint32_t> expected = {header_word(kInc, 2, 0x318, 66), 0, 0x123456};
    expected.insert(expected.end(), qmd64.begin(), qmd64.end());
    EXPECT_TRUE(lt::SameSequence(hex_words(expected), hex_words(pb.words())))
        << "a 64-word QMD (V03_00): INLINE_SIZE stays 0";
  }
}

TEST(Builder, LaunchByAddressAndSemaphoreRelease) {
  PushbufferBuilder pb;
  pb.launch_by_address(1, 0xFC2A500000);
  pb.release_semaphore(0, 0xFC2A800010, 7);
  pb.immediate(0, host_method::kNonStallInterrupt, 0);
  const std::vector<std::uint32_t> expected = {
      header_word(kInc, 1, 0x2b4, 1), 0xFC2A5000,  // SEND_PCAS_A: address >> 8
      header_word(kInc, 1, 0x2c0, 1), 3,           // SEND_SIGNALING_PCAS2_B: INVALIDATE_COPY_SCHEDULE
      header_word(kInc, 0, 0x5c, 5),  0x2A800010, 0xFC, 7, 0, 1 | 1u << 20,  // SEM_*: RELEASE, RELEASE_WFI_EN
      header_word(4, 0, 0x20, 0),                  // IMMD NON_STALL_INTERRUPT
  };
  EXPECT_TRUE(lt::SameSequence(hex_words(expected), hex_words(pb.words())));
}

TEST(Builder, RefusesWhatCannotBeEncoded) {
  PushbufferBuilder pb;
  std::vector<std::uint32_t> qmd95(95), qmd96(96), many(0x2000);
  EXPECT_THROW(pb.launch_inline(1, qmd95, 0x1000), ChannelError) << "a QMD of 95 words";
  EXPECT_THROW(pb.launch_inline(1, qmd96, 0x1080), ChannelError) << "an inline QMD address not a multiple of 256";
  EXPECT_THROW(pb.launch_inline(1, qmd96, 1ull << 49), ChannelError) << "2^49 does not fit in A's bits 8:0";
  EXPECT_THROW(pb.launch_by_address(1, 0x1010), ChannelError) << "a QMD address not a multiple of 256";
  EXPECT_THROW(pb.release_semaphore(0, 0x1002, 1), ChannelError) << "an unaligned semaphore";
  EXPECT_THROW(pb.release_semaphore(0, 1ull << 40, 1), ChannelError) << "a semaphore above 2^40";
  EXPECT_THROW(pb.methods(0, 8, many, SecOp::NonInc), ChannelError) << "8192 words in one header";
  EXPECT_THROW(pb.methods(0, 8, qmd96, SecOp::Immd), ChannelError) << "IMMD with data words";
  EXPECT_THROW(pb.immediate(0, 8, 0x2000), ChannelError) << "an immediate of 14 bits";
  EXPECT_TRUE(pb.words().empty()) << "nothing may be appended by a call that throws";
}

// ---------------------------------------------------------------------------
// The ring and the doorbell
// ---------------------------------------------------------------------------

TEST(Channel, SubmitWritesTheEntryThenGpPut) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 4, 7);
  const std::uint64_t segment = gpu.memory.allocate(64);
  ASSERT_TRUE(channel.submit({segment, 10, GpLevel::Main, false, false}));
  const auto ring = gpu.memory.read_words(channel.gpfifo_address(), 2);
  const auto expected = encode_gp_entry({segment, 10, GpLevel::Main, false, false});
  EXPECT_EQ(hex(ring[0]), hex(expected[0])) << "entry 0, ENTRY0, in the ring";
  EXPECT_EQ(hex(ring[1]), hex(expected[1])) << "entry 0, ENTRY1";
  EXPECT_EQ(gpu.memory.read32(channel.userd_address() + 0x8c), 1u) << "GP_PUT in USERD at 0x8c";
  EXPECT_EQ(gpu.memory.read32(channel.userd_address() + 0x88), 0u) << "GP_GET: the GPU has read nothing";
}

TEST(Channel, TheRingWrapsAround) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 4, 7);
  const std::uint64_t semaphore = gpu.memory.allocate(4);
  for (std::uint32_t round = 1; round <= 10; ++round) {
    PushbufferBuilder pb;
    pb.release_semaphore(0, semaphore, round);
    ASSERT_TRUE(channel.submit_pushbuffer(pb.words())) << "round " << round;
    EXPECT_EQ(channel.gp_put(), round % 4) << "GP_PUT after " << round << " entries in a ring of 4";
    channel.ring_doorbell();
    EXPECT_EQ(channel.gp_get(), round % 4) << "GP_GET after the host read entry " << round - 1;
    EXPECT_EQ(gpu.memory.read32(semaphore), round) << "the semaphore entry " << round - 1 << " released";
  }
}

TEST(Channel, SeveralEntriesInFlight) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 8, 7);
  const std::uint64_t program = 0x5000;
  std::vector<std::uint32_t> order;
  gpu.host.register_kernel(program, [&](const ThreadContext& t) { order.push_back(t.grid_dim[0]); });
  const std::uint64_t cbank = gpu.memory.allocate(0x300);
  for (std::uint32_t id = 1; id <= 3; ++id) {
    const auto qmd = q::encode(make_qmd(q::QmdVersion::V04_00, {id, 1, 1}, {1, 1, 1}, program, cbank, 0x300));
    PushbufferBuilder pb;
    pb.bind_class(1, compute_class::kHopperA);
    pb.launch_inline(1, qmd, gpu.memory.allocate(384));
    ASSERT_TRUE(channel.submit_pushbuffer(pb.words()));
  }
  EXPECT_TRUE(gpu.host.launches().empty()) << "nothing runs before the doorbell";
  channel.ring_doorbell();
  EXPECT_TRUE(lt::SameSequence(std::vector<std::uint32_t>{1, 2, 2, 3, 3, 3}, order))
      << "grids of 1, 2 and 3 blocks, in the order of their entries";
  EXPECT_EQ(channel.gp_get(), 3u);
  EXPECT_EQ(gpu.host.launches().size(), 3u);
}

TEST(Channel, AFullRingRefusesAnEntry) {
  Gpu gpu;
  Channel channel(gpu.memory, gpu.host, 4, 7);
  PushbufferBuilder pb;
  pb.method(0, host_method::kNop, 0);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(channel.submit_pushbuffer(pb.words())) << "entry " << i << " of a ring of 4";
  const auto ring_before = gpu.memory.read_words(channel.gpfifo_address(), 8);
  EXPECT_FALSE(channel.submit_pushbuffer(pb.words())) << "a fourth entry: GP_PUT + 1 would equal GP_GET";
  EXPECT_EQ(channel.gp_put(), 3u) << "a refused entry leaves GP_PUT";
  EXPECT_TRUE(lt::SameSequence(ring_before, gpu.memory.read_words(channel.gpfifo_address(), 8)))
      << "a refused entry writes nothing into the ring";
  channel.ring_doorbell();
  EXPECT_EQ(channel.gp_get(), 3u);
  EXPECT_TRUE(channel.submit_pushbuffer(pb.words())) << "room again once the GPU has read the ring";
  EXPECT_EQ(channel.gp_put(), 0u) << "GP_PUT wraps to 0";
}

TEST(Channel, TheDoorbellNamesOneChannel) {
  Gpu gpu;
  Channel a(gpu.memory, gpu.host, 4, 7);
  Channel b(gpu.memory, gpu.host, 4, 9);
  const std::uint64_t sem_a = gpu.memory.allocate(4), sem_b = gpu.memory.allocate(4);
  PushbufferBuilder pa, pbb;
  pa.release_semaphore(0, sem_a, 1);
  pbb.release_semaphore(0, sem_b, 2);
  ASSERT_TRUE(a.submit_pushbuffer(pa.words()));
  ASSERT_TRUE(b.submit_pushbuffer(pbb.words()));
  b.ring_doorbell();
  EXPECT_EQ(gpu.memory.read32(sem_b), 2u) << "channel 9 rang: its work ran";
  EXPECT_EQ(b.gp_get(), 1u);
  EXPECT_EQ(gpu.memory.read32(sem_a), 0u) << "channel 7 did not ring: its work waits";
  EXPECT_EQ(a.gp_get(), 0u);
  gpu.host.usermode_write(0x90, 7);  // what a.ring_doorbell() writes
  EXPECT_EQ(gpu.memory.read32(sem_a), 1u) << "a write of token 7 to NOTIFY_CHANNEL_PENDING (0x90)";
  EXPECT_THROW(gpu.host.usermode_write(0x90, 8), ChannelError) << "no channel has token 8";
}

// ---------------------------------------------------------------------------
// The host engine
// ---------------------------------------------------------------------------

TEST(HostEngine, SetObjectBindsASubchannelToAComputeClass) {
  Gpu gpu;
  ChannelState state;
  gpu.host.execute(state, {3, host_method::kSetObject, compute_class::kBlackwellB});
  EXPECT_EQ(state.subchannel_class[3], compute_class::kBlackwellB);
  EXPECT_THROW(gpu.host.execute(state, {1, host_method::kSetObject, 0xC56F}), ChannelError)
      << "0xC56F is a channel class, not a compute class";
  EXPECT_THROW(gpu.host.execute(state, {1, compute_method::kSendPcasA, 0x1000}), ChannelError)
      << "a compute method on subchannel 1, which has no class";
  EXPECT_NO_THROW(gpu.host.execute(state, {3, compute_method::kSendPcasA, 0x1000}))
      << "the same method on subchannel 3";
  EXPECT_EQ(state.pcas_qmd_address, 0x100000u) << "SEND_PCAS_A holds the address >> 8";
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
  ASSERT_TRUE(channel.submit_pushbuffer(pb.words()));
  channel.ring_doorbell();
  const std::vector<std::string> expected = {
      "000/000", "000/100", "000/001", "000/101", "100/000", "100/100", "100/001", "100/101",
      "010/000", "010/100", "010/001", "010/101", "110/000", "110/100", "110/001", "110/101",
  };
  EXPECT_TRUE(lt::SameSequence(expected, seen)) << "blockIdx/threadIdx of every call, x fastest";
  ASSERT_EQ(gpu.host.launches().size(), 1u);
  EXPECT_TRUE(gpu.host.launches()[0].inline_qmd);
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
  ASSERT_TRUE(channel.submit_pushbuffer(pb.words()));
  channel.ring_doorbell();
  EXPECT_EQ(runs, 3 * 4 + 5) << "a grid of 3 x 4 threads, then one of 5";
  EXPECT_TRUE(lt::SameSequence(inline_words, gpu.memory.read_words(inline_at, 96)))
      << "the inline QMD is stored at SET_INLINE_QMD_ADDRESS";
  ASSERT_EQ(gpu.host.launches().size(), 2u);
  EXPECT_EQ(gpu.host.launches()[0].qmd_address, inline_at);
  EXPECT_EQ(gpu.host.launches()[1].qmd_address, memory_at);
  EXPECT_FALSE(gpu.host.launches()[1].inline_qmd);
  EXPECT_EQ(gpu.host.launches()[1].qmd.block[0], 5u) << "the QMD SEND_PCAS_A pointed at";
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
  ASSERT_TRUE(channel.submit_pushbuffer(pb.words()));
  channel.ring_doorbell();
  EXPECT_EQ(hex(gpu.memory.read32(sem)), hex(0xabcd)) << "a 32-bit release";
  EXPECT_EQ(gpu.memory.read32(sem + 4), 0u) << "a 32-bit release writes 4 bytes";
  EXPECT_EQ(hex(gpu.memory.read64(sem + 8)), hex(0x2222222211111111ull)) << "a 64-bit release (subchannel 5)";
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
  ASSERT_TRUE(channel.submit_pushbuffer(pb.words()));
  channel.ring_doorbell();
  EXPECT_TRUE(lt::SameSequence(std::vector<std::uint32_t>{0, 0, 0, 0}, seen_during))
      << "no thread sees the release: it comes after the grid";
  EXPECT_EQ(gpu.memory.read32(sem), 0x5au) << "RELEASE_SEMAPHORE0 after the grid";
}

TEST(HostEngine, MalformedWorkIsReportedAtItsEntry) {
  auto check = [](const char* why, auto make_bad) {
    Gpu gpu;
    Channel channel(gpu.memory, gpu.host, 8, 7);
    gpu.host.register_kernel(0xb000, [](const ThreadContext&) {});
    const std::uint64_t sem = gpu.memory.allocate(4);
    PushbufferBuilder good;
    good.release_semaphore(0, sem, 1);
    ASSERT_TRUE(channel.submit_pushbuffer(good.words())) << why;
    make_bad(gpu, channel);
    try {
      channel.ring_doorbell();
      ADD_FAILURE() << why << ": no ChannelError";
    } catch (const ChannelError& e) {
      EXPECT_EQ(channel.gp_get(), 1u) << why << ": GP_GET must stay at the bad entry (1): " << e.what();
      EXPECT_EQ(gpu.memory.read32(sem), 1u) << why << ": the good entry before it ran";
    } catch (const std::exception& e) {
      ADD_FAILURE() << why << ": threw something other than ChannelError: " << e.what();
    }
  };
  check("a compute method on a subchannel without a class", [](Gpu&, Channel& c) {
    PushbufferBuilder pb;
    pb.launch_by_address(1, 0x1000);
    ASSERT_TRUE(c.submit_pushbuffer(pb.words()));
  });
  check("LOAD_INLINE_QMD_DATA out of order", [](Gpu&, Channel& c) {
    PushbufferBuilder pb;
    pb.bind_class(1, compute_class::kHopperA);
    const std::uint32_t ab[] = {1u << 30, 0x1000};
    pb.methods(1, compute_method::kSetInlineQmdAddressA, ab);
    pb.method(1, compute_method::kLoadInlineQmdData + 8, 0);  // word 2 first
    ASSERT_TRUE(c.submit_pushbuffer(pb.words()));
  });
  check("a QMD whose program address has no kernel", [](Gpu& gpu, Channel& c) {
    PushbufferBuilder pb;
    pb.bind_class(1, compute_class::kHopperA);
    const auto qmd = q::encode(make_qmd(q::QmdVersion::V04_00, {1, 1, 1}, {1, 1, 1}, 0xdead00, gpu.memory.allocate(64), 64));
    pb.launch_inline(1, qmd, gpu.memory.allocate(384));
    ASSERT_TRUE(c.submit_pushbuffer(pb.words()));
  });
  check("a QMD of the wrong version for the class", [](Gpu& gpu, Channel& c) {
    PushbufferBuilder pb;
    pb.bind_class(1, compute_class::kHopperA);
    const std::uint64_t at = gpu.memory.allocate(384);
    gpu.memory.write_words(at, q::encode(make_qmd(q::QmdVersion::V05_00, {1, 1, 1}, {1, 1, 1}, 0xb000,
                                                 gpu.memory.allocate(64), 64)));
    pb.launch_by_address(1, at);
    ASSERT_TRUE(c.submit_pushbuffer(pb.words()));
  });
  check("a segment that ends inside a group", [](Gpu&, Channel& c) {
    const std::uint32_t words[] = {header_word(kInc, 0, host_method::kSemAddrLo, 5), 1, 2};
    ASSERT_TRUE(c.submit_pushbuffer(words));
  });
  check("an entry pointing at unmapped memory", [](Gpu&, Channel& c) {
    ASSERT_TRUE(c.submit({0x10, 4, GpLevel::Main, false, false}));
  });
  check("a SEM_EXECUTE acquire, which the model does not do", [](Gpu& gpu, Channel& c) {
    const std::uint64_t sem = gpu.memory.allocate(4);
    const std::uint32_t data[] = {static_cast<std::uint32_t>(sem), static_cast<std::uint32_t>(sem >> 32), 1, 0, 0};
    PushbufferBuilder pb;
    pb.methods(0, host_method::kSemAddrLo, data);
    ASSERT_TRUE(c.submit_pushbuffer(pb.words()));
  });
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
  SCOPED_TRACE(c.what);
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
  ASSERT_TRUE(channel.submit_pushbuffer(pb.words()));
  channel.ring_doorbell();

  EXPECT_EQ(gpu.memory.read32(done), 1u) << "the semaphore the CPU would wait on";
  EXPECT_EQ(channel.gp_get(), channel.gp_put()) << "the host consumed the entry";
  ASSERT_EQ(gpu.host.launches().size(), 1u);
  EXPECT_EQ(gpu.host.launches()[0].qmd.grid[0], c.blocks);
  std::int32_t wrong = 0, first_wrong = -1;
  for (std::int32_t i = 0; i < c.n; ++i) {
    const float expected = static_cast<float>(i) + 0.5f * static_cast<float>(i % 1000);
    if (gpu.memory.load<float>(dc + 4ull * i) != expected) {
      if (first_wrong < 0) first_wrong = i;
      ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0) << "elements of c that are not a + b; the first is c[" << first_wrong << "]";
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
