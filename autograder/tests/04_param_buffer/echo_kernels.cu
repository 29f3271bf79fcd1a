// The echo kernels, compiled into the test program, and the host side of
// cases.h: their parameter lists and the device buffers they echo into.
#include <cuda_runtime_api.h>

#include <functional>
#include <random>
#include <stdexcept>

#include "cases.h"
#include "launchlab/testing.h"
#include "kernels/echo_kernels.cuh"

namespace launchlab::param_buffer_tests {

using param_buffer::param_of;

const std::vector<EchoCase>& echo_cases() {
  static const std::vector<EchoCase> cases = {
      {"scalars",
       {param_of<char>("c"), param_of<short>("s"), param_of<int>("i"), param_of<double>("d")},
       reinterpret_cast<const void*>(&scalars),
       "scalars(char c, short s, int i, double d)"},
      {"mixed",
       {param_of<char>("c"), param_of<double>("d"), param_of<int*>("p"), param_of<short>("s"),
        param_of<float4>("f")},
       reinterpret_cast<const void*>(&mixed),
       "mixed(char c, double d, int* p, short s, float4 f)"},
      {"tail", {param_of<int*>("p"), param_of<short>("s")}, reinterpret_cast<const void*>(&tail),
       "tail(int* p, short s)"},
      {"structs",
       {param_of<char>("c"), param_of<Padded>("pd"), param_of<short>("s"), param_of<Pair>("pr"),
        param_of<char>("last")},
       reinterpret_cast<const void*>(&structs),
       "structs(char c, Padded pd, short s, Pair pr, char last)"},
      {"arrays",
       {param_of<char>("c"), param_of<WithArray>("wa"), param_of<Matrix>("m"), param_of<double>("d"),
        param_of<Nested>("n")},
       reinterpret_cast<const void*>(&arrays),
       "arrays(char c, WithArray wa, Matrix m, double d, Nested n)"},
      {"vectors",
       {param_of<char>("c"), param_of<Aligned16>("a"), param_of<double2>("d2"), param_of<long long>("ll"),
        param_of<unsigned char>("u"), param_of<float4>("f"), param_of<char2>("c2")},
       reinterpret_cast<const void*>(&vectors),
       "vectors(char c, Aligned16 a, double2 d2, long long ll, unsigned char u, float4 f, char2 c2)"},
      {"pointers",
       {param_of<unsigned char>("u"), param_of<const float*>("a"), param_of<unsigned short>("h"),
        param_of<char*>("b"), param_of<unsigned int>("w"), param_of<void*>("v")},
       reinterpret_cast<const void*>(&pointers),
       "pointers(unsigned char u, const float* a, unsigned short h, char* b, unsigned int w, void* v)"},
      {"largest", {param_of<Largest>("l")}, reinterpret_cast<const void*>(&largest), "largest(Largest l)"},
      {"big_after_char", {param_of<char>("c"), param_of<Big>("b")}, reinterpret_cast<const void*>(&big_after_char),
       "big_after_char(char c, Big b)"},
  };
  return cases;
}

const EchoCase& echo_case(const std::string& kernel) {
  for (const auto& c : echo_cases()) {
    if (c.kernel == kernel) return c;
  }
  throw std::invalid_argument("no echo kernel named " + kernel);
}

param_buffer::Layout layout_or_empty(const EchoCase& c) {
  try {
    return param_buffer::lay_out(c.params);
  } catch (const std::exception&) {
    return {};  // the test records what was thrown on its own
  }
}

std::vector<std::vector<std::byte>> sample_values(const EchoCase& c) {
  // The grader may pick other bytes (LAUNCHLAB_SEED) than a learner's runs saw.
  const std::uint64_t seed = launchlab::testing::secret_seed(20240404) ^ std::hash<std::string>{}(c.kernel);
  std::mt19937 random(static_cast<std::uint32_t>(seed ^ (seed >> 32)));
  std::uniform_int_distribution<int> byte(1, 255);
  std::vector<std::vector<std::byte>> values;
  for (const auto& p : c.params) {
    std::vector<std::byte> value(p.size);
    for (auto& b : value) b = static_cast<std::byte>(byte(random));
    values.push_back(std::move(value));
  }
  return values;
}

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

}  // namespace

void clear_echo() {
  void* bytes = nullptr;
  void* offsets = nullptr;
  check(cudaGetSymbolAddress(&bytes, launchlab_echo_bytes), "cudaGetSymbolAddress(launchlab_echo_bytes)");
  check(cudaGetSymbolAddress(&offsets, launchlab_echo_offsets), "cudaGetSymbolAddress(launchlab_echo_offsets)");
  check(cudaMemset(bytes, static_cast<int>(kNeverWritten), kEchoCapacity), "cudaMemset");
  check(cudaMemset(offsets, 0xff, sizeof(unsigned long long) * kMaxEchoParams), "cudaMemset");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

std::vector<std::byte> read_echo_bytes(std::size_t count) {
  if (count > kEchoCapacity) throw std::invalid_argument("read_echo_bytes: more than the echo buffer holds");
  std::vector<std::byte> bytes(count);
  check(cudaMemcpyFromSymbol(bytes.data(), launchlab_echo_bytes, count), "cudaMemcpyFromSymbol(launchlab_echo_bytes)");
  return bytes;
}

std::vector<std::uint64_t> read_echo_offsets(std::size_t count) {
  if (count > kMaxEchoParams) throw std::invalid_argument("read_echo_offsets: more than the echo kernels record");
  std::vector<unsigned long long> raw(count);
  check(cudaMemcpyFromSymbol(raw.data(), launchlab_echo_offsets, count * sizeof(unsigned long long)),
        "cudaMemcpyFromSymbol(launchlab_echo_offsets)");
  return std::vector<std::uint64_t>(raw.begin(), raw.end());
}

}  // namespace launchlab::param_buffer_tests
