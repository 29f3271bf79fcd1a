// Part D, on a GPU: loading images by hand, running their kernels, and the
// driver's own words when something is wrong. What the driver answers is
// asked in the same run, with the same images, and compared with yours.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "driver.h"
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
::testing::AssertionResult RunsKernel(const std::vector<std::byte>& image, const std::string& kernel, int value,
                                      int expected, const std::string& what) {
  try {
    Module module(image);
    CUfunction f = launchlab::driver::get_function(module, kernel);
    if (f == nullptr) return ::testing::AssertionFailure() << what << ": get_function returned no function";
    DeviceInt out;
    if (out.address == 0) return ::testing::AssertionFailure() << what << ": the test could not allocate 4 bytes";
    void* args[] = {&out.address, &value};
    launchlab::driver::launch_and_wait(f, 1, 1, args);
    const int written = out.read();
    if (written != expected) {
      return ::testing::AssertionFailure() << what << ": " << kernel << "(out, " << value << ") should write "
                                           << expected << ", out[0] holds " << written
                                           << (written == 0 ? " (was the kernel launched, and waited for?)" : "");
    }
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << what << ": " << e.what();
  }
  return ::testing::AssertionSuccess();
}

TEST(DriverOnGpu, LoadsACubinAndRunsItsKernel) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  const std::string arch = device_arch();
  Context context(0);
  EXPECT_TRUE(RunsKernel(assemble("small.cu", std::stoi(arch)).bytes, "store", 42, 42, "small.cu's cubin"));
  EXPECT_TRUE(RunsKernel(fatbin("small.cu", std::stoi(arch)).bytes, "twice", 21, 42, "small.cu's fatbin"));
  EXPECT_TRUE(RunsKernel(compile("many.cu", "-cubin", "sm_" + arch).bytes, kKernel, kValue, kExpected,
                         "many.cu's cubin"));
}

TEST(DriverOnGpu, LoadsPtxThroughTheJit) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  Context context(0);
  // PTX for compute_75 on whatever GPU this is: the JIT compiles it for this one.
  const Compiled& ptx = ptx75("small.cu");
  EXPECT_TRUE(RunsKernel(nul_terminated(ptx.bytes), "twice", 50, 100, "small.cu's compute_75 PTX"));
  // The same text through your ptx_image.
  const std::string text(reinterpret_cast<const char*>(ptx.bytes.data()), ptx.bytes.size());
  EXPECT_TRUE(RunsKernel(launchlab::driver::ptx_image(text), "store", 7, 7, "small.cu's PTX through ptx_image"));
}

TEST(DriverOnGpu, RefusesCubinsTheDeviceCannotRun) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  int major = 0, minor = 0;
  CUdevice device = 0;
  Context context(0);
  ASSERT_EQ(cuCtxGetDevice(&device), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), CUDA_SUCCESS);
  for (int sm : {75, 80, 86, 89, 90, 100, 120}) {
    const std::vector<std::byte>& cubin = assemble("small.cu", sm).bytes;
    // The driver's answer, asked here: load the cubin and find its kernel.
    CUmodule module = nullptr;
    CUfunction f = nullptr;
    CUresult truth = cuModuleLoadData(&module, cubin.data());
    if (truth == CUDA_SUCCESS) {
      truth = cuModuleGetFunction(&f, module, "store");
      cuModuleUnload(module);
    }
    std::printf("csv,cubin_on_device,sm_%d,%d.%d,%s\n", sm, major, minor, error_name(truth).c_str());
    const bool driver_runs_it = truth == CUDA_SUCCESS;
    EXPECT_EQ(launchlab::driver::sass_runs_on(sm, major, minor), driver_runs_it)
        << "SASS for sm_" << sm << " on this device (compute capability " << major << "." << minor
        << "): the driver says " << error_name(truth);
    try {
      EXPECT_EQ(launchlab::driver::cubin_sm(cubin), sm);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "cubin_sm threw: " << e.what();
    }
    try {
      Module mine(cubin);
      (void)launchlab::driver::get_function(mine, "store");
      EXPECT_TRUE(driver_runs_it) << "sm_" << sm << ": your Module and get_function succeeded where the driver said "
                                  << error_name(truth);
    } catch (const DriverError& e) {
      EXPECT_FALSE(driver_runs_it) << "sm_" << sm << ": the driver loads this cubin, yours threw: " << e.what();
      EXPECT_EQ(e.code(), truth) << "sm_" << sm << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(error_name(truth)), std::string::npos)
          << "the message should name " << error_name(truth) << ": " << e.what();
    }
  }
  std::fflush(stdout);
}

TEST(DriverOnGpu, ReportsTheDriversErrors) {
  LAUNCHLAB_REQUIRE_GPU();
  LAUNCHLAB_REQUIRE_DRIVER();
  Context context(0);
  // Text that is no image, with a NUL at its end (the driver reads text as a C string).
  const std::string garbage = "this is not a kernel image\n";
  std::vector<std::byte> image(garbage.size() + 1, std::byte{0});
  std::memcpy(image.data(), garbage.data(), garbage.size());
  CUmodule module = nullptr;
  const CUresult truth = cuModuleLoadData(&module, image.data());
  ASSERT_NE(truth, CUDA_SUCCESS) << "the driver loaded \"" << garbage << "\"";
  std::printf("csv,driver_answer,garbage_image,%s\n", error_name(truth).c_str());
  try {
    Module mine(image);
    ADD_FAILURE() << "your Module loaded text that is no image; the driver says " << error_name(truth);
  } catch (const DriverError& e) {
    EXPECT_EQ(e.code(), truth) << e.what();
    EXPECT_NE(std::string(e.what()).find(error_name(truth)), std::string::npos)
        << "expected the message to name " << error_name(truth) << ": " << e.what();
  }

  Module small(assemble("small.cu", std::stoi(device_arch())).bytes);
  CUfunction f = nullptr;
  const CUresult missing = cuModuleGetFunction(&f, small.get(), "no_such_kernel");
  ASSERT_NE(missing, CUDA_SUCCESS);
  std::printf("csv,driver_answer,missing_kernel,%s\n", error_name(missing).c_str());
  try {
    (void)launchlab::driver::get_function(small, "no_such_kernel");
    ADD_FAILURE() << "get_function found no_such_kernel; the driver says " << error_name(missing);
  } catch (const DriverError& e) {
    EXPECT_EQ(e.code(), missing) << e.what();
    EXPECT_NE(std::string(e.what()).find(error_name(missing)), std::string::npos) << e.what();
  }
  std::fflush(stdout);
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
  // The driver's log, asked here with a log buffer of the test's own.
  std::vector<char> log(16 * 1024, '\0');
  CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size()))};
  CUmodule module = nullptr;
  const CUresult truth = cuModuleLoadDataEx(&module, image.data(), 2, keys, values);
  ASSERT_NE(truth, CUDA_SUCCESS) << "the JIT accepted the broken PTX";
  const std::string driver_log(log.data());
  ASSERT_FALSE(driver_log.empty()) << "the JIT wrote no error log (" << error_name(truth) << ")";
  const std::string first_line = driver_log.substr(0, driver_log.find('\n'));
  std::printf("csv,jit_error_log,%s,\"%s\"\n", error_name(truth).c_str(), first_line.c_str());
  try {
    Module mine(image);
    ADD_FAILURE() << "your Module loaded broken PTX";
  } catch (const DriverError& e) {
    EXPECT_EQ(e.code(), truth) << e.what();
    EXPECT_NE(std::string(e.what()).find(first_line), std::string::npos)
        << "expected the JIT's error log in the message; the driver wrote: " << driver_log << "\nyour message: "
        << e.what();
  }
  std::fflush(stdout);
}

}  // namespace
}  // namespace launchlab::driver_tests
