/// @file
/// Loading and launching a kernel by hand with the CUDA driver API, and
/// measuring what the first launch of a program costs.
///
/// Part A (images.cpp), part B (stats.cpp) and part C (jit_options.cpp) are
/// plain host code that runs anywhere. Part D (driver.cpp) and part E
/// (cold_start.cpp) call the driver.
///
/// The lab's programs do not link libcuda.so.1 at build time: the lab opens
/// it when the first driver function is called (see load_driver_library), so
/// that the programs start, and their CPU tests run, on a machine without an
/// NVIDIA driver. You call the driver API as usual, `cuInit(0)` and so on,
/// with the declarations of `<cuda.h>`; the functions the lab forwards are
/// listed in libcuda_loader.cpp (a driver function that is not there does
/// not link: add it there the same way).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::driver {

// ---------------------------------------------------------------------------
// The driver library (given)
// ---------------------------------------------------------------------------

/// Opens libcuda.so.1, the user-mode driver, if it is not open yet; nothing
/// when that worked, and the loader's reason when it did not. Every driver
/// function declared by `<cuda.h>` that this lab uses opens it on its first
/// call anyway, and answers CUDA_ERROR_NOT_INITIALIZED when it cannot. Call
/// this before timing anything, so that the time to open the library is not
/// counted as part of cuInit (a program linked with `-lcuda` pays it before
/// main).
std::optional<std::string> load_driver_library();

/// Why the driver cannot be used here, or nothing when it can: the library
/// could not be opened, or cuInit(0) failed (the message gives the error's
/// name and description, e.g. "cuInit failed: CUDA_ERROR_NO_DEVICE (no
/// CUDA-capable device is detected)").
std::optional<std::string> driver_unavailable_reason();

// ---------------------------------------------------------------------------
// Errors (driver.cpp)
// ---------------------------------------------------------------------------

/// A driver call that did not return CUDA_SUCCESS. The lab's functions
/// throw it through check() (Module adds the JIT's log after check()'s
/// message), so that what() always names the error, as in
/// "CUDA_ERROR_NOT_FOUND": the tests hold that name against the driver's
/// own answer.
class DriverError : public std::runtime_error {
 public:
  DriverError(CUresult code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// What the call returned.
  CUresult code() const noexcept { return code_; }

 private:
  CUresult code_;
};

/// Does nothing when status is CUDA_SUCCESS. Otherwise throws DriverError
/// with status and the message "<call>: <name> (<description>)", the name
/// and description from cuGetErrorName and cuGetErrorString, for example
/// "cuModuleLoadData: CUDA_ERROR_INVALID_IMAGE (device kernel image is
/// invalid)"; "<call>: <name>" when cuGetErrorString gives no description.
/// When the driver has no name for status (cuGetErrorName fails), the
/// message says "<call>: CUresult <number>" instead.
void check(CUresult status, std::string_view call);

// ---------------------------------------------------------------------------
// Part A: images (images.cpp)
// ---------------------------------------------------------------------------

/// What cuModuleLoadData is given: the three kinds of image nvcc writes.
enum class ImageKind {
  Cubin,    ///< an ELF file for a CUDA GPU (e_machine 190, EM_CUDA): `nvcc -cubin`
  Fatbin,   ///< a fat binary: starts with the container magic 0xBA55ED50 (little-endian): `nvcc -fatbin`
  /// PTX text: its first line that is neither blank nor a `//` comment
  /// starts, after any blanks, with `.version` (a terminating NUL may follow
  /// the text). Blanks are spaces, tabs and carriage returns; a line ends
  /// at a newline.
  Ptx,
  Unknown,  ///< anything else
};

/// Which kind of image the bytes are: Unknown for bytes too short to hold
/// what a kind starts with (fewer than 4, or an ELF file shorter than the
/// 64 bytes of an ELF64 header), and for an ELF file of any other machine.
ImageKind identify_image(std::span<const std::byte> image);

/// PTX text as cuModuleLoadData wants it: the text followed by one NUL
/// byte (the driver reads PTX as a C string). Text that already ends with
/// one NUL gets no second one.
/// @throws std::invalid_argument when the text holds a NUL before its end
///         (the driver would stop reading there)
std::vector<std::byte> ptx_image(std::string_view ptx);

/// The SM architecture a cubin holds SASS for, from its ELF header: 90 for
/// a cubin of `nvcc -cubin -arch=sm_90`. nvcc 13.0 marks its cubins with
/// EI_OSABI 0x41 and EI_ABIVERSION 8 and writes the architecture in bits
/// 8 to 15 of e_flags.
/// @throws std::invalid_argument when the bytes are not such a cubin
int cubin_sm(std::span<const std::byte> cubin);

/// Whether SASS for sm runs on a device of compute capability major.minor:
/// a cubin for X.y runs on X.z with z >= y, and on no other major version
/// (NVIDIA's CUDA C++ Programming Guide, "Binary Compatibility"). sm is the
/// number of `-arch=sm_<sm>`, 10 X + y for compute capability X.y: 86 is
/// 8.6, 100 is 10.0, 120 is 12.0.
bool sass_runs_on(int sm, int major, int minor);

// ---------------------------------------------------------------------------
// Part B: statistics over repeated trials (stats.cpp)
// ---------------------------------------------------------------------------

/// The q-quantile of the samples, 0 <= q <= 1, interpolating linearly
/// between the two closest ranks: with the samples sorted as x[0..n-1] and
/// h = (n - 1) q, it is x[floor(h)] + (h - floor(h)) (x[floor(h) + 1] -
/// x[floor(h)]). At h = n - 1 (q = 1, or a single sample) there is no
/// x[floor(h) + 1], and the quantile is x[n - 1]. quantile(x, 0.5) is the
/// median. The samples need not be sorted.
/// @throws std::invalid_argument when there are no samples or q is outside
///         [0, 1] (or not a number)
double quantile(std::span<const double> samples, double q);

/// A measurement's trials, summarized: where they lie and how far they
/// spread.
struct Summary {
  std::size_t count = 0;  ///< number of samples
  double min = 0;         ///< the smallest
  double p25 = 0;         ///< quantile 0.25
  double median = 0;      ///< quantile 0.5
  double p75 = 0;         ///< quantile 0.75
  double max = 0;         ///< the largest
  /// The interquartile range, p75 - p25: the width of the middle half.
  double spread() const { return p75 - p25; }
};

/// The summary of the samples.
/// @throws std::invalid_argument when there are no samples
Summary summarize(std::span<const double> samples);

// ---------------------------------------------------------------------------
// Part C: the options of cuModuleLoadDataEx (jit_options.cpp)
// ---------------------------------------------------------------------------

/// The two parallel arrays cuModuleLoadDataEx takes: option i is keys[i]
/// and its value is values[i]. A value is a pointer (a buffer) or a number
/// stored in the pointer itself; some options are also written back by the
/// driver, into the same slot.
struct JitOptions {
  std::vector<CUjit_option> keys;
  std::vector<void*> values;
};

/// The options that ask the driver for its JIT logs and the JIT's wall time:
/// CU_JIT_WALL_TIME (value 0), CU_JIT_INFO_LOG_BUFFER (info_log.data()),
/// CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES (info_log.size(), as a number in the
/// slot), CU_JIT_ERROR_LOG_BUFFER and CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
/// likewise for error_log: each of the five once, in any order.
/// Both logs are cleared to empty strings.
JitOptions jit_options(std::span<char> info_log, std::span<char> error_log);

/// What the driver reported through a JitOptions after the call.
struct JitReport {
  float wall_ms = 0;       ///< CU_JIT_WALL_TIME: the JIT's own time, in ms
  std::string info_log;    ///< the info log's text
  std::string error_log;   ///< the error log's text
};

/// Reads the report back: cuda.h documents that the driver overwrites the
/// value of CU_JIT_WALL_TIME with a float (in the slot's first four bytes,
/// on a little-endian machine) and the values of the two SIZE_BYTES options
/// with the number of bytes it wrote to each log (an unsigned int, as
/// cuda.h types these options: the slot's low 32 bits). A log's text ends
/// at that many bytes or at its first NUL, whichever comes first.
/// @throws std::invalid_argument when options lacks one of the options
///         jit_options sets
JitReport read_jit_report(const JitOptions& options);

// ---------------------------------------------------------------------------
// Part D: the driver (driver.cpp)
// ---------------------------------------------------------------------------

/// A context of its own on one device, current on the calling thread while
/// it lives.
class Context {
 public:
  /// cuInit(0), cuDeviceGet(ordinal) and cuCtxCreate (which also makes it
  /// current). @throws DriverError
  explicit Context(int ordinal = 0);
  /// cuCtxDestroy.
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  CUcontext get() const noexcept { return context_; }
  CUdevice device() const noexcept { return device_; }

 private:
  CUcontext context_ = nullptr;
  CUdevice device_ = 0;
};

/// A module loaded into the current context.
class Module {
 public:
  /// Loads image (a cubin, a fatbin, or PTX from ptx_image) with
  /// cuModuleLoadDataEx and the options of jit_options (logs of 16 KiB
  /// each), and keeps the report. When the load fails, the DriverError's
  /// message is check()'s, followed by the JIT's error log when it wrote
  /// one. @throws DriverError
  explicit Module(std::span<const std::byte> image);
  /// cuModuleUnload.
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  CUmodule get() const noexcept { return module_; }
  /// What the driver reported about the load.
  const JitReport& jit() const noexcept { return jit_; }

 private:
  CUmodule module_ = nullptr;
  JitReport jit_;
};

/// The kernel of that name in module: cuModuleGetFunction.
/// @throws DriverError (CUDA_ERROR_NOT_FOUND for a name the module lacks)
CUfunction get_function(const Module& module, const std::string& name);

/// How many of a module's functions have reached the GPU.
struct LoadState {
  unsigned functions = 0;  ///< cuModuleGetFunctionCount
  unsigned loaded = 0;     ///< of cuModuleEnumerateFunctions' handles, those cuFuncIsLoaded says are loaded
};

/// The module's load state, asked without loading anything. A module
/// without functions gives {0, 0} without calling cuModuleEnumerateFunctions
/// (its buffer would be empty).
/// @throws DriverError
LoadState load_state(const Module& module);

/// Launches f on grid blocks of block threads with cuLaunchKernel
/// (kernelParams = args.data(), no extra, no dynamic shared memory, the
/// context's default stream), then waits for it with cuCtxSynchronize.
/// @throws DriverError from either call
void launch_and_wait(CUfunction f, unsigned grid, unsigned block, std::span<void*> args);

// ---------------------------------------------------------------------------
// Part E: what a cold start costs (cold_start.cpp)
// ---------------------------------------------------------------------------

/// The steps of a program's first launch, each timed with
/// std::chrono::steady_clock, in milliseconds.
struct ColdStart {
  double init_ms = 0;          ///< cuInit(0)
  double context_ms = 0;       ///< cuDeviceGet(0) and cuCtxCreate: constructing a Context
  double load_ms = 0;          ///< constructing the Module (cuModuleLoadDataEx)
  double get_function_ms = 0;  ///< get_function (cuModuleGetFunction)
  double first_launch_ms = 0;  ///< the first launch_and_wait
  double second_launch_ms = 0; ///< the same launch again
  float jit_wall_ms = 0;       ///< the module's jit().wall_ms
  /// cuModuleGetLoadingMode: what CUDA_MODULE_LOADING chose for this process.
  CUmoduleLoadingMode loading_mode = CU_MODULE_EAGER_LOADING;
  LoadState after_load;          ///< load_state right after the load (not timed)
  LoadState after_get_function;  ///< load_state right after get_function (not timed)
  int result = 0;                ///< what the kernel wrote to out[0]
};

/// A program's first launch, step by step, in this process: cuInit,
/// a Context on device 0, a Module of image, get_function(kernel), a
/// 4-byte cuMemAlloc'ed out (zeroed), then launch_and_wait(f, 1, 1, {&out,
/// &value}) twice, for a kernel `extern "C" __global__ void kernel(int* out,
/// int value)`, and out[0] copied back into result. Only the steps listed in
/// ColdStart are timed. Everything it creates is released before it
/// returns. Its times are a cold start's only in a process that has not
/// initialized CUDA yet, which is why the timing tests run it in a fresh
/// one; in any other process it works all the same, and throws the same
/// DriverError, for a kernel the image lacks say. @throws DriverError
ColdStart cold_start(std::span<const std::byte> image, const std::string& kernel, int value);

/// The cost of creating a context once the driver is initialized: cuInit(0),
/// then `trials` times cuCtxCreate on device 0, timed, and cuCtxDestroy, not
/// timed. Returns each creation's time in ms.
/// @throws DriverError
/// @throws std::invalid_argument when trials is less than 1, before any
///         driver call
std::vector<double> time_context_creation(int trials);

}  // namespace launchlab::driver
