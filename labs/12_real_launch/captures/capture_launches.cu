// Records what libcuda writes for kernel launches, as the process that
// launches them can see it: for each launch shape, every word of this
// process's /dev/nvidiactl mappings that changed between just before the
// launch and just after it (and a synchronize), read through /proc/self/mem.
//
//   capture_launches CUBIN OUT_DIR          one capture file per shape
//   capture_launches CUBIN OUT_DIR --channel  (also) reads /dev/nvidia0's
//                                           readable shared mappings (GPFIFO, USERD)
//   capture_launches CUBIN OUT_DIR --cupti  (also) checks that CUPTI's
//                                           callbacks see every launch
//
// It only reads: /proc/self/mem is opened O_RDONLY, and only the readable
// shared mappings of /dev/nvidiactl (memory the driver allocated in RAM for
// this process) are read, and with --channel those of /dev/nvidia0 (the
// channels' GPFIFO rings and USERD); the write-only mappings of /dev/nvidia0
// and those of /dev/nvidia-uvm are listed and never read.
//
// A capture is a text file (format described in README.md next to it): the
// launches as the CUDA side saw them (kernel, grid, block, dynamic shared
// memory, stream, parameter bytes, the driver's attributes of the kernel),
// the nvidia mappings, and windows of changed memory with their bytes before
// and after.
#include <cuda.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#ifdef LAUNCHLAB_WITH_CUPTI
#include <cupti.h>
#endif

// The capture program's own kernel, launched through the runtime (<<<>>> and
// cudaLaunchKernel). extern "C": its symbol, which the captures name, is its name.
extern "C" __global__ void runtime_fill(int* out, int n, int m) {
  const unsigned long long block =
      blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
  const unsigned long long t =
      block * (blockDim.x * blockDim.y * blockDim.z) + threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  if (t < static_cast<unsigned long long>(n)) out[t] = m;
}

namespace {

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

void check(CUresult result, const char* what) {
  if (result != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(result, &name);
    std::fprintf(stderr, "%s failed: %s\n", what, name ? name : "?");
    std::exit(1);
  }
}
#define CHECK(call) check((call), #call)

void check_rt(cudaError_t result, const char* what) {
  if (result != cudaSuccess) {
    std::fprintf(stderr, "%s failed: %s\n", what, cudaGetErrorString(result));
    std::exit(1);
  }
}
#define CHECK_RT(call) check_rt((call), #call)

// ---------------------------------------------------------------------------
// The process's mappings and reading them
// ---------------------------------------------------------------------------

struct Mapping {
  std::uint64_t start = 0, end = 0;
  std::string perms;
  std::uint64_t offset = 0;
  std::string path;
};

std::vector<Mapping> read_maps() {
  std::vector<Mapping> maps;
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    Mapping m;
    char perms[8] = {};
    unsigned long long start = 0, end = 0, offset = 0, inode = 0;
    char dev[32] = {};
    int consumed = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %31s %llu %n", &start, &end, perms, &offset, dev, &inode,
                    &consumed) < 6) {
      continue;
    }
    m.start = start;
    m.end = end;
    m.perms = perms;
    m.offset = offset;
    m.path = consumed > 0 && consumed <= static_cast<int>(line.size()) ? line.substr(static_cast<std::size_t>(consumed)) : "";
    maps.push_back(m);
  }
  return maps;
}

bool is_nvidia_device(const Mapping& m) { return m.path.rfind("/dev/nvidia", 0) == 0; }

bool is_readable_shared(const Mapping& m) { return m.perms.size() >= 4 && m.perms[0] == 'r' && m.perms[3] == 's'; }

// With --channel, the readable shared mappings of /dev/nvidia0 are read too:
// on the H200 with driver 580 one of 2 MiB holds the channel's GPFIFO ring and
// its USERD (GP_PUT), in memory the driver placed in RAM. The write-only
// mappings of /dev/nvidia0 (the doorbell's) cannot be read and are not.
bool read_channel_memory = false;

// The mappings this program reads: shared, readable, of /dev/nvidiactl (and
// of /dev/nvidia0 with --channel).
bool is_readable_ctl(const Mapping& m) {
  if (!is_readable_shared(m)) return false;
  return m.path == "/dev/nvidiactl" || (read_channel_memory && m.path == "/dev/nvidia0");
}

int self_mem() {
  static int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::perror("open /proc/self/mem");
    std::exit(1);
  }
  return fd;
}

// Reads [address, address + size) through /proc/self/mem, page by page where
// a larger read fails. Returns which pages could be read.
std::vector<bool> read_memory(std::uint64_t address, std::size_t size, unsigned char* to) {
  constexpr std::size_t kPage = 4096;
  constexpr std::size_t kChunk = 1 << 20;
  std::vector<bool> readable((size + kPage - 1) / kPage, true);
  for (std::size_t done = 0; done < size;) {
    const std::size_t n = std::min(kChunk, size - done);
    ssize_t got = pread(self_mem(), to + done, n, static_cast<off_t>(address + done));
    if (got == static_cast<ssize_t>(n)) {
      done += n;
      continue;
    }
    for (std::size_t page = 0; page < n; page += kPage) {
      const std::size_t m = std::min(kPage, n - page);
      if (pread(self_mem(), to + done + page, m, static_cast<off_t>(address + done + page)) != static_cast<ssize_t>(m)) {
        std::memset(to + done + page, 0, m);
        readable[(done + page) / kPage] = false;
      }
    }
    done += n;
  }
  return readable;
}

// One read of every readable /dev/nvidiactl mapping, in buffers of its own
// (mmap'ed, so that the copies are never inside the memory they copy).
struct Area {
  Mapping map;
  unsigned char* bytes = nullptr;
  std::vector<bool> readable;
};

struct Snapshot {
  std::vector<Area> areas;
  double seconds = 0;
  Snapshot() = default;
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;
  Snapshot(Snapshot&& other) noexcept : areas(std::move(other.areas)), seconds(other.seconds) { other.areas.clear(); }
  ~Snapshot() {
    for (auto& a : areas) munmap(a.bytes, a.map.end - a.map.start);
  }
  const Area* find(std::uint64_t start) const {
    for (const auto& a : areas) {
      if (a.map.start == start) return &a;
    }
    return nullptr;
  }
};

constexpr std::uint64_t kMaxSnapshotBytes = 3ull << 30;

// After calibration, a snapshot reads only the mappings that changed during
// it (where the pushbuffers, the rings and the semaphores are) and mappings
// that appeared since: reading every mapping for every launch is slow.
struct Calibration {
  bool done = false;
  std::vector<std::uint64_t> hot;    // starts of mappings that changed
  std::vector<std::uint64_t> known;  // starts of every mapping at the time
};
Calibration calibration;

bool wanted(const Mapping& m) {
  if (!calibration.done) return true;
  auto in = [&](const std::vector<std::uint64_t>& list) { return std::find(list.begin(), list.end(), m.start) != list.end(); };
  return in(calibration.hot) || !in(calibration.known);
}

Snapshot take_snapshot() {
  const auto t0 = std::chrono::steady_clock::now();
  Snapshot snap;
  std::uint64_t total = 0;
  for (const Mapping& m : read_maps()) {
    if (!is_readable_ctl(m) || !wanted(m)) continue;
    const std::uint64_t size = m.end - m.start;
    if (total + size > kMaxSnapshotBytes) {
      std::fprintf(stderr, "snapshot: skipping %" PRIx64 " (%" PRIu64 " bytes): over the limit\n", m.start, size);
      continue;
    }
    total += size;
    void* copy = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy == MAP_FAILED) {
      std::perror("mmap");
      std::exit(1);
    }
    Area area;
    area.map = m;
    area.bytes = static_cast<unsigned char*>(copy);
    area.readable = read_memory(m.start, size, area.bytes);
    snap.areas.push_back(std::move(area));
  }
  snap.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return snap;
}

// ---------------------------------------------------------------------------
// Windows of changed memory
// ---------------------------------------------------------------------------

struct Window {
  std::uint64_t address = 0;
  std::vector<unsigned char> before, after;
  bool is_new = false;  // the mapping did not exist before
  std::string path;
};

// Changes closer than this share a window: a QMD holds runs of zero words,
// which are unchanged where the pushbuffer was zero before.
constexpr std::size_t kMergeGap = 1024;
constexpr std::size_t kContext = 64;    // unchanged bytes kept on each side
constexpr std::size_t kMaxWindowBytes = 8u << 20;

std::vector<Window> diff(const Snapshot& before, const Snapshot& after, std::string& notes) {
  std::vector<Window> windows;
  std::size_t total = 0;
  for (const Area& a : after.areas) {
    const std::uint64_t size = a.map.end - a.map.start;
    const Area* b = before.find(a.map.start);
    if (!b || b->map.end != a.map.end) {
      // A new mapping: keep its first bytes that are not zero.
      std::size_t last = 0;
      for (std::size_t i = 0; i < size; ++i) {
        if (a.bytes[i]) last = i + 1;
      }
      const std::size_t keep = std::min<std::size_t>((last + 63) / 64 * 64, 1u << 20);
      notes += "new mapping " + std::to_string(size) + " bytes, " + std::to_string(last) + " up to the last non-zero byte\n";
      if (keep > 0) {
        Window w;
        w.address = a.map.start;
        w.after.assign(a.bytes, a.bytes + keep);
        w.is_new = true;
        w.path = a.map.path;
        total += keep;
        windows.push_back(std::move(w));
      }
      continue;
    }
    // Changed 4-byte words, merged into ranges.
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    for (std::size_t page = 0; page < size; page += 4096) {
      const std::size_t n = std::min<std::size_t>(4096, size - page);
      if (std::memcmp(a.bytes + page, b->bytes + page, n) == 0) continue;
      for (std::size_t i = page; i < page + n; i += 4) {
        if (std::memcmp(a.bytes + i, b->bytes + i, 4) == 0) continue;
        if (!ranges.empty() && i <= ranges.back().second + kMergeGap) {
          ranges.back().second = i + 4;
        } else {
          ranges.emplace_back(i, i + 4);
        }
      }
    }
    for (auto [lo, hi] : ranges) {
      lo = lo >= kContext ? lo - kContext : 0;
      hi = std::min<std::size_t>(hi + kContext, size);
      if (!windows.empty() && !windows.back().is_new && windows.back().path == a.map.path &&
          windows.back().address + windows.back().after.size() >= a.map.start + lo &&
          windows.back().address <= a.map.start + lo) {
        // Overlaps the previous window of the same mapping: extend it.
        Window& w = windows.back();
        const std::size_t from = w.address - a.map.start;
        w.before.assign(b->bytes + from, b->bytes + hi);
        w.after.assign(a.bytes + from, a.bytes + hi);
        continue;
      }
      if (total + (hi - lo) > kMaxWindowBytes) {
        notes += "window at +" + std::to_string(lo) + " of " + std::to_string(hi - lo) + " bytes left out (limit)\n";
        continue;
      }
      Window w;
      w.address = a.map.start + lo;
      w.before.assign(b->bytes + lo, b->bytes + hi);
      w.after.assign(a.bytes + lo, a.bytes + hi);
      w.path = a.map.path;
      total += hi - lo;
      windows.push_back(std::move(w));
    }
  }
  return windows;
}

// ---------------------------------------------------------------------------
// The launches
// ---------------------------------------------------------------------------

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct KernelInfo {
  std::string name;
  std::string cubin;  // the file the kernel's code comes from
  CUfunction function = nullptr;
  std::vector<std::pair<std::size_t, std::size_t>> params;  // cuFuncGetParamInfo: offset, size
  std::map<std::string, int> attributes;
};

enum class Api { Driver, DriverEx, Runtime, RuntimeTriple };

struct Launch {
  const KernelInfo* kernel = nullptr;
  Api api = Api::Driver;
  Dim3 grid, block;
  unsigned shared_dynamic = 0;
  Dim3 cluster{0, 0, 0};  // a cluster given at launch (cuLaunchKernelEx), 0 when none
  int stream = 0;  // 0: the NULL stream, 1 and 2: two streams of our own
  std::vector<unsigned char> params;  // the parameter buffer, packed
};

struct Shape {
  std::string name;
  std::string note;
  std::vector<Launch> launches;
  bool skip_warmup = false;  // the first launch of the program: no warm-up
  std::size_t stack_limit = 0;  // cuCtxSetLimit(CU_LIMIT_STACK_SIZE) first, when not 0
};

std::string hex(const unsigned char* bytes, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

std::string api_name(Api api) {
  switch (api) {
    case Api::Driver: return "cuLaunchKernel";
    case Api::DriverEx: return "cuLaunchKernelEx";
    case Api::Runtime: return "cudaLaunchKernel";
    case Api::RuntimeTriple: return "<<<>>>";
  }
  return "?";
}

struct Program {
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  CUstream streams[3] = {nullptr, nullptr, nullptr};
  std::map<std::string, KernelInfo> kernels;
  CUdeviceptr out = 0;      // 4 MiB every kernel may write into
  CUdeviceptr peeked = 0;   // where peek copies to
  std::string gpu, driver, cubin_path, device_line;
  int arch = 0;
};

Program program;

const KernelInfo& kernel(const std::string& name) {
  auto found = program.kernels.find(name);
  if (found != program.kernels.end()) return found->second;
  KernelInfo info;
  info.name = name;
  info.cubin = program.cubin_path.substr(program.cubin_path.find_last_of('/') + 1);
  CHECK(cuModuleGetFunction(&info.function, program.module, name.c_str()));
  for (std::size_t i = 0;; ++i) {
    std::size_t offset = 0, size = 0;
    if (cuFuncGetParamInfo(info.function, i, &offset, &size) != CUDA_SUCCESS) break;
    info.params.emplace_back(offset, size);
  }
  const std::pair<const char*, CUfunction_attribute> attributes[] = {
      {"registers", CU_FUNC_ATTRIBUTE_NUM_REGS},
      {"shared_static", CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
      {"const_bytes", CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES},
      {"local_bytes", CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
      {"max_threads", CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
      {"binary_version", CU_FUNC_ATTRIBUTE_BINARY_VERSION},
      {"ptx_version", CU_FUNC_ATTRIBUTE_PTX_VERSION},
      {"max_dynamic_shared", CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES},
      {"cluster_x", CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH},
      {"cluster_y", CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT},
      {"cluster_z", CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH},
  };
  for (const auto& [key, attribute] : attributes) {
    int value = 0;
    if (cuFuncGetAttribute(&value, attribute, info.function) == CUDA_SUCCESS) info.attributes[key] = value;
  }
  return program.kernels.emplace(name, std::move(info)).first->second;
}

// A parameter buffer for a kernel from one value per parameter, each the
// bytes of that parameter, at the offsets the driver reports.
std::vector<unsigned char> pack(const KernelInfo& k, const std::vector<std::vector<unsigned char>>& values) {
  std::size_t size = k.params.empty() ? 0 : k.params.back().first + k.params.back().second;
  std::vector<unsigned char> buffer(size, 0);
  if (values.size() != k.params.size()) {
    std::fprintf(stderr, "%s: %zu values for %zu parameters\n", k.name.c_str(), values.size(), k.params.size());
    std::exit(1);
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].size() != k.params[i].second) {
      std::fprintf(stderr, "%s: parameter %zu is %zu bytes, not %zu\n", k.name.c_str(), i, k.params[i].second,
                   values[i].size());
      std::exit(1);
    }
    std::memcpy(buffer.data() + k.params[i].first, values[i].data(), values[i].size());
  }
  return buffer;
}

template <class T>
std::vector<unsigned char> bytes_of(const T& value) {
  std::vector<unsigned char> b(sizeof(T));
  std::memcpy(b.data(), &value, sizeof(T));
  return b;
}

std::vector<unsigned char> pattern(std::size_t n, unsigned seed) {
  std::vector<unsigned char> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>((i * 7 + seed) & 0xff);
  if (n) b[n - 1] = 0x5a;  // never the value fold_blob looks for
  return b;
}

KernelInfo runtime_fill_info;

void do_launch(const Launch& l) {
  CUstream stream = program.streams[l.stream];
  if (l.api == Api::DriverEx) {
    std::vector<void*> pointers;
    std::vector<unsigned char> copy = l.params;
    for (const auto& [offset, size] : l.kernel->params) pointers.push_back(copy.data() + offset);
    CUlaunchConfig config{};
    config.gridDimX = l.grid.x;
    config.gridDimY = l.grid.y;
    config.gridDimZ = l.grid.z;
    config.blockDimX = l.block.x;
    config.blockDimY = l.block.y;
    config.blockDimZ = l.block.z;
    config.sharedMemBytes = l.shared_dynamic;
    config.hStream = stream;
    CUlaunchAttribute attribute{};
    if (l.cluster.x) {
      attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attribute.value.clusterDim.x = l.cluster.x;
      attribute.value.clusterDim.y = l.cluster.y;
      attribute.value.clusterDim.z = l.cluster.z;
      config.attrs = &attribute;
      config.numAttrs = 1;
    }
    CHECK(cuLaunchKernelEx(&config, l.kernel->function, pointers.empty() ? nullptr : pointers.data(), nullptr));
    return;
  }
  if (l.api == Api::Driver) {
    std::vector<void*> pointers;
    std::vector<unsigned char> copy = l.params;
    for (const auto& [offset, size] : l.kernel->params) pointers.push_back(copy.data() + offset);
    CHECK(cuLaunchKernel(l.kernel->function, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z,
                         l.shared_dynamic, stream, pointers.empty() ? nullptr : pointers.data(), nullptr));
    return;
  }
  int* out = nullptr;
  int n = 0, m = 0;
  std::memcpy(&out, l.params.data(), 8);
  std::memcpy(&n, l.params.data() + 8, 4);
  std::memcpy(&m, l.params.data() + 12, 4);
  const dim3 grid(l.grid.x, l.grid.y, l.grid.z), block(l.block.x, l.block.y, l.block.z);
  if (l.api == Api::RuntimeTriple) {
    runtime_fill<<<grid, block, l.shared_dynamic, reinterpret_cast<cudaStream_t>(stream)>>>(out, n, m);
    CHECK_RT(cudaGetLastError());
  } else {
    void* args[] = {&out, &n, &m};
    CHECK_RT(cudaLaunchKernel(reinterpret_cast<const void*>(&runtime_fill), grid, block, args, l.shared_dynamic,
                              reinterpret_cast<cudaStream_t>(stream)));
  }
}

void sync_all() { CHECK(cuCtxSynchronize()); }

// ---------------------------------------------------------------------------
// A first look at what changed, for the log (the lab does this properly)
// ---------------------------------------------------------------------------

struct I2mUpload {
  std::uint64_t address = 0;
  std::vector<std::uint32_t> words;
};

struct QuickLook {
  std::vector<std::string> lines;
  std::vector<I2mUpload> uploads;
  std::vector<std::uint64_t> pcas;
};

// Parses method headers from word `from` of a window for as long as they
// make sense, following inline-to-memory uploads.
QuickLook quick_look(const Window& w, std::size_t from) {
  QuickLook look;
  std::vector<std::uint32_t> words(w.after.size() / 4);
  std::memcpy(words.data(), w.after.data(), words.size() * 4);
  std::uint64_t offset_out = 0;
  std::uint32_t line_length = 0;
  I2mUpload current;
  bool uploading = false;
  std::size_t i = from;
  while (i < words.size()) {
    const std::uint32_t h = words[i];
    const unsigned op = h >> 29, sub = (h >> 13) & 7, count = (h >> 16) & 0x1fff;
    const std::uint32_t method = (h & 0xfff) << 2;
    if (op != 1 && op != 3 && op != 4 && op != 5) {
      char line[160];
      std::snprintf(line, sizeof line, "[%zu] %08x: not a header, stop", i, h);
      look.lines.push_back(line);
      break;
    }
    std::vector<std::uint32_t> data;
    if (op == 4) {
      data.push_back(count);
      ++i;
    } else {
      if (i + 1 + count > words.size()) {
        look.lines.push_back("[" + std::to_string(i) + "] runs past the window, stop");
        break;
      }
      data.assign(words.begin() + static_cast<long>(i) + 1, words.begin() + static_cast<long>(i + 1 + count));
      i += 1 + count;
    }
    char line[200];
    std::snprintf(line, sizeof line, "[%zu] %08x op %u sub %u method 0x%04x count %u first %08x", i, h, op, sub, method,
                  count, data.empty() ? 0u : data[0]);
    look.lines.push_back(line);
    for (std::size_t k = 0; k < data.size(); ++k) {
      const std::uint32_t m = op == 3 ? method : op == 5 ? (k == 0 ? method : method + 4) : op == 4 ? method : method + 4 * static_cast<std::uint32_t>(k);
      const std::uint32_t v = data[k];
      if (m == 0x188) offset_out = (offset_out & 0xffffffffull) | (static_cast<std::uint64_t>(v) << 32);
      if (m == 0x18c) offset_out = (offset_out & ~0xffffffffull) | v;
      if (m == 0x180) line_length = v;
      if (m == 0x1b0) {
        if (uploading && !current.words.empty()) look.uploads.push_back(current);
        current = {};
        current.address = offset_out;
        uploading = true;
      }
      if (m == 0x1b4 && uploading) {
        current.words.push_back(v);
        if (current.words.size() * 4 >= line_length) {
          look.uploads.push_back(current);
          current = {};
          uploading = false;
        }
      }
      if (m == 0x2b4) look.pcas.push_back(static_cast<std::uint64_t>(v) << 8);
    }
  }
  return look;
}

// ---------------------------------------------------------------------------
// Writing a capture
// ---------------------------------------------------------------------------

// GPU memory a capture's QMD points at, read back after the launch.
struct Peek {
  std::uint64_t address = 0;
  std::string what;  // "code" or "constant_bank"
  std::vector<unsigned char> bytes;
};

void write_capture(const std::string& path, const Shape& shape, const std::vector<Window>& windows,
                   const std::vector<Mapping>& maps, double before_s, double after_s, const std::vector<Peek>& peeks) {
  std::ofstream out(path);
  out << "launchlab-capture 1\n";
  out << "# " << shape.note << "\n";
  out << "name " << shape.name << "\n";
  out << "gpu " << program.gpu << "\n";
  out << "driver " << program.driver << "\n";
  out << "device" << program.device_line << "\n";
  out << "arch " << program.arch << "\n";
  out << "cubin " << program.cubin_path.substr(program.cubin_path.find_last_of('/') + 1) << "\n";
  out << "snapshot_seconds " << before_s << " " << after_s << "\n";
  if (shape.stack_limit) out << "stack_limit " << shape.stack_limit << "\n";
  std::map<std::string, const KernelInfo*> used;
  for (const Launch& l : shape.launches) used[l.kernel->name] = l.kernel;
  for (const auto& [name, k] : used) {
    out << "kernel " << name << " cubin=" << k->cubin;
    for (const auto& [key, value] : k->attributes) out << " " << key << "=" << value;
    out << "\n";
    out << "kernel_params " << name;
    for (const auto& [offset, size] : k->params) out << " " << offset << "+" << size;
    out << "\n";
  }
  for (std::size_t i = 0; i < shape.launches.size(); ++i) {
    const Launch& l = shape.launches[i];
    out << "launch " << i << " kernel=" << l.kernel->name << " api=" << api_name(l.api) << " grid=" << l.grid.x << ","
        << l.grid.y << "," << l.grid.z << " block=" << l.block.x << "," << l.block.y << "," << l.block.z
        << " cluster=" << l.cluster.x << "," << l.cluster.y << "," << l.cluster.z << " shared_dynamic=" << l.shared_dynamic
        << " stream=" << l.stream << " param_bytes=" << l.params.size() << "\n";
    for (std::size_t at = 0; at < l.params.size(); at += 32) {
      out << "params " << i << " " << at << " " << hex(l.params.data() + at, std::min<std::size_t>(32, l.params.size() - at))
          << "\n";
    }
  }
  for (const Mapping& m : maps) {
    if (!is_nvidia_device(m)) continue;
    char line[256];
    std::snprintf(line, sizeof line, "mapping %" PRIx64 " %" PRIx64 " %s %" PRIx64 " %s\n", m.start, m.end, m.perms.c_str(),
                  m.offset, m.path.c_str());
    out << line;
  }
  for (const Window& w : windows) {
    char line[200];
    std::snprintf(line, sizeof line, "window %" PRIx64 " %zu %s%s\n", w.address, w.after.size(), w.path.c_str(),
                  w.is_new ? " new" : "");
    out << line;
    for (std::size_t at = 0; at < w.after.size(); at += 32) {
      const std::size_t n = std::min<std::size_t>(32, w.after.size() - at);
      if (!w.is_new) out << "b " << hex(w.before.data() + at, n) << "\n";
      out << "a " << hex(w.after.data() + at, n) << "\n";
    }
  }
  for (const Peek& p : peeks) {
    char line[160];
    std::snprintf(line, sizeof line, "memory %" PRIx64 " %zu %s\n", p.address, p.bytes.size(), p.what.c_str());
    out << line;
    for (std::size_t at = 0; at < p.bytes.size(); at += 32) {
      out << "m " << hex(p.bytes.data() + at, std::min<std::size_t>(32, p.bytes.size() - at)) << "\n";
    }
  }
  out << "end\n";
}

// ---------------------------------------------------------------------------
// Reading back what a QMD points at
// ---------------------------------------------------------------------------

bool peeks_failed = false;

// Copies `size` bytes of GPU memory at `address` with the peek kernel (it
// only loads from there). Empty when the launch failed.
std::vector<unsigned char> peek_gpu(std::uint64_t address, std::size_t size, std::FILE* log) {
  if (peeks_failed || address == 0 || size == 0 || size > (1u << 16)) return {};
  const KernelInfo& peek = kernel("peek");
  std::uint64_t from = address & ~std::uint64_t{7};
  const std::size_t skip = address - from;
  int words = static_cast<int>((size + skip + 7) / 8);
  CUdeviceptr to = program.peeked;
  void* args[] = {&from, &to, &words};
  CUresult r = cuLaunchKernel(peek.function, 1, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr);
  if (r == CUDA_SUCCESS) r = cuCtxSynchronize();
  if (r != CUDA_SUCCESS) {
    const char* err = nullptr;
    cuGetErrorName(r, &err);
    std::fprintf(log, "peek at %" PRIx64 ": %s; no more peeks\n", address, err ? err : "?");
    peeks_failed = true;
    return {};
  }
  std::vector<unsigned char> host(static_cast<std::size_t>(words) * 8);
  CHECK(cuMemcpyDtoH(host.data(), program.peeked, host.size()));
  return std::vector<unsigned char>(host.begin() + static_cast<long>(skip), host.begin() + static_cast<long>(skip + size));
}

// For every grid QMD (not GRID_NULL) uploaded in the windows: the first 256
// bytes of code at its program address and its constant bank 0.
std::vector<Peek> peek_launches(const std::vector<Window>& windows, std::FILE* log) {
  std::vector<Peek> peeks;
  for (const Window& w : windows) {
    if (w.is_new || w.after.size() <= 64 + 2 * kContext) continue;
    std::size_t first = 0;
    while (first < w.after.size() && std::memcmp(w.after.data() + first, w.before.data() + first, 4) == 0) first += 4;
    QuickLook look = quick_look(w, first / 4);
    for (const auto& u : look.uploads) {
      if (u.words.size() != 96 || ((u.words[0] >> 23) & 7) == 1) continue;
      const std::uint64_t program_address = u.words[38] | (static_cast<std::uint64_t>(u.words[39] & 0x1ffffff) << 32);
      const std::uint64_t cbank = (u.words[48] | (static_cast<std::uint64_t>(u.words[49] & 0x7ffff) << 32)) << 6;
      const unsigned cbank_size = (u.words[49] >> 19) << 4;
      for (auto [what, address, size] : {std::tuple<const char*, std::uint64_t, std::size_t>{"code", program_address, 256},
                                         {"constant_bank", cbank, cbank_size}}) {
        auto bytes = peek_gpu(address, size, log);
        if (!bytes.empty()) peeks.push_back(Peek{address, what, std::move(bytes)});
      }
    }
  }
  return peeks;
}

// Where else the segment's address shows up in the process's own private
// memory (libcuda's data, the heap, small anonymous mappings): a copy of a
// GPFIFO entry would hold it in ENTRY0 and the length in ENTRY1.
void search_private(std::uint64_t segment, std::size_t words, std::FILE* log) {
  const std::uint32_t entry0 = static_cast<std::uint32_t>(segment) & ~3u;
  int hits = 0;
  for (const Mapping& m : read_maps()) {
    if (m.perms.size() < 4 || m.perms[0] != 'r' || m.perms[1] != 'w' || m.perms[3] != 'p') continue;
    const bool ours = m.path.empty() || m.path == "[heap]" || m.path.find("libcuda") != std::string::npos;
    if (!ours || m.end - m.start > (64u << 20)) continue;
    std::vector<unsigned char> copy(m.end - m.start);
    read_memory(m.start, copy.size(), copy.data());
    for (std::size_t at = 0; at + 8 <= copy.size(); at += 4) {
      std::uint32_t v, next;
      std::memcpy(&v, copy.data() + at, 4);
      if (v != entry0) continue;
      std::memcpy(&next, copy.data() + at + 4, 4);
      if (++hits <= 20) {
        std::fprintf(log, "  private copy of %08x at %" PRIx64 " (%s): next word %08x (as ENTRY1: length %u, segment %zu words)\n", v,
                     m.start + at, m.path.empty() ? "anonymous" : m.path.c_str(), next, (next >> 10) & 0x1fffff, words);
      }
    }
  }
  std::fprintf(log, "  %d private words hold the segment's address bits 31:2\n", hits);
}

// ---------------------------------------------------------------------------
// The shapes
// ---------------------------------------------------------------------------

Launch fill_launch(Dim3 grid, Dim3 block, int stream = 0, unsigned shared = 0, Api api = Api::Driver) {
  const KernelInfo& k = api == Api::Driver ? kernel("fill") : runtime_fill_info;
  const unsigned long long threads = 1ull * grid.x * grid.y * grid.z * block.x * block.y * block.z;
  const int n = static_cast<int>(std::min<unsigned long long>(threads, 1u << 20));
  Launch l;
  l.kernel = &k;
  l.api = api;
  l.grid = grid;
  l.block = block;
  l.stream = stream;
  l.shared_dynamic = shared;
  l.params = pack(k, {bytes_of(program.out), bytes_of(n), bytes_of(static_cast<int>(0x5eed0000 + grid.x))});
  return l;
}

Launch simple(const std::string& name, Dim3 grid, Dim3 block, std::vector<std::vector<unsigned char>> values,
              unsigned shared = 0, int stream = 0) {
  const KernelInfo& k = kernel(name);
  Launch l;
  l.kernel = &k;
  l.grid = grid;
  l.block = block;
  l.shared_dynamic = shared;
  l.stream = stream;
  l.params = pack(k, values);
  return l;
}

std::vector<Shape> shapes() {
  std::vector<Shape> list;
  auto add = [&](std::string name, std::string note, std::vector<Launch> launches) {
    list.push_back(Shape{std::move(name), std::move(note), std::move(launches)});
  };
  const auto out = bytes_of(program.out);
  const auto outf = bytes_of(program.out + 1024);
  add("fill_1x1", "one block of one thread", {fill_launch({1, 1, 1}, {1, 1, 1})});
  add("fill_1021x5x7_96x2", "the issue's launch", {fill_launch({1021, 5, 7}, {96, 2, 1})});
  add("fill_4096_256", "vadd's shape", {fill_launch({4096, 1, 1}, {256, 1, 1})});
  add("fill_65535_1024", "1-D, the largest block", {fill_launch({65535, 1, 1}, {1024, 1, 1})});
  add("fill_1000000_32", "1-D, a grid wider than 65535", {fill_launch({1000000, 1, 1}, {32, 1, 1})});
  add("fill_7x65535x3_3x5x7", "3-D, odd sizes, the largest grid height", {fill_launch({7, 65535, 3}, {3, 5, 7})});
  add("fill_13x17x19_8x8x8", "3-D", {fill_launch({13, 17, 19}, {8, 8, 8})});
  add("fill_2x2x65535_1", "the largest grid depth", {fill_launch({2, 2, 65535}, {1, 1, 1})});
  add("fill_1x1_1x1x64", "the largest block depth", {fill_launch({1, 1, 1}, {1, 1, 64})});
  add("fill_33x9_32x32", "2-D", {fill_launch({33, 9, 1}, {32, 32, 1})});
  add("empty_1_1", "no parameters at all", {simple("empty", {1, 1, 1}, {1, 1, 1}, {})});
  add("shared_dynamic_0", "dynamic shared memory: none", {simple("shared_dynamic", {100, 1, 1}, {128, 1, 1}, {outf, bytes_of(0)}, 0)});
  add("shared_dynamic_4", "dynamic shared memory: 4 bytes", {simple("shared_dynamic", {100, 1, 1}, {128, 1, 1}, {outf, bytes_of(1)}, 4)});
  add("shared_dynamic_1000", "dynamic shared memory: 1000 bytes", {simple("shared_dynamic", {100, 1, 1}, {128, 1, 1}, {outf, bytes_of(250)}, 1000)});
  add("shared_dynamic_4096", "dynamic shared memory: 4 KiB", {simple("shared_dynamic", {100, 1, 1}, {128, 1, 1}, {outf, bytes_of(1024)}, 4096)});
  add("shared_dynamic_49152", "dynamic shared memory: 48 KiB, the most without opting in", {simple("shared_dynamic", {100, 1, 1}, {128, 1, 1}, {outf, bytes_of(12288)}, 49152)});
  add("shared_dynamic_200000", "dynamic shared memory: 200,000 bytes (opted in)", {simple("shared_dynamic", {10, 1, 1}, {128, 1, 1}, {outf, bytes_of(50000)}, 200000)});
  add("shared_static_4096", "4 KiB of static shared memory", {simple("shared_static", {50, 1, 1}, {256, 1, 1}, {outf, bytes_of(0)}, 0)});
  add("shared_static_4096_dynamic_1000", "4 KiB static and 1000 bytes dynamic", {simple("shared_static", {50, 1, 1}, {256, 1, 1}, {outf, bytes_of(250)}, 1000)});
  {
    const char c = 'L';
    const double d = 2.5;
    const short s = -7;
    const float4 f = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
    add("mixed_params", "lab 04's k(char, double, int*, short, float4)",
        {simple("mixed", {1, 1, 1}, {32, 1, 1}, {bytes_of(c), bytes_of(d), out, bytes_of(s), bytes_of(f)})});
  }
  add("heavy_registers", "a kernel with many registers", {simple("heavy_registers", {64, 1, 1}, {128, 1, 1}, {outf, bytes_of(3)})});
  add("uses_local", "a kernel with a stack frame", {simple("uses_local", {64, 1, 1}, {128, 1, 1}, {outf, bytes_of(5)})});
  add("named_barrier", "a kernel with a second named barrier", {simple("named_barrier", {16, 1, 1}, {128, 1, 1}, {out})});
  add("clustered_8", "__cluster_dims__(2,1,1), 8 blocks", {simple("clustered", {8, 1, 1}, {64, 1, 1}, {out})});
  for (int size : {1024, 4096, 4100, 8192, 16384, 32764}) {
    add("param_" + std::to_string(size), "one parameter of " + std::to_string(size) + " bytes",
        {simple("param_" + std::to_string(size), {2, 1, 1}, {64, 1, 1}, {pattern(static_cast<std::size_t>(size), static_cast<unsigned>(size))})});
  }
  add("stream_1", "fill on a stream of its own", {fill_launch({300, 1, 1}, {64, 1, 1}, 1)});
  add("stream_2", "fill on a second stream", {fill_launch({301, 1, 1}, {64, 1, 1}, 2)});
  add("streams_1_and_2", "one launch on each of two streams", {fill_launch({302, 1, 1}, {64, 1, 1}, 1), fill_launch({303, 1, 1}, {64, 1, 1}, 2)});
  add("two_kernels", "fill then mixed, back to back on the NULL stream",
      {fill_launch({11, 1, 1}, {64, 1, 1}),
       simple("mixed", {1, 1, 1}, {32, 1, 1}, {bytes_of('x'), bytes_of(1.0), out, bytes_of(short{3}), bytes_of(make_float4(0, 0, 0, 1))})});
  add("same_launch_twice", "the same launch twice", {fill_launch({12, 1, 1}, {64, 1, 1}), fill_launch({12, 1, 1}, {64, 1, 1})});
  add("runtime_triple_chevron", "runtime_fill<<<dim3(1021,5,7), dim3(96,2,1)>>>: the runtime's launch", {fill_launch({1021, 5, 7}, {96, 2, 1}, 0, 0, Api::RuntimeTriple)});
  add("runtime_launch_kernel", "cudaLaunchKernel of runtime_fill on stream 1", {fill_launch({77, 3, 1}, {50, 1, 1}, 1, 0, Api::Runtime)});
  for (int n : {6, 12, 20, 32, 100}) {
    add("registers_" + std::to_string(n), "a kernel with " + std::to_string(n) + " values live in a loop",
        {simple("registers_" + std::to_string(n), {8, 1, 1}, {128, 1, 1}, {outf, bytes_of(2)})});
  }
  {
    Launch ex = fill_launch({40, 2, 1}, {64, 1, 1});
    ex.api = Api::DriverEx;
    add("launch_ex", "fill through cuLaunchKernelEx without attributes (cuBLAS launches this way)", {ex});
    Launch clustered = fill_launch({8, 3, 1}, {64, 1, 1});
    clustered.api = Api::DriverEx;
    clustered.cluster = {2, 1, 1};
    add("launch_ex_cluster_2", "fill through cuLaunchKernelEx with a cluster of 2x1x1 given at launch", {clustered});
    Launch clustered4 = fill_launch({8, 4, 2}, {32, 1, 1});
    clustered4.api = Api::DriverEx;
    clustered4.cluster = {2, 2, 1};
    add("launch_ex_cluster_2x2", "fill through cuLaunchKernelEx with a cluster of 2x2x1", {clustered4});
  }
  add("fill_stream_1_1021x5x7", "the issue's launch on stream 1", {fill_launch({1021, 5, 7}, {96, 2, 1}, 1)});
  add("three_launches_stream_2", "three launches on stream 2",
      {fill_launch({5, 1, 1}, {32, 1, 1}, 2), simple("empty", {2, 1, 1}, {32, 1, 1}, {}, 0, 2), fill_launch({6, 1, 1}, {32, 1, 1}, 2)});
  return list;
}

// ---------------------------------------------------------------------------
// CUPTI: does a callback see every launch, and are the methods there at exit?
// ---------------------------------------------------------------------------

#ifdef LAUNCHLAB_WITH_CUPTI
struct CuptiState {
  Snapshot* at_enter = nullptr;
  std::vector<std::string> seen;
};
CuptiState cupti_state;

void CUPTIAPI on_api(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (cb->callbackSite == CUPTI_API_ENTER) cupti_state.seen.push_back(std::string("runtime ") + cb->functionName);
    return;
  }
  const bool launch = id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
                      id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
  if (!launch) return;
  if (cb->callbackSite == CUPTI_API_ENTER) {
    std::string line = std::string("driver ") + cb->functionName + " symbol=" + (cb->symbolName ? cb->symbolName : "?");
    if (id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
      const auto* p = static_cast<const cuLaunchKernel_params*>(cb->functionParams);
      line += " grid=" + std::to_string(p->gridDimX) + "," + std::to_string(p->gridDimY) + "," + std::to_string(p->gridDimZ);
    }
    cupti_state.seen.push_back(line);
    cupti_state.at_enter = new Snapshot(take_snapshot());
  } else if (cupti_state.at_enter) {
    Snapshot at_exit = take_snapshot();
    std::string notes;
    auto windows = diff(*cupti_state.at_enter, at_exit, notes);
    std::size_t pcas = 0;
    for (const auto& w : windows) {
      for (std::size_t i = 0; i + 4 <= w.after.size(); i += 4) {
        std::uint32_t v;
        std::memcpy(&v, w.after.data() + i, 4);
        if (v == 0x200120adu) ++pcas;
      }
    }
    cupti_state.seen.push_back("  at exit: " + std::to_string(windows.size()) + " windows changed, " + std::to_string(pcas) +
                               " SEND_PCAS_A headers in them");
    delete cupti_state.at_enter;
    cupti_state.at_enter = nullptr;
  }
}

void cupti_check(std::FILE* log) {
  CUpti_SubscriberHandle subscriber;
  if (cuptiSubscribe(&subscriber, on_api, nullptr) != CUPTI_SUCCESS) {
    std::fprintf(log, "cupti: cuptiSubscribe failed\n");
    return;
  }
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  for (Api api : {Api::Driver, Api::Runtime, Api::RuntimeTriple}) {
    do_launch(fill_launch({5, 1, 1}, {32, 1, 1}, 0, 0, api));
    sync_all();
  }
  cuptiUnsubscribe(subscriber);
  std::fprintf(log, "== cupti: what the callbacks saw\n");
  for (const auto& s : cupti_state.seen) std::fprintf(log, "cupti: %s\n", s.c_str());
}
#endif

// Counters in the process's own private memory (libcuda's data, the heap,
// small anonymous mappings) that move by a small step at each of several
// identical launches: where a copy of GP_PUT may live when USERD is not
// readable. Only the process's own ordinary memory is read.
void counter_scan(std::FILE* log) {
  auto private_maps = [] {
    std::vector<Mapping> list;
    for (const Mapping& m : read_maps()) {
      if (m.perms.size() < 4 || m.perms[0] != 'r' || m.perms[1] != 'w' || m.perms[3] != 'p') continue;
      const bool ours = m.path.empty() || m.path == "[heap]" || m.path.find("libcuda") != std::string::npos;
      if (ours && m.end - m.start <= (64u << 20)) list.push_back(m);
    }
    return list;
  };
  constexpr int kRounds = 4;
  const auto maps = private_maps();
  std::uint64_t total = 0;
  for (const auto& m : maps) total += m.end - m.start;
  std::vector<unsigned char*> copies[kRounds];
  for (int r = 0; r < kRounds; ++r) {
    for (const auto& m : maps) {
      void* p = mmap(nullptr, m.end - m.start, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      copies[r].push_back(static_cast<unsigned char*>(p));
    }
  }
  Launch l = fill_launch({9, 1, 1}, {32, 1, 1});
  do_launch(l);
  sync_all();
  for (int r = 0; r < kRounds; ++r) {
    for (std::size_t i = 0; i < maps.size(); ++i) read_memory(maps[i].start, maps[i].end - maps[i].start, copies[r][i]);
    do_launch(l);
    sync_all();
  }
  std::fprintf(log, "== counters: %zu private mappings, %" PRIu64 " bytes, %d rounds of one launch\n", maps.size(), total, kRounds);
  int shown = 0;
  for (std::size_t i = 0; i < maps.size(); ++i) {
    const std::uint64_t size = maps[i].end - maps[i].start;
    for (std::uint64_t at = 0; at + 4 <= size; at += 4) {
      std::uint32_t v[kRounds];
      for (int r = 0; r < kRounds; ++r) std::memcpy(&v[r], copies[r][i] + at, 4);
      const std::uint32_t step = v[1] - v[0];
      if (step == 0 || step > 64) continue;
      bool steady = true;
      for (int r = 2; r < kRounds; ++r) steady = steady && v[r] - v[r - 1] == step;
      if (!steady) continue;
      if (++shown <= 300) {
        std::fprintf(log, "counter %" PRIx64 " (%s +%" PRIx64 "): %u %u %u %u\n", maps[i].start + at,
                     maps[i].path.empty() ? "anonymous" : maps[i].path.c_str(), at, v[0], v[1], v[2], v[3]);
      }
    }
  }
  std::fprintf(log, "counters: %d steady counters\n", shown);
  for (int r = 0; r < kRounds; ++r) {
    for (std::size_t i = 0; i < maps.size(); ++i) munmap(copies[r][i], maps[i].end - maps[i].start);
  }
}

// Launches on the NULL stream and on both streams with full snapshots; the
// mappings that changed are the ones later snapshots read.
void calibrate(std::FILE* log) {
  std::vector<Launch> launches = {fill_launch({3, 1, 1}, {64, 1, 1}, 0), fill_launch({3, 1, 1}, {64, 1, 1}, 1),
                                  fill_launch({3, 1, 1}, {64, 1, 1}, 2)};
  for (const Launch& l : launches) {
    do_launch(l);
    sync_all();
  }
  for (const Launch& l : launches) {
    Snapshot before = take_snapshot();
    do_launch(l);
    sync_all();
    Snapshot after = take_snapshot();
    std::string notes;
    for (const Window& w : diff(before, after, notes)) {
      for (const Area& a : after.areas) {
        if (w.address >= a.map.start && w.address < a.map.end &&
            std::find(calibration.hot.begin(), calibration.hot.end(), a.map.start) == calibration.hot.end()) {
          calibration.hot.push_back(a.map.start);
        }
      }
    }
  }
  std::uint64_t hot_bytes = 0;
  for (const Mapping& m : read_maps()) {
    if (!is_readable_ctl(m)) continue;
    calibration.known.push_back(m.start);
    if (std::find(calibration.hot.begin(), calibration.hot.end(), m.start) != calibration.hot.end()) {
      hot_bytes += m.end - m.start;
      std::fprintf(log, "calibration: changes at launches in %" PRIx64 "-%" PRIx64 "\n", m.start, m.end);
    }
  }
  std::fprintf(log, "calibration: %zu of %zu readable mappings changed (%" PRIu64 " bytes); later snapshots read those and new ones\n",
               calibration.hot.size(), calibration.known.size(), hot_bytes);
  calibration.done = true;
}

std::string read_text(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CUBIN OUT_DIR [--cupti] [--channel]\n", argv[0]);
    return 2;
  }
  program.cubin_path = argv[1];
  const std::string out_dir = argv[2];
  bool with_cupti = false;
  for (int i = 3; i < argc; ++i) {
    const std::string option = argv[i];
    if (option == "--cupti") {
      with_cupti = true;
    } else if (option == "--channel") {
      read_channel_memory = true;
    } else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  std::FILE* log = std::fopen((out_dir + "/findings.log").c_str(), "w");
  if (!log) return 1;

  CHECK(cuInit(0));
  CUdevice device;
  CHECK(cuDeviceGet(&device, 0));
  char name[256] = {};
  CHECK(cuDeviceGetName(name, sizeof name, device));
  program.gpu = name;
  int major = 0, minor = 0;
  CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  program.arch = major * 10 + minor;
  {
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...":
    // the first word made of digits and dots.
    std::istringstream words(read_text("/proc/driver/nvidia/version"));
    for (std::string word; words >> word;) {
      if (word.find('.') != std::string::npos && word.find_first_not_of("0123456789.") == std::string::npos) {
        program.driver = word;
        break;
      }
    }
    if (program.driver.empty()) program.driver = "unknown";
  }
  std::fprintf(log, "gpu %s sm_%d driver %s\n", program.gpu.c_str(), program.arch, program.driver.c_str());
  {
    utsname u{};
    uname(&u);
    std::fprintf(log, "kernel %s %s\n", u.sysname, u.release);
  }

  CHECK(cuDevicePrimaryCtxRetain(&program.context, device));
  CHECK(cuCtxSetCurrent(program.context));
  {
    const std::pair<const char*, CUdevice_attribute> attributes[] = {
        {"multiprocessors", CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
        {"reserved_shared_per_block", CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK},
        {"max_shared_per_block", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
        {"max_shared_per_block_optin", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
        {"max_shared_per_multiprocessor", CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
        {"max_registers_per_block", CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK},
    };
    for (const auto& [key, attribute] : attributes) {
      int value = 0;
      CHECK(cuDeviceGetAttribute(&value, attribute, device));
      program.device_line += " " + std::string(key) + "=" + std::to_string(value);
    }
    std::size_t stack = 0;
    CHECK(cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE));
    program.device_line += " stack_limit=" + std::to_string(stack);
    int version = 0;
    CHECK(cuDriverGetVersion(&version));
    program.device_line += " cuda_driver_version=" + std::to_string(version);
  }
  CHECK_RT(cudaSetDevice(0));

  auto log_maps = [&](const char* when) {
    std::uint64_t ctl = 0, readable = 0;
    std::fprintf(log, "== nvidia mappings %s\n", when);
    for (const Mapping& m : read_maps()) {
      if (!is_nvidia_device(m)) continue;
      std::fprintf(log, "map %" PRIx64 "-%" PRIx64 " %s %8" PRIx64 " %s (%" PRIu64 " KiB)\n", m.start, m.end, m.perms.c_str(),
                   m.offset, m.path.c_str(), (m.end - m.start) >> 10);
      if (m.path == "/dev/nvidiactl") ctl += m.end - m.start;
      if (is_readable_ctl(m)) readable += m.end - m.start;
    }
    std::fprintf(log, "nvidiactl: %" PRIu64 " bytes mapped, %" PRIu64 " readable and shared\n", ctl, readable);
  };
  log_maps("after the context");

  // The first launch of the program, before anything else is loaded or run.
  CHECK(cuModuleLoad(&program.module, program.cubin_path.c_str()));
  CHECK(cuMemAlloc(&program.out, 4u << 20));
  CHECK(cuMemAlloc(&program.peeked, 1u << 16));
  CHECK(cuStreamCreate(&program.streams[1], CU_STREAM_NON_BLOCKING));
  CHECK(cuStreamCreate(&program.streams[2], CU_STREAM_NON_BLOCKING));
  runtime_fill_info.name = "runtime_fill";
  runtime_fill_info.cubin = "runtime_kernels.sm_90.cubin";
  runtime_fill_info.params = {{0, 8}, {8, 4}, {12, 4}};
  {
    cudaFuncAttributes a{};
    CHECK_RT(cudaFuncGetAttributes(&a, runtime_fill));
    runtime_fill_info.attributes = {{"registers", a.numRegs},           {"shared_static", static_cast<int>(a.sharedSizeBytes)},
                                    {"local_bytes", static_cast<int>(a.localSizeBytes)}, {"max_threads", a.maxThreadsPerBlock},
                                    {"binary_version", a.binaryVersion}, {"ptx_version", a.ptxVersion}};
  }
  CHECK(cuFuncSetAttribute(kernel("shared_dynamic").function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200000));
  program.kernels.erase("shared_dynamic");  // read the attributes again, with the opt-in
  kernel("shared_dynamic");
  sync_all();

  std::vector<Shape> list;
  {
    Shape first{"first_launch", "the program's first launch: fill<<<(3,1,1),(64,1,1)>>>, no warm-up", {fill_launch({3, 1, 1}, {64, 1, 1})}};
    first.skip_warmup = true;
    list.push_back(std::move(first));
  }
  for (auto& s : shapes()) list.push_back(std::move(s));
  {
    // Last, since it changes the context for every later launch.
    Shape stack{"fill_stack_4096", "fill<<<(1021,5,7),(96,2,1)>>> after cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096)",
                {fill_launch({1021, 5, 7}, {96, 2, 1})}};
    stack.stack_limit = 4096;
    list.push_back(std::move(stack));
  }

  // The pushbuffer right after cuLaunchKernel returns, before any synchronize.
  bool checked_before_sync = false;
  int searches = 0;

  for (const Shape& shape : list) {
    if (shape.stack_limit) CHECK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, shape.stack_limit));
    if (!shape.skip_warmup) {
      for (const Launch& l : shape.launches) do_launch(l);
      sync_all();
    }
    Snapshot before = take_snapshot();
    const auto maps = read_maps();
    for (const Launch& l : shape.launches) do_launch(l);
    if (!checked_before_sync && !shape.skip_warmup) {
      Snapshot right_after = take_snapshot();
      std::string notes;
      auto w = diff(before, right_after, notes);
      std::fprintf(log, "== right after cuLaunchKernel returned (%s, no synchronize yet): %zu windows changed\n",
                   shape.name.c_str(), w.size());
      for (const auto& x : w) std::fprintf(log, "  window %" PRIx64 " %zu bytes\n", x.address, x.after.size());
      checked_before_sync = true;
    }
    sync_all();
    Snapshot after = take_snapshot();
    std::string notes;
    auto windows = diff(before, after, notes);
    const std::vector<Peek> peeks = peek_launches(windows, log);
    write_capture(out_dir + "/" + shape.name + ".capture", shape, windows, read_maps(), before.seconds, after.seconds, peeks);

    std::fprintf(log, "== %s: %s (snapshots %.3f s, %.3f s, %zu areas)\n", shape.name.c_str(), shape.note.c_str(),
                 before.seconds, after.seconds, after.areas.size());
    if (!notes.empty()) std::fprintf(log, "%s", notes.c_str());
    for (const Window& w : windows) {
      std::size_t first_changed = 0;
      if (!w.is_new) {
        while (first_changed < w.after.size() && std::memcmp(w.after.data() + first_changed, w.before.data() + first_changed, 4) == 0) {
          first_changed += 4;
        }
      }
      std::fprintf(log, "window %" PRIx64 " %zu bytes%s, first change at +%zu\n", w.address, w.after.size(),
                   w.is_new ? " (new mapping)" : "", first_changed);
      if (w.after.size() <= 64 + 2 * kContext) {
        for (std::size_t i = first_changed; i < w.after.size() && i < first_changed + 32; i += 4) {
          std::uint32_t b = 0, a = 0;
          if (!w.is_new) std::memcpy(&b, w.before.data() + i, 4);
          std::memcpy(&a, w.after.data() + i, 4);
          std::fprintf(log, "  +%zu: %08x -> %08x\n", i, b, a);
        }
        continue;
      }
      QuickLook look = quick_look(w, first_changed / 4);
      for (std::size_t k = 0; k < look.lines.size() && k < 60; ++k) std::fprintf(log, "  %s\n", look.lines[k].c_str());
      if (look.lines.size() > 60) std::fprintf(log, "  ... %zu groups\n", look.lines.size());
      for (const auto& u : look.uploads) {
        std::fprintf(log, "  upload to %" PRIx64 ": %zu bytes:", u.address, u.words.size() * 4);
        for (std::size_t k = 0; k < u.words.size() && k < 12; ++k) std::fprintf(log, " %08x", u.words[k]);
        std::fprintf(log, "\n");
      }
      for (auto p : look.pcas) std::fprintf(log, "  SEND_PCAS_A: QMD at %" PRIx64 "\n", p);
      if (searches < 4 && !look.pcas.empty()) {
        ++searches;
        std::size_t end = w.after.size();
        while (end > first_changed && std::memcmp(w.after.data() + end - 4, w.before.data() + end - 4, 4) == 0) end -= 4;
        search_private(w.address + first_changed, (end - first_changed) / 4, log);
      }
    }
    for (const Peek& p : peeks) std::fprintf(log, "  read back %zu bytes of %s at %" PRIx64 "\n", p.bytes.size(), p.what.c_str(), p.address);
    std::fflush(log);
    if (!calibration.done) calibrate(log);
  }
  log_maps("at the end");
  counter_scan(log);
  {
    // The process's mappings, for the lab's tests of its maps reader: file
    // paths reduced to their last part, device paths kept.
    std::ifstream in("/proc/self/maps");
    std::ofstream out(out_dir + "/maps.txt");
    for (std::string line; std::getline(in, line);) {
      const auto slash = line.find('/');
      if (slash != std::string::npos && line.compare(slash, 5, "/dev/") != 0) {
        line = line.substr(0, slash) + line.substr(line.find_last_of('/') + 1);
      }
      out << line << "\n";
    }
  }

#ifdef LAUNCHLAB_WITH_CUPTI
  if (with_cupti) cupti_check(log);
#else
  if (with_cupti) std::fprintf(log, "cupti: not built with CUPTI\n");
#endif

  std::fclose(log);
  return 0;
}
