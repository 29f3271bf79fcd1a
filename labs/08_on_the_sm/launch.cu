// The host side of the lab's experiments: allocate, launch, wait, copy the
// records back. Not a student file: the kernels it launches are yours
// (trace.cu, divergence.cu). The contracts are in trace.h and divergence.h.

#include <cuda_runtime.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <launchlab/cuda.h>

#include "divergence.h"
#include "trace.h"

namespace launchlab::on_the_sm {

namespace {

using cuda::check;

void check_grid(const char* who, unsigned blocks, unsigned threads_per_block) {
  if (blocks == 0 || blocks > static_cast<unsigned>(INT_MAX)) {
    throw std::invalid_argument(std::string(who) + ": blocks must be in [1, 2^31 - 1], got " +
                                std::to_string(blocks));
  }
  if (threads_per_block == 0 || threads_per_block > 1024) {
    throw std::invalid_argument(std::string(who) + ": threads_per_block must be in [1, 1024], got " +
                                std::to_string(threads_per_block));
  }
}

// Waits for the launch and copies the records back.
std::vector<BlockRecord> finish(const cuda::DeviceBuffer<BlockRecord>& records, unsigned blocks, const char* kernel) {
  check(cudaGetLastError(), kernel);
  check(cudaDeviceSynchronize(), kernel);
  std::vector<BlockRecord> host(blocks);
  check(cudaMemcpy(host.data(), records.get(), records.bytes(), cudaMemcpyDeviceToHost),
        "cudaMemcpy (the records to the host)");
  return host;
}

}  // namespace

std::vector<BlockRecord> trace_vadd(unsigned blocks, unsigned threads_per_block) {
  check_grid("trace_vadd", blocks, threads_per_block);
  const std::uint64_t n64 = std::uint64_t{blocks} * threads_per_block;
  if (n64 > static_cast<std::uint64_t>(INT_MAX)) {
    throw std::invalid_argument("trace_vadd: " + std::to_string(n64) + " elements do not fit vadd's int n");
  }
  const auto n = static_cast<std::size_t>(n64);
  // Small integers: every sum is exact in float.
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000);
    b[i] = static_cast<float>(2 * (i % 997));
  }
  cuda::DeviceBuffer<float> da(n), db(n), dc(n);
  cuda::DeviceBuffer<BlockRecord> records(blocks);
  check(cudaMemcpy(da.get(), a.data(), da.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy (a)");
  check(cudaMemcpy(db.get(), b.data(), db.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy (b)");
  check(cudaMemset(records.get(), 0, records.bytes()), "cudaMemset (the records)");

  traced_vadd<<<blocks, threads_per_block>>>(da.get(), db.get(), dc.get(), static_cast<int>(n), records.get());
  std::vector<BlockRecord> host = finish(records, blocks, "traced_vadd");

  check(cudaMemcpy(c.data(), dc.get(), dc.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy (c)");
  for (std::size_t i = 0; i < n; ++i) {
    if (c[i] != a[i] + b[i]) {
      throw std::runtime_error("traced_vadd: c[" + std::to_string(i) + "] is " + std::to_string(c[i]) +
                               ", expected " + std::to_string(a[i] + b[i]));
    }
  }
  return host;
}

std::vector<BlockRecord> trace_spin(unsigned blocks, unsigned threads_per_block, std::uint64_t spin_ns) {
  check_grid("trace_spin", blocks, threads_per_block);
  if (spin_ns > 1'000'000'000u) {
    throw std::invalid_argument("trace_spin: spin_ns must be at most one second, got " + std::to_string(spin_ns));
  }
  cuda::DeviceBuffer<BlockRecord> records(blocks);
  check(cudaMemset(records.get(), 0, records.bytes()), "cudaMemset (the records)");
  traced_spin<<<blocks, threads_per_block>>>(spin_ns, records.get());
  return finish(records, blocks, "traced_spin");
}

std::vector<double> time_branchy(Split split, unsigned blocks, unsigned threads_per_block, int iterations,
                                 int trials) {
  check_grid("time_branchy", blocks, threads_per_block);
  if (iterations <= 0 || trials <= 0) {
    throw std::invalid_argument("time_branchy: iterations and trials must be positive, got " +
                                std::to_string(iterations) + " and " + std::to_string(trials));
  }
  cuda::DeviceBuffer<float> out(std::size_t{blocks} * threads_per_block);
  cuda::Event before, after;
  // The first launch loads the module and warms the caches: not timed.
  branchy<<<blocks, threads_per_block>>>(split, iterations, out.get());
  check(cudaGetLastError(), "branchy");
  check(cudaDeviceSynchronize(), "branchy");
  std::vector<double> milliseconds;
  for (int trial = 0; trial < trials; ++trial) {
    check(cudaEventRecord(before.get()), "cudaEventRecord");
    branchy<<<blocks, threads_per_block>>>(split, iterations, out.get());
    check(cudaGetLastError(), "branchy");
    check(cudaEventRecord(after.get()), "cudaEventRecord");
    check(cudaEventSynchronize(after.get()), "cudaEventSynchronize");
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, before.get(), after.get()), "cudaEventElapsedTime");
    milliseconds.push_back(ms);
  }
  return milliseconds;
}

}  // namespace launchlab::on_the_sm
