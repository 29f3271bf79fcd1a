// Part D, on a GPU: loading images by hand, running their kernels, and the
// driver's own words when something is wrong. What the driver answers is
// asked in the same run, with the same images, and compared with yours.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
#include "support.h"

namespace launchlab::driver_tests {
namespace {

using launchlab::driver::Context;
using launchlab::driver::DriverError;
using launchlab::driver::Module;

// A device int the test allocates and reads itself.
struct DeviceInt {
  CUdeviceptr address = 0;
  DeviceInt() {
    if (cuMemAlloc(&address, sizeof(int)) != CUDA_SUCCESS || cuMemsetD32(address, 0, 1) != CUDA_SUCCESS) address = 0;
  }
  ~DeviceInt() {
    if (address != 0) cuMemFree(address);
  }
  DeviceInt(const DeviceInt&) = delete;
  DeviceInt& operator=(const DeviceInt&) = delete;
  int read() const {
    int value = 0;
    return cuMemcpyDtoH(&value, address, sizeof value) == CUDA_SUCCESS ? value : -1;
  }
};

// Loads an image with your Module, runs one of its kernels with your
// get_function and launch_and_wait, and returns what the kernel wrote.
int run_kernel(const std::vector<std::byte>& image, const std::string& kernel, int value) {
  Module module(image);
  CUfunction f = launchlab::driver::get_function(module, kernel);
  if (f == nullptr) throw std::runtime_error("get_function returned no function");
  DeviceInt out;
  if (out.address == 0) throw std::runtime_error("the test could not allocate 4 bytes on the GPU");
  void* args[] = {&out.address, &value};
  launchlab::driver::launch_and_wait(f, 1, 1, args);
  return out.read();
}

// Records what run_kernel did: whether it threw, and what out[0] holds.
void RecordKernelRun(const std::vector<std::byte>& image, const std::string& kernel, int value, int expected,
                     const std::string& what) {
  RECORD_SCOPE(what + ", loaded with your Module, " + kernel + " found with your get_function and run with your "
               "launch_and_wait");
  std::optional<int> written;
  RECORD_NO_THROW(written = run_kernel(image, kernel, value));
  RECORD_EQ(written, expected) << kernel << "(out, " << value << "): out[0] afterwards (0: was the kernel launched, "
                               << "and waited for?)";
}

TEST(DriverOnGpu, LoadsACubinAndRunsItsKernel) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  const std::string arch = device_arch();
  Context context(0);
  RecordKernelRun(assemble("small.cu", std::stoi(arch)).bytes, "store", 42, 42, "small.cu's cubin");
  RecordKernelRun(fatbin("small.cu", std::stoi(arch)).bytes, "twice", 21, 42, "small.cu's fatbin");
  RecordKernelRun(compile("many.cu", "-cubin", "sm_" + arch).bytes, kKernel, kValue, kExpected, "many.cu's cubin");
}

TEST(DriverOnGpu, LoadsPtxThroughTheJit) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  Context context(0);
  // PTX for compute_75 on whatever GPU this is: the JIT compiles it for this one.
  const Compiled& ptx = ptx75("small.cu");
  RecordKernelRun(nul_terminated(ptx.bytes), "twice", 50, 100, "small.cu's compute_75 PTX");
  // The same text through your ptx_image.
  const std::string text(reinterpret_cast<const char*>(ptx.bytes.data()), ptx.bytes.size());
  RecordKernelRun(launchlab::driver::ptx_image(text), "store", 7, 7, "small.cu's PTX through your ptx_image");
}

// What the driver itself answers for a cubin, asked here: load it and find
// its kernel "store". The first answer for each cubin is printed as a csv
// line for the chapter.
[[maybe_unused]] std::string driver_answer(const std::vector<std::byte>& cubin, int sm, int major, int minor) {
  static std::map<int, std::string> answers;
  if (auto it = answers.find(sm); it != answers.end()) return it->second;
  CUmodule module = nullptr;
  CUfunction f = nullptr;
  CUresult truth = cuModuleLoadData(&module, cubin.data());
  if (truth == CUDA_SUCCESS) {
    truth = cuModuleGetFunction(&f, module, "store");
    cuModuleUnload(module);
  }
  std::printf("csv,cubin_on_device,sm_%d,%d.%d,%s\n", sm, major, minor, error_name(truth).c_str());
  std::fflush(stdout);
  return answers[sm] = error_name(truth);
}

TEST(DriverOnGpu, RefusesCubinsTheDeviceCannotRun) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  int major = 0, minor = 0;
  CUdevice device = 0;
  Context context(0);
  if (cuCtxGetDevice(&device) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS) {
    throw std::runtime_error("the driver could not say the device's compute capability");
  }
  for (int sm : {75, 80, 86, 89, 90, 100, 120}) {
    const std::vector<std::byte>& cubin = assemble("small.cu", sm).bytes;
    RECORD_SCOPE("the cubin of ptxas -arch=sm_" + std::to_string(sm) + " on this device (compute capability " +
                 std::to_string(major) + "." + std::to_string(minor) + ")");
    RECORD_EQ(launchlab::driver::sass_runs_on(sm, major, minor), driver_answer(cubin, sm, major, minor) == "CUDA_SUCCESS")
        << "sass_runs_on(" << sm << ", " << major << ", " << minor << "), against whether the driver loads it";
    std::optional<int> got_sm;
    try {
      got_sm = launchlab::driver::cubin_sm(cubin);
    } catch (const std::exception&) {
    }
    RECORD_EQ(got_sm, sm) << "cubin_sm (null if it threw)";
    RECORD_EQ(driver_outcome([&] {
                Module mine(cubin);
                (void)launchlab::driver::get_function(mine, "store");
              }),
              driver_answer(cubin, sm, major, minor))
        << "your Module, then get_function(\"store\"), against what cuModuleLoadData and cuModuleGetFunction answer";
  }
}

TEST(DriverOnGpu, ReportsTheDriversErrors) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  Context context(0);
  // Text that is no image, with a NUL at its end (the driver reads text as a C string).
  const std::string garbage = "this is not a kernel image\n";
  std::vector<std::byte> image(garbage.size() + 1, std::byte{0});
  std::memcpy(image.data(), garbage.data(), garbage.size());
  RECORD_EQ(driver_outcome([&] { Module mine(image); }), [&] {
    CUmodule module = nullptr;
    const CUresult truth = cuModuleLoadData(&module, image.data());
    if (truth == CUDA_SUCCESS) throw std::runtime_error("the driver loaded \"" + garbage + "\"");
    std::printf("csv,driver_answer,garbage_image,%s\n", error_name(truth).c_str());
    return error_name(truth);
  }()) << "your Module of the text \"this is not a kernel image\\n\", against what cuModuleLoadData answers";

  const std::vector<std::byte>& small_cubin = assemble("small.cu", std::stoi(device_arch())).bytes;
  std::optional<Module> small;
  RECORD_NO_THROW(small.emplace(small_cubin)) << "your Module of small.cu's cubin";
  RECORD_REQUIRE(small.has_value());
  RECORD_EQ(driver_outcome([&] { (void)launchlab::driver::get_function(*small, "no_such_kernel"); }), [&] {
    CUfunction f = nullptr;
    const CUresult missing = cuModuleGetFunction(&f, small->get(), "no_such_kernel");
    if (missing == CUDA_SUCCESS) throw std::runtime_error("the driver found no_such_kernel in small.cu's cubin");
    std::printf("csv,driver_answer,missing_kernel,%s\n", error_name(missing).c_str());
    return error_name(missing);
  }()) << "your get_function(small.cu's module, \"no_such_kernel\"), against what cuModuleGetFunction answers";
  std::fflush(stdout);

  // Each wrapper turns the driver's refusal into a DriverError.
  RECORD_THROWS(Module mine(image), DriverError) << "your Module of the text \"this is not a kernel image\\n\"";
  RECORD_THROWS((void)launchlab::driver::get_function(*small, "no_such_kernel"), DriverError)
      << "your get_function(small.cu's module, \"no_such_kernel\")";
  int devices = 0;
  if (cuDeviceGetCount(&devices) != CUDA_SUCCESS) throw std::runtime_error("the driver could not count the devices");
  RECORD_THROWS(Context beyond_the_last(devices), DriverError)
      << "your Context(the number of devices), an ordinal one past the last device";
  const CUfunction store = launchlab::driver::get_function(*small, "store");
  DeviceInt out;
  int value = 1;
  void* args[] = {&out.address, &value};
  RECORD_THROWS(launchlab::driver::launch_and_wait(store, 1, 2048, args), DriverError)
      << "your launch_and_wait(small.cu's store, 1 block of 2048 threads, more than any GPU allows)";
  RECORD_EQ(out.read(), 0) << "out[0] after the launch that could not start: store never ran";
  RECORD_THROWS((void)launchlab::driver::cold_start(small_cubin, "no_such_kernel", 1), DriverError)
      << "your cold_start(small.cu's cubin, \"no_such_kernel\", 1)";

  // load_state's driver calls answer for any module the driver holds, a
  // context current or not; in a child forked from this process the driver
  // answers none (launchlab/testing.h: outcome_in_a_forked_child).
  RECORD_THROWS_IN_A_FORKED_CHILD((void)launchlab::driver::load_state(*small), DriverError)
      << "your load_state(small.cu's module) in a child forked from this process";
  RECORD_EQ(launchlab::testing::outcome_in_a_forked_child(
                [&] { return driver_outcome([&] { (void)launchlab::driver::load_state(*small); }); }),
            launchlab::testing::outcome_in_a_forked_child([&] {
              unsigned count = 0;
              return error_name(cuModuleGetFunctionCount(&count, small->get()));
            }))
      << "your load_state(small.cu's module) in a child forked from this process, against what "
         "cuModuleGetFunctionCount answers there";
}

TEST(DriverOnGpu, JitErrorsCarryTheCompilerLog) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  Context context(0);
  // %r1 is used without a .reg declaration, on line 5.
  const std::string broken = ".version 9.0\n.target sm_" + device_arch() +
                             "\n.address_size 64\n.visible .entry broken(.param .u64 out) {\n  mov.u32 %r1, 1;\n  ret;\n}\n";
  std::vector<std::byte> image(broken.size() + 1, std::byte{0});
  std::memcpy(image.data(), broken.data(), broken.size());
  // The driver's answer and log, asked here with a log buffer of the test's own.
  std::optional<std::pair<std::string, std::string>> driver;
  [[maybe_unused]] const auto ask_the_driver = [&] {
    if (!driver) {
      std::vector<char> log(16 * 1024, '\0');
      CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size()))};
      CUmodule module = nullptr;
      const CUresult truth = cuModuleLoadDataEx(&module, image.data(), 2, keys, values);
      if (truth == CUDA_SUCCESS) throw std::runtime_error("the JIT accepted the broken PTX");
      const std::string driver_log(log.data());
      if (driver_log.empty()) throw std::runtime_error("the JIT wrote no error log (" + error_name(truth) + ")");
      const std::string first_line = driver_log.substr(0, driver_log.find('\n'));
      std::printf("csv,jit_error_log,%s,\"%s\"\n", error_name(truth).c_str(), first_line.c_str());
      std::fflush(stdout);
      driver.emplace(error_name(truth), first_line);
    }
    return *driver;
  };
  RECORD_SCOPE("your Module of PTX that uses %r1 without declaring it (line 5):\n" + broken);
  std::string message;
  RECORD_EQ(driver_outcome([&] {
              try {
                Module mine(image);
              } catch (const std::exception& e) {
                message = e.what();
                throw;
              }
            }),
            ask_the_driver().first)
      << "what it threw, against what cuModuleLoadDataEx answers";
  RECORD_CONTAINS(message, ask_the_driver().second) << "the message holds the first line of the JIT's error log";
}

}  // namespace
}  // namespace launchlab::driver_tests
