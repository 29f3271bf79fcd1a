// The library `launchlab trace` puts into a CUDA program (LD_PRELOAD): at
// every kernel launch call it reads the driver's memory before and after the
// call, through lab 12's take_snapshot (read-only, /dev/nvidiactl mappings
// only), and the channel's GPFIFO rings and USERD beside it (the readable
// shared mapping of /dev/nvidia0, read-only: read_channel_memory), and writes
// what it decoded as one JSON line per launch to the file named by
// LAUNCHLAB_TRACE_OUT (standard error when unset).
//
// Launches are seen through CUPTI's callbacks on the driver API, which also
// see the launches the CUDA runtime makes (<<<>>>, cudaLaunchKernel; the
// capture program's CUPTI check shows it): the runtime reaches the driver
// through entry points it asks libcuda for, which a preloaded cuLaunchKernel
// symbol need not see. Graph launches are not traced.
#include <cuda.h>
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>

#include "trace_decode.h"

namespace {

using launchlab::trace::Call;
namespace real_launch = launchlab::real_launch;

struct Tracer {
  std::mutex lock;
  std::unique_ptr<std::ofstream> file;
  bool raw = false;
  long limit = 100;
  long traced = 0;
  int arch = 0;
  CUpti_SubscriberHandle subscriber = nullptr;
  // The call in progress: what the API was given and the memory before it.
  bool pending = false;
  Call call;
  CUfunction function = nullptr;
  void** kernel_params = nullptr;
  void** extra = nullptr;
  real_launch::Snapshot before;
};

Tracer& tracer() {
  static Tracer* t = new Tracer;  // never destroyed: callbacks may come during exit
  return *t;
}

void emit(const std::string& line) {
  Tracer& t = tracer();
  if (t.file) {
    *t.file << line << "\n";
    t.file->flush();
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

// The driver's memory, and the channel's (GPFIFO rings, USERD) beside it.
struct Taken {
  real_launch::Snapshot memory;
  std::vector<real_launch::Mapping> channel;
};

Taken snapshot_now() {
  const auto maps = real_launch::parse_maps(real_launch::read_own_maps());
  Taken taken{real_launch::take_snapshot(real_launch::driver_memory(maps)), launchlab::trace::channel_mappings(maps)};
  for (auto& region : launchlab::trace::read_channel_memory(taken.channel).regions) {
    taken.memory.regions.push_back(std::move(region));
  }
  return taken;
}

int arch_of_current_context() {
  CUdevice device = 0;
  int major = 0, minor = 0;
  if (cuCtxGetDevice(&device) != CUDA_SUCCESS) return 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  return major * 10 + minor;
}

// The parameter buffer of a launch, from kernelParams (one pointer per
// parameter, sizes from cuFuncGetParamInfo) or from extra's buffer; nothing
// when the driver does not say where the parameters go. Asked once the call
// has returned: a kernel the runtime loads lazily is loaded by then.
std::optional<std::vector<std::byte>> parameters(CUfunction f, void** kernel_params, void** extra) {
  if (kernel_params) {
    std::vector<std::byte> buffer;
    std::size_t i = 0;
    for (;; ++i) {
      std::size_t offset = 0, size = 0;
      const CUresult status = cuFuncGetParamInfo(f, i, &offset, &size);
      if (status == CUDA_ERROR_INVALID_VALUE && i > 0) break;  // past the last parameter
      // At the first parameter it may as well be a driver that cannot say:
      // then the parameters are unknown, and the launch is matched without them.
      if (status != CUDA_SUCCESS) return std::nullopt;
      if (buffer.size() < offset + size) buffer.resize(offset + size);
      std::memcpy(buffer.data() + offset, kernel_params[i], size);
    }
    return buffer;
  }
  if (extra) {
    const void* pointer = nullptr;
    const std::size_t* size = nullptr;
    for (void** e = extra; *e != CU_LAUNCH_PARAM_END; e += 2) {
      if (e[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) pointer = e[1];
      if (e[0] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = static_cast<const std::size_t*>(e[1]);
    }
    if (pointer && size) {
      const auto* bytes = static_cast<const std::byte*>(pointer);
      return std::vector<std::byte>(bytes, bytes + *size);
    }
    return std::nullopt;
  }
  return std::vector<std::byte>{};
}

real_launch::Dim3 required_cluster(CUfunction f) {
  int x = 0, y = 0, z = 0;
  cuFuncGetAttribute(&x, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, f);
  cuFuncGetAttribute(&y, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, f);
  cuFuncGetAttribute(&z, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, f);
  return {static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), static_cast<std::uint32_t>(z)};
}

// What the API was asked, for the launch calls this tracer knows, with the
// function and its parameter arrays for after the call.
std::optional<Call> call_of(CUpti_CallbackId id, const CUpti_CallbackData* cb, CUfunction& f, void**& kernel_params,
                            void**& extra) {
  Call c;
  c.api = cb->functionName ? cb->functionName : "?";
  c.kernel = cb->symbolName ? cb->symbolName : "?";
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchKernel_params*>(cb->functionParams);
      f = p->f;
      c.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
      c.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
      c.shared_bytes = p->sharedMemBytes;
      c.stream = reinterpret_cast<std::uint64_t>(p->hStream);
      kernel_params = p->kernelParams;
      extra = p->extra;
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto* p = static_cast<const cuLaunchKernelEx_params*>(cb->functionParams);
      const CUlaunchConfig* config = p->config;
      f = p->f;
      c.grid = {config->gridDimX, config->gridDimY, config->gridDimZ};
      c.block = {config->blockDimX, config->blockDimY, config->blockDimZ};
      c.shared_bytes = config->sharedMemBytes;
      c.stream = reinterpret_cast<std::uint64_t>(config->hStream);
      for (unsigned i = 0; i < config->numAttrs; ++i) {
        if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
          const auto& d = config->attrs[i].value.clusterDim;
          c.cluster = {d.x, d.y, d.z};
        }
      }
      kernel_params = p->kernelParams;
      extra = p->extra;
      break;
    }
    default:
      return std::nullopt;
  }
  return c;
}

void CUPTIAPI on_driver_api(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  Tracer& t = tracer();
  std::lock_guard guard(t.lock);
  try {
    if (cb->callbackSite == CUPTI_API_ENTER) {
      auto call = call_of(id, cb, t.function, t.kernel_params, t.extra);
      if (!call) return;
      if (t.traced >= t.limit) {
        if (t.traced++ == t.limit) emit(R"({"note": "the launch limit was reached; later launches are not traced"})");
        return;
      }
      if (t.arch == 0) t.arch = arch_of_current_context();
      t.call = std::move(*call);
      t.before = snapshot_now().memory;
      t.pending = true;
    } else if (t.pending) {
      t.pending = false;
      ++t.traced;
      const Taken after = snapshot_now();
      if (t.call.cluster == real_launch::Dim3{0, 0, 0}) {
        const auto required = required_cluster(t.function);
        if (required[0] != 0) t.call.cluster = required;
      }
      t.call.params = parameters(t.function, t.kernel_params, t.extra);
      const auto launches = launchlab::trace::decode_calls({t.call}, t.before, after.memory, t.arch, t.raw, after.channel);
      for (const auto& launch : launches) emit(launch.dump());
      t.before = {};
    }
  } catch (const std::exception& e) {
    t.pending = false;
    nlohmann::json note = {{"note", std::string("the tracer could not read this launch: ") + e.what()}};
    emit(note.dump());
  }
}

void start() {
  Tracer& t = tracer();
  if (t.subscriber) return;
  if (const char* path = std::getenv("LAUNCHLAB_TRACE_OUT"); path && *path) {
    t.file = std::make_unique<std::ofstream>(path, std::ios::app);
  }
  t.raw = std::getenv("LAUNCHLAB_TRACE_RAW") != nullptr;
  if (const char* limit = std::getenv("LAUNCHLAB_TRACE_LIMIT"); limit && *limit) t.limit = std::strtol(limit, nullptr, 10);
  if (cuptiSubscribe(&t.subscriber, on_driver_api, nullptr) != CUPTI_SUCCESS) {
    emit(R"({"note": "cuptiSubscribe failed: another tool (a profiler?) already subscribes to CUPTI here"})");
    t.subscriber = nullptr;
    return;
  }
  for (CUpti_CallbackId id : {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
                              CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz}) {
    cuptiEnableCallback(1, t.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
  }
}

__attribute__((constructor)) void on_load() { start(); }

}  // namespace

// CUDA_INJECTION64_PATH names a library libcuda loads at cuInit and calls
// here: the same tracer, for programs that cannot be preloaded.
extern "C" int InitializeInjection() {
  start();
  return 1;
}
