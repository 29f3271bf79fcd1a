// Part C: the GPU's side of a channel. The host unit reads GPFIFO entries from
// GP_GET to GP_PUT, parses each pushbuffer segment and executes its methods;
// a compute launch decodes the QMD with chapter 07's decode() and runs the
// kernel over the grid.
#include "channels.h"

namespace launchlab::channels {

void HostEngine::notify_channel_pending(std::uint32_t token) {
  // TODO(student): find the channel by token (channels_); read GP_PUT and
  // GP_GET from its USERD; for each entry from GP_GET up to GP_PUT: read its
  // two words from the ring, decode it, fetch the segment's words from
  // memory, parse_pushbuffer, and execute() every method_calls() in order,
  // with the channel's ChannelState. After each entry, write GP_GET + 1
  // (wrapping) to USERD. Wrap any error in a ChannelError that names the
  // entry, and leave GP_GET at that entry.
  (void)token;
}

void HostEngine::execute(ChannelState& state, const MethodCall& call) {
  // TODO(student): host methods first (SET_OBJECT, NOP, WFI,
  // NON_STALL_INTERRUPT, the SEM_* methods; see host_method); any other
  // method below 0x100 throws. Then the compute methods, on a subchannel
  // bound to a compute class (qmd_version_of_class gives its QMD version):
  // SET_INLINE_QMD_ADDRESS_A/B, LOAD_INLINE_QMD_DATA(i) (launch after the
  // last word: store the QMD at its address, qmd::decode it, run_grid),
  // SEND_PCAS_A and SEND_SIGNALING_PCAS2_B (read the QMD from memory, decode,
  // run_grid). Anything else throws ChannelError.
  (void)state;
  (void)call;
}

void HostEngine::run_grid(const qmd::Qmd& qmd, std::uint64_t qmd_address, bool inline_qmd) {
  // TODO(student): find the kernel at qmd.program_address; check constant
  // bank 0 (valid, in memory) and the size of the grid (kMaxModelThreads);
  // call the kernel once per thread with a ThreadContext, blocks and threads
  // in x, y, z order; write release0's payload when enabled; record the
  // launch in launches_.
  (void)qmd;
  (void)qmd_address;
  (void)inline_qmd;
}

}  // namespace launchlab::channels
