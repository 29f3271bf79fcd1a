// On the GPU: launches of the kernels of captures/kernels.cu, from the
// committed cubin, each between two snapshots of the driver's memory taken
// with the learner's parse_maps and driver_memory; the learner's pipeline
// decodes what changed and check_launch compares every field with
// expected_launch. What the tests record is the same in every process (no
// addresses): that each launch was found and which fields differ.
#include <gtest/gtest.h>
#include <vector_types.h>

#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "launchlab/driver_api.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "pipeline.h"
#include "real_launch.h"

namespace launchlab::real_launch_tests {
namespace {

using launchlab::testing::check_driver;
using launchlab::testing::driver_api;

constexpr const char* kCubin = "kernels.sm_90.cubin";

// The captures and the rules of expected_launch are those of sm_90; another
// GPU has another QMD layout, or another constant bank.
std::optional<std::string> not_sm90() {
  if (auto why = launchlab::testing::gpu_unavailable_reason()) return why;
  CUdevice device = 0;
  check_driver(driver_api().ctx_get_device(&device), "cuCtxGetDevice");
  int major = 0, minor = 0;
  check_driver(driver_api().device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "cuDeviceGetAttribute");
  check_driver(driver_api().device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "cuDeviceGetAttribute");
  if (major * 10 + minor != 90) {
    return "this lab's launches are decoded for sm_90 (QMD V04_00); this GPU is sm_" + std::to_string(major * 10 + minor);
  }
  return std::nullopt;
}

#define REQUIRE_SM90() LAUNCHLAB_REQUIRE(::launchlab::real_launch_tests::not_sm90(), "an sm_90 GPU (an H100 or H200)")

// The kernels, their parameter layouts as the driver reports them, a buffer
// they write into, and two streams.
class Kernels {
 public:
  static Kernels& get() {
    static Kernels kernels;
    return kernels;
  }

  CUfunction function(const std::string& name) {
    auto it = functions_.find(name);
    if (it != functions_.end()) return it->second;
    CUfunction f = nullptr;
    check_driver(driver_api().module_get_function(&f, module_, name.c_str()), "cuModuleGetFunction " + name);
    return functions_.emplace(name, f).first->second;
  }

  std::vector<std::pair<std::size_t, std::size_t>> param_info(const std::string& name) {
    std::vector<std::pair<std::size_t, std::size_t>> info;
    for (std::size_t i = 0;; ++i) {
      std::size_t offset = 0, size = 0;
      if (driver_api().func_get_param_info(function(name), i, &offset, &size) != CUDA_SUCCESS) break;
      info.emplace_back(offset, size);
    }
    return info;
  }

  int attribute(const std::string& name, CUfunction_attribute a) {
    int value = 0;
    check_driver(driver_api().func_get_attribute(&value, a, function(name)), "cuFuncGetAttribute");
    return value;
  }

  CUdeviceptr out() const { return out_; }
  CUstream stream(int index) const { return streams_[index]; }
  std::uint32_t reserved_shared() const { return reserved_shared_; }

  // `size` bytes of GPU memory at `address`, copied by the peek kernel, which
  // only loads from there.
  std::vector<std::byte> peek(std::uint64_t address, std::size_t size) {
    std::uint64_t from = address;
    CUdeviceptr to = peeked_;
    int words = static_cast<int>((size + 7) / 8);
    void* args[] = {&from, &to, &words};
    check_driver(driver_api().launch_kernel(function("peek"), 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr), "peek");
    check_driver(driver_api().ctx_synchronize(), "cuCtxSynchronize after peek");
    std::vector<std::byte> bytes(static_cast<std::size_t>(words) * 8);
    check_driver(driver_api().memcpy_dtoh(bytes.data(), peeked_, bytes.size()), "cuMemcpyDtoH");
    bytes.resize(size);
    return bytes;
  }

 private:
  Kernels() {
    const auto& bytes = cubin_bytes(kCubin);
    check_driver(driver_api().module_load_data(&module_, bytes.data()), std::string("cuModuleLoadData ") + kCubin);
    check_driver(driver_api().mem_alloc(&out_, 4u << 20), "cuMemAlloc");
    check_driver(driver_api().mem_alloc(&peeked_, 1u << 16), "cuMemAlloc");
    check_driver(driver_api().stream_create(&streams_[1], CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    check_driver(driver_api().stream_create(&streams_[2], CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    check_driver(driver_api().func_set_attribute(function("shared_dynamic"), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200000),
          "cuFuncSetAttribute");
    CUdevice device = 0;
    check_driver(driver_api().ctx_get_device(&device), "cuCtxGetDevice");
    int reserved = 0;
    check_driver(driver_api().device_get_attribute(&reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, device),
          "cuDeviceGetAttribute");
    reserved_shared_ = static_cast<std::uint32_t>(reserved);
  }

  CUmodule module_ = nullptr;
  std::map<std::string, CUfunction> functions_;
  CUdeviceptr out_ = 0, peeked_ = 0;
  CUstream streams_[3] = {nullptr, nullptr, nullptr};
  std::uint32_t reserved_shared_ = 0;
};

template <class T>
std::vector<std::byte> arg(const T& value) {
  std::vector<std::byte> b(sizeof(T));
  std::memcpy(b.data(), &value, sizeof(T));
  return b;
}

std::vector<std::byte> blob(std::size_t n) {
  std::vector<std::byte> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::byte>((i * 7 + n) & 0xff);
  b[n - 1] = std::byte{0x5a};  // never what the kernels look for
  return b;
}

// One launch as the test makes it.
struct Live {
  std::string kernel;
  Dim3 grid{1, 1, 1}, block{1, 1, 1};
  Dim3 cluster{0, 0, 0};  // given at launch through cuLaunchKernelEx; none when 0
  std::uint32_t shared = 0;
  int stream = 0;
  std::vector<std::vector<std::byte>> values;

  std::string describe() const {
    return kernel + "<<<" + show(grid) + ", " + show(block) + ", " + std::to_string(shared) + ", stream " +
           std::to_string(stream) + ">>>" + (cluster[0] ? " cluster " + show(cluster) : "");
  }
};

Live fill(Dim3 grid, Dim3 block, int stream = 0) {
  const unsigned long long threads = 1ull * grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2];
  const int n = static_cast<int>(std::min<unsigned long long>(threads, 1u << 20));
  return Live{"fill", grid, block, {0, 0, 0}, 0, stream,
              {arg(Kernels::get().out()), arg(n), arg(static_cast<int>(0x5eed0000 + grid[0]))}};
}

Live one(const std::string& kernel, Dim3 grid, Dim3 block, std::vector<std::vector<std::byte>> values, std::uint32_t shared = 0) {
  return Live{kernel, grid, block, {0, 0, 0}, shared, 0, std::move(values)};
}

// The buffer the CUDA side packs: each value at the offset the driver reports.
std::vector<std::byte> packed(const Live& l) {
  const auto info = Kernels::get().param_info(l.kernel);
  std::vector<std::byte> buffer(info.empty() ? 0 : info.back().first + info.back().second);
  for (std::size_t i = 0; i < info.size() && i < l.values.size(); ++i) {
    std::memcpy(buffer.data() + info[i].first, l.values[i].data(), std::min(info[i].second, l.values[i].size()));
  }
  return buffer;
}

void launch(const Live& l) {
  Kernels& k = Kernels::get();
  std::vector<std::byte> buffer = packed(l);
  std::vector<void*> pointers;
  for (const auto& [offset, size] : k.param_info(l.kernel)) pointers.push_back(buffer.data() + offset);
  if (l.cluster[0] == 0) {
    check_driver(driver_api().launch_kernel(k.function(l.kernel), l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1],
                                      l.block[2], l.shared, k.stream(l.stream), pointers.empty() ? nullptr : pointers.data(),
                                      nullptr),
          "cuLaunchKernel " + l.describe());
    return;
  }
  CUlaunchConfig config{};
  config.gridDimX = l.grid[0];
  config.gridDimY = l.grid[1];
  config.gridDimZ = l.grid[2];
  config.blockDimX = l.block[0];
  config.blockDimY = l.block[1];
  config.blockDimZ = l.block[2];
  config.sharedMemBytes = l.shared;
  config.hStream = k.stream(l.stream);
  CUlaunchAttribute attribute{};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = l.cluster[0];
  attribute.value.clusterDim.y = l.cluster[1];
  attribute.value.clusterDim.z = l.cluster[2];
  config.attrs = &attribute;
  config.numAttrs = 1;
  check_driver(driver_api().launch_kernel_ex(&config, k.function(l.kernel), pointers.empty() ? nullptr : pointers.data(), nullptr),
        "cuLaunchKernelEx " + l.describe());
}

real_launch::LaunchRecord record_of(const Live& l) {
  Kernels& k = Kernels::get();
  real_launch::LaunchRecord r;
  r.kernel = l.kernel;
  r.api = l.cluster[0] ? "cuLaunchKernelEx" : "cuLaunchKernel";
  r.grid = l.grid;
  r.block = l.block;
  r.cluster = l.cluster;
  if (r.cluster == Dim3{0, 0, 0}) {
    const Dim3 required{static_cast<std::uint32_t>(k.attribute(l.kernel, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH)),
                        static_cast<std::uint32_t>(k.attribute(l.kernel, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT)),
                        static_cast<std::uint32_t>(k.attribute(l.kernel, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH))};
    if (required[0] != 0) r.cluster = required;
  }
  r.shared_dynamic = l.shared;
  r.stream = l.stream;
  r.values = l.values;
  return r;
}

// The driver's memory now, as the learner's code finds it.
std::vector<real_launch::Mapping> driver_memory_now() {
  return real_launch::driver_memory(real_launch::parse_maps(real_launch::read_own_maps()));
}

void sync() { check_driver(driver_api().ctx_synchronize(), "cuCtxSynchronize"); }

// Launches a shape once to warm it up (the first launch of a kernel loads its
// code), then again between two snapshots, decodes what changed and checks
// every launch. Returns what was decoded, for the test's own records.
Decoded record_shape(const std::string& name, const std::vector<Live>& launches) {
  RECORD_SCOPE(name);
  for (const Live& l : launches) launch(l);
  sync();
  real_launch::Snapshot before, after;
  try {
    before = real_launch::take_snapshot(driver_memory_now());
    for (const Live& l : launches) launch(l);
    sync();
    after = real_launch::take_snapshot(driver_memory_now());
  } catch (const real_launch::LaunchError& e) {
    RECORD_EQ(std::string(e.what()), std::string()) << "taking the snapshots with the learner's parse_maps and driver_memory";
    return {};
  }
  Decoded d = decode(before, after, qmd::QmdVersion::V04_00);
  RECORD_EQ(d.error, std::string()) << "decoding what the launches changed";

  real_launch::DeviceFacts facts;
  facts.reserved_shared = Kernels::get().reserved_shared();
  std::vector<bool> used(d.launches.size(), false);
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const Live& l = launches[i];
    RECORD_SCOPE("launch " + std::to_string(i) + ": " + l.describe());
    const real_launch::LaunchRecord r = record_of(l);
    const std::string wanted = signature(r, packed(l));
    std::size_t at = 0;
    while (at < d.launches.size() && (used[at] || signature(d.launches[at]) != wanted)) ++at;
    RECORD_EQ(at < d.launches.size() ? std::string("found") : std::string("not found among ") + std::to_string(d.launches.size()),
              std::string("found"))
        << "a decoded launch with this launch's gridDim, blockDim and parameter bytes in its constant bank";
    if (at == d.launches.size()) continue;
    used[at] = true;
    const DecodedLaunch& found = d.launches[at];
    std::vector<std::string> mismatches;
    try {
      const real_launch::ExpectedLaunch e = real_launch::expected_launch(cubin(kCubin), r, facts);
      auto shown = [](const std::vector<real_launch::Mismatch>& list) {
        std::vector<std::string> out;
        for (const auto& m : list) out.push_back(m.field + ": expected " + m.expected + ", found " + m.found);
        return out;
      };
      mismatches = shown(real_launch::check_launch(found.qmd.qmd, found.bank, e));
      // Read the code back only from a QMD that agrees in everything else: a
      // wrong address could make the peek kernel fault.
      if (mismatches.empty()) {
        const auto code = Kernels::get().peek(found.qmd.qmd.program_address, 256);
        mismatches = shown(real_launch::check_launch(found.qmd.qmd, found.bank, e, code));
      }
    } catch (const std::exception& error) {
      mismatches.push_back(std::string("threw: ") + error.what());
    }
    RECORD_EQ(mismatches, std::vector<std::string>{})
        << "every field of the decoded QMD and constant bank, and the code at the program address";
  }
  return d;
}

void record_shapes(const std::vector<std::pair<std::string, std::vector<Live>>>& shapes) {
  for (const auto& [name, launches] : shapes) record_shape(name, launches);
}

TEST(Live, DriverMemoryIsFoundAndALaunchChangesIt) {
  LAUNCHLAB_REQUIRE_GPU();
  REQUIRE_SM90();
  launch(fill({3, 1, 1}, {64, 1, 1}));
  sync();
  std::vector<real_launch::Mapping> memory;
  RECORD_NO_THROW(memory = driver_memory_now()) << "parse_maps(read_own_maps()) and driver_memory";
  std::set<std::string> paths;
  for (const auto& m : memory) paths.insert(m.path + " " + (m.perms.size() == 4 ? std::string{m.perms[0], m.perms[3]} : m.perms));
  RECORD_EQ(paths, std::set<std::string>{"/dev/nvidiactl rs"}) << "the paths and permissions (read, shared) kept";
  real_launch::Snapshot before, after;
  RECORD_NO_THROW(before = real_launch::take_snapshot(memory)) << "take_snapshot of what driver_memory kept";
  launch(fill({3, 1, 1}, {64, 1, 1}));
  sync();
  RECORD_NO_THROW(after = real_launch::take_snapshot(driver_memory_now())) << "take_snapshot after a launch";
  std::vector<real_launch::Change> changes;
  RECORD_NO_THROW(changes = real_launch::changed_ranges(before, after)) << "changed_ranges";
  RECORD_TRUE(!changes.empty()) << "fill<<<3, 64>>> changed some of the driver's memory";
  std::size_t streams = 0;
  try {
    streams = real_launch::method_streams(changes).size();
  } catch (const std::exception&) {
  }
  RECORD_EQ(streams, 1u) << "the method streams among the changes of one launch";
}

TEST(Live, OneDimensionalGrids) {
  LAUNCHLAB_REQUIRE_GPU();
  REQUIRE_SM90();
  record_shapes({
      {"fill<<<1, 1>>>", {fill({1, 1, 1}, {1, 1, 1})}},
      {"fill<<<4096, 256>>>", {fill({4096, 1, 1}, {256, 1, 1})}},
      {"fill<<<65535, 1024>>>", {fill({65535, 1, 1}, {1024, 1, 1})}},
      {"fill<<<1000000, 32>>>", {fill({1000000, 1, 1}, {32, 1, 1})}},
      {"fill<<<999, 33>>>", {fill({999, 1, 1}, {33, 1, 1})}},
  });
}

TEST(Live, TwoAndThreeDimensionalGrids) {
  LAUNCHLAB_REQUIRE_GPU();
  REQUIRE_SM90();
  record_shapes({
      {"the chapter's odd-shaped launch", {fill({1021, 5, 7}, {96, 2, 1})}},
      {"odd sizes, the largest grid height", {fill({7, 65535, 3}, {3, 5, 7})}},
      {"3-D", {fill({13, 17, 19}, {8, 8, 8})}},
      {"the largest grid depth", {fill({2, 2, 65535}, {1, 1, 1})}},
      {"2-D", {fill({33, 9, 1}, {32, 32, 1})}},
      {"the largest block depth", {fill({1, 1, 1}, {1, 1, 64})}},
  });
}

TEST(Live, SharedMemory) {
  LAUNCHLAB_REQUIRE_GPU();
  REQUIRE_SM90();
  const auto out = arg(Kernels::get().out());
  record_shapes({
      {"no dynamic shared memory", {one("shared_dynamic", {100, 1, 1}, {128, 1, 1}, {out, arg(0)}, 0)}},
      {"4 bytes", {one("shared_dynamic", {100, 1, 1}, {128, 1, 1}, {out, arg(1)}, 4)}},
      {"1000 bytes", {one("shared_dynamic", {100, 1, 1}, {128, 1, 1}, {out, arg(250)}, 1000)}},
      {"48 KiB", {one("shared_dynamic", {100, 1, 1}, {128, 1, 1}, {out, arg(12288)}, 49152)}},
      {"200,000 bytes, opted in", {one("shared_dynamic", {10, 1, 1}, {128, 1, 1}, {out, arg(50000)}, 200000)}},
      {"4 KiB static and 1000 bytes dynamic", {one("shared_static", {50, 1, 1}, {256, 1, 1}, {out, arg(250)}, 1000)}},
  });
}

TEST(Live, LargeParameters) {
  LAUNCHLAB_REQUIRE_GPU();
  REQUIRE_SM90();
  record_shapes({
      {"1 KiB of parameters", {one("param_1024", {2, 1, 1}, {64, 1, 1}, {blob(1024)})}},
      {"4,100 bytes", {one("param_4100", {2, 1, 1}, {64, 1, 1}, {blob(4100)})}},
      {"16 KiB", {one("param_16384", {2, 1, 1}, {64, 1, 1}, {blob(16384)})}},
      {"32,764 bytes, the most", {one("param_32764", {2, 1, 1}, {64, 1, 1}, {blob(32764)})}},
  });
}

TEST(Live, SeveralKernels) {
  LAUNCHLAB_REQUIRE_GPU();
  REQUIRE_SM90();
  const auto out = arg(Kernels::get().out());
  const float4 f{1.0f, 2.0f, 3.0f, 4.0f};
  record_shapes({
      {"no parameters", {one("empty", {1, 1, 1}, {1, 1, 1}, {})}},
      {"lab 04's k(char, double, int*, short, float4)",
       {one("mixed", {1, 1, 1}, {32, 1, 1}, {arg('L'), arg(2.5), out, arg(short{-7}), arg(f)})}},
      {"many registers", {one("heavy_registers", {64, 1, 1}, {128, 1, 1}, {out, arg(3)})}},
      {"a stack frame", {one("uses_local", {64, 1, 1}, {128, 1, 1}, {out, arg(5)})}},
      {"a second named barrier", {one("named_barrier", {16, 1, 1}, {128, 1, 1}, {out})}},
      {"registers_6", {one("registers_6", {8, 1, 1}, {128, 1, 1}, {out, arg(2)})}},
      {"registers_12", {one("registers_12", {8, 1, 1}, {128, 1, 1}, {out, arg(2)})}},
      {"registers_20", {one("registers_20", {8, 1, 1}, {128, 1, 1}, {out, arg(2)})}},
      {"registers_32", {one("registers_32", {8, 1, 1}, {128, 1, 1}, {out, arg(2)})}},
      {"registers_100", {one("registers_100", {8, 1, 1}, {128, 1, 1}, {out, arg(2)})}},
  });
}

TEST(Live, Clusters) {
  LAUNCHLAB_REQUIRE_GPU();
  REQUIRE_SM90();
  const auto out = arg(Kernels::get().out());
  Live two = fill({8, 3, 1}, {64, 1, 1});
  two.cluster = {2, 1, 1};
  Live four = fill({8, 4, 2}, {32, 1, 1});
  four.cluster = {2, 2, 1};
  record_shapes({
      {"__cluster_dims__(2, 1, 1)", {one("clustered", {8, 1, 1}, {64, 1, 1}, {out})}},
      {"a cluster of 2 given at launch", {two}},
      {"a cluster of 2 x 2 given at launch", {four}},
  });
}

TEST(Live, TwoStreams) {
  LAUNCHLAB_REQUIRE_GPU();
  REQUIRE_SM90();
  const Decoded d = record_shape("one launch on each of two streams", {fill({302, 1, 1}, {64, 1, 1}, 1), fill({303, 1, 1}, {64, 1, 1}, 2)});
  RECORD_EQ(d.streams.size(), 2u) << "the method streams of launches on two streams of their own";
}

TEST(Live, BackToBackLaunches) {
  LAUNCHLAB_REQUIRE_GPU();
  REQUIRE_SM90();
  const auto out = arg(Kernels::get().out());
  const Decoded d = record_shape("three launches on the NULL stream",
                                 {fill({11, 1, 1}, {64, 1, 1}), one("mixed", {1, 1, 1}, {32, 1, 1}, {arg('x'), arg(1.0), out, arg(short{3}), arg(float4{0, 0, 0, 1})}),
                                  one("empty", {2, 1, 1}, {32, 1, 1}, {})});
  RECORD_EQ(d.streams.size(), 1u) << "the method streams of three launches on one stream";
  std::vector<std::string> order;
  for (const auto& l : d.launches) {
    order.push_back(l.bank.size() >= 24 ? show(real_launch::read_bank_header(l.bank).grid_dim) : std::string("?"));
  }
  RECORD_EQ(order, (std::vector<std::string>{"(11, 1, 1)", "(1, 1, 1)", "(2, 1, 1)"})) << "the kernels' gridDim, in stream order";
}

}  // namespace
}  // namespace launchlab::real_launch_tests
