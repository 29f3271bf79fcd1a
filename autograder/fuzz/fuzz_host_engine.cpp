// libFuzzer target: arbitrary pushbuffers through the host engine model
// (06_channels), which decodes QMDs with 07_qmd. Whatever the stream, the
// model must report ChannelError (or QmdError), never crash; GP_GET must stay
// inside the ring. One kernel is registered, at a program address the input
// can name, and constant bank 0 can point at real memory. When the first
// byte is odd, the stream starts with a valid launch (SET_OBJECT and an inline
// QMD that runs that kernel), so that the fuzzed methods that follow find a
// bound subchannel and the paths of a real launch are reached.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "channels.h"

using namespace launchlab::channels;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::uint32_t> words(size / 4);
  if (!words.empty()) std::memcpy(words.data(), data, words.size() * 4);

  GpuMemory memory;
  HostEngine host(memory);
  Channel channel(memory, host, 4, 1);
  // Memory the input may name: the model's allocations start at 0x100000000.
  const std::uint64_t scratch = memory.allocate(0x10000, 4096);
  std::uint64_t threads = 0;
  host.register_kernel(scratch, [&](const ThreadContext& t) {
    if (++threads > 4096) throw ChannelError("enough");  // keep one input cheap
    (void)t.param<std::uint32_t>(0);
  });
  std::vector<std::uint32_t> stream;
  if (size > 0 && (data[0] & 1) != 0) {
    launchlab::qmd::Qmd qmd;
    qmd.version = launchlab::qmd::QmdVersion::V04_00;
    qmd.grid = {2, 1, 1};
    qmd.block = {2, 1, 1};
    qmd.program_address = scratch;
    qmd.cbank0 = {scratch + 0x1000, 0x100, true};
    qmd.release0 = {true, scratch + 0x3000, 1};
    PushbufferBuilder prelude;
    prelude.bind_class(1, compute_class::kHopperA);
    prelude.launch_inline(1, launchlab::qmd::encode(qmd), scratch + 0x2000);
    stream = prelude.words();
  }
  stream.insert(stream.end(), words.begin(), words.end());
  try {
    if (!channel.submit_pushbuffer(stream)) std::abort();
    channel.ring_doorbell();
  } catch (const ChannelError&) {
  } catch (const launchlab::qmd::QmdError&) {
    std::abort();  // the host engine must wrap decode errors in ChannelError
  }
  if (channel.gp_get() >= channel.gpfifo_entries()) std::abort();
  return 0;
}
