/// @file
/// Completion: how the host learns that the GPU has finished, what each way
/// of waiting costs, and how fast the results come back over the link.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace launchlab::completion {

// ---- Waiting ------------------------------------------------------------------

/// The ways a host thread can wait for a kernel, each with the device's
/// scheduling flag it runs under (see schedule_flags()).
enum class WaitMethod {
  StreamQuerySpin,     ///< a loop around cudaStreamQuery until it stops answering cudaErrorNotReady, under cudaDeviceScheduleSpin
  StreamSyncSpin,      ///< cudaStreamSynchronize under cudaDeviceScheduleSpin
  StreamSyncYield,     ///< cudaStreamSynchronize under cudaDeviceScheduleYield
  StreamSyncBlocking,  ///< cudaStreamSynchronize under cudaDeviceScheduleBlockingSync
  EventSyncSpin,       ///< cudaEventSynchronize on an event recorded after the kernel, under cudaDeviceScheduleSpin
  EventSyncBlocking,   ///< the same with an event created with cudaEventBlockingSync, still under cudaDeviceScheduleSpin
};

/// Every WaitMethod, in declaration order.
inline constexpr std::array<WaitMethod, 6> kWaitMethods = {
    WaitMethod::StreamQuerySpin, WaitMethod::StreamSyncSpin,    WaitMethod::StreamSyncYield,
    WaitMethod::StreamSyncBlocking, WaitMethod::EventSyncSpin, WaitMethod::EventSyncBlocking,
};

/// A short name for files and command lines: "stream-query-spin",
/// "stream-sync-spin", "stream-sync-yield", "stream-sync-blocking",
/// "event-sync-spin", "event-sync-blocking".
std::string_view method_name(WaitMethod method);

/// The method with that short name, or nothing.
std::optional<WaitMethod> method_from_name(std::string_view name);

/// The flags to hand cudaSetDeviceFlags() for a method: exactly one of
/// cudaDeviceScheduleSpin, cudaDeviceScheduleYield and
/// cudaDeviceScheduleBlockingSync, as the method's description says.
unsigned schedule_flags(WaitMethod method);

/// The flags to create the method's event with (cudaEventCreateWithFlags):
/// cudaEventDisableTiming for every method (the event only signals), plus
/// cudaEventBlockingSync for WaitMethod::EventSyncBlocking.
unsigned event_flags(WaitMethod method);

/// One timed wait.
struct WaitSample {
  /// Host time from the moment a second host thread saw the kernel's last
  /// write (its flag in mapped host memory) to the moment the wait returned:
  /// how long the waiting thread took to notice that the work was done.
  std::int64_t wake_ns = 0;
  /// Host time from just before the launch to the moment the wait returned.
  std::int64_t round_trip_ns = 0;
};

#if defined(__CUDACC__)
/// The kernel every wait waits for: one thread spins until `%globaltimer`
/// has moved spin_ns past its first reading, then stores value to *flag
/// (host memory mapped into the GPU) with a system-wide fence on each side,
/// and exits.
__global__ void signal_after(std::uint64_t spin_ns, volatile std::uint32_t* flag, std::uint32_t value);
#else
/// The kernel every wait waits for, as a host compiler sees it (nvcc's host
/// stub; never call it directly). One thread spins until `%globaltimer`
/// has moved spin_ns past its first reading, then stores value to *flag
/// (host memory mapped into the GPU) with a system-wide fence on each side,
/// and exits.
void signal_after(std::uint64_t spin_ns, volatile std::uint32_t* flag, std::uint32_t value);
#endif

/// Measures one way to wait, `trials` times, after one untimed trial.
///
/// Meant for a process that has not yet created its CUDA context: its
/// first CUDA call is cudaSetDeviceFlags(schedule_flags(method)), so that
/// the context is created with the method's flags. (Whether changing the
/// flags of a context that already exists changes how it waits is not
/// documented; the tests run each method in a fresh process.)
///
/// Each trial launches signal_after<<<1, 1>>>(kernel_ns, flag, value) on
/// one stream the measurement creates for all its trials (not the default
/// stream), records the method's event after it when the method uses one,
/// and waits as the method says; value is 1 for the untimed trial, then 2,
/// 3, ..., trials + 1, so that each trial writes a new value.
/// Meanwhile a second host thread spins on the flag and notes when each new
/// value arrives.
///
/// @param method    the way to wait
/// @param trials    how many timed trials (at least 1)
/// @param kernel_ns how long the kernel spins: from 10,000 ns (so that the
///                  wait has surely begun when it ends) to 1,000,000,000,
///                  both included
/// @return one sample per timed trial, in order
/// @throws std::invalid_argument for trials or kernel_ns out of range,
///         before any CUDA call
/// @throws std::runtime_error when a CUDA call fails, or when the second
///         thread never saw a timed trial's value
std::vector<WaitSample> measure_waits(WaitMethod method, int trials, std::uint64_t kernel_ns);

// ---- Copying back ---------------------------------------------------------------

/// Where the host side of a copy lives.
enum class HostMemory {
  Pageable,  ///< ordinary memory (new, malloc): the driver copies it through a pinned staging buffer
  Pinned,    ///< page-locked memory from cudaMallocHost: the copy engine reads or writes it directly
};

/// Which way a copy goes.
enum class Direction {
  HostToDevice,  ///< cudaMemcpyHostToDevice
  DeviceToHost,  ///< cudaMemcpyDeviceToHost
};

/// Times cudaMemcpy of `bytes` bytes between host memory of the given kind
/// and device memory, `trials` times after one untimed copy. The buffers are
/// allocated and touched before the first copy; each trial is timed on the
/// host (std::chrono::steady_clock) from just before cudaMemcpy to just
/// after a cudaDeviceSynchronize() that follows it, so that a copy the
/// driver returns from early is still counted whole.
///
/// @return the seconds of each timed copy, in order
/// @throws std::invalid_argument when bytes or trials is 0 (or trials is
///         negative), before any CUDA call
/// @throws std::runtime_error when a CUDA call fails, pinned and device
///         allocations among them (pageable memory comes from new, whose
///         failure is its own std::bad_alloc)
std::vector<double> time_copies(HostMemory memory, Direction direction, std::size_t bytes, int trials);

/// Bandwidth in gigabytes (10^9 bytes) per second.
/// @throws std::invalid_argument when seconds is not positive: zero,
///         negative, or not a number
double gigabytes_per_second(std::size_t bytes, double seconds);

/// The median of the samples: the middle one of an odd count, the mean of
/// the two middle ones of an even count. The samples may come in any order.
/// @throws std::invalid_argument when there are none
double median(std::vector<double> samples);

// ---- The link -------------------------------------------------------------------

/// A PCI Express link: its signalling rate per lane and its width.
struct PcieLink {
  double gigatransfers_per_second = 0.0;  ///< 2.5, 5, 8, 16, 32 or 64 (PCIe 1.0 to 6.0)
  unsigned lanes = 0;                      ///< x1, x4, x8, x16, ...
};

/// The most payload bytes per second one direction of the link can carry
/// after line encoding: GT/s × lanes / 8, times 8/10 at 2.5 and 5 GT/s
/// (8b/10b), 128/130 at 8, 16 and 32 GT/s (128b/130b), and 1 at 64 GT/s
/// (PCIe 6.0's FLIT mode; its framing overhead is not counted, so the
/// number stays an upper bound). Packet headers are not counted either:
/// real copies stay below it.
/// @throws std::invalid_argument for a rate that is none of the six
double pcie_bytes_per_second(PcieLink link);

/// The link the operating system reports for a CUDA device: the PCI address
/// from the runtime (cudaDevAttrPciDomainId, cudaDevAttrPciBusId,
/// cudaDevAttrPciDeviceId), then the device's `max_link_speed` and
/// `max_link_width` under /sys/bus/pci/devices/. These are what the GPU
/// itself can do (its Link Capabilities register), which the link actually
/// trained may not reach; the current link may also drop to a lower speed
/// while the GPU is idle, so `current_link_speed` is not a bound.
/// @return the link, or nothing when the system does not say (no sysfs, or
///         a link it reports as Unknown)
std::optional<PcieLink> read_pcie_link(int device);

}  // namespace launchlab::completion
