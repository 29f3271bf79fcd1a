// check(), on any machine: with a driver the names come from cuGetErrorName,
// without one check() must still say which call failed and with what number.
#include <gtest/gtest.h>

#include <string>

#include "driver.h"
#include "support.h"

namespace launchlab::driver_tests {
namespace {

using launchlab::driver::DriverError;

// What check() throws for status, or a failure saying it threw nothing.
::testing::AssertionResult Throws(CUresult status, const std::string& call, std::string& message, CUresult& code) {
  try {
    launchlab::driver::check(status, call);
  } catch (const DriverError& e) {
    message = e.what();
    code = e.code();
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "check(" << static_cast<int>(status)
                                         << ") threw something other than DriverError: " << e.what();
  }
  return ::testing::AssertionFailure() << "check(" << static_cast<int>(status) << ", \"" << call
                                       << "\") threw nothing";
}

TEST(Errors, CheckNamesTheCallAndTheError) {
  EXPECT_NO_THROW(launchlab::driver::check(CUDA_SUCCESS, "cuInit")) << "CUDA_SUCCESS is no error";
  std::string message;
  CUresult code = CUDA_SUCCESS;
  ASSERT_TRUE(Throws(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData", message, code));
  EXPECT_EQ(code, CUDA_ERROR_INVALID_IMAGE) << "DriverError::code()";
  EXPECT_EQ(message.rfind("cuModuleLoadData: ", 0), 0u) << "the message starts with the call: " << message;
  // error_name asks the driver, as check() must; without a driver it gives the number.
  const std::string name = error_name(CUDA_ERROR_INVALID_IMAGE);
  EXPECT_NE(message.find(name), std::string::npos) << "expected \"" << name << "\" in: " << message;

  ASSERT_TRUE(Throws(static_cast<CUresult>(12345), "cuLaunchKernel", message, code));
  EXPECT_EQ(message, "cuLaunchKernel: CUresult 12345") << "a status the driver has no name for";
}

}  // namespace
}  // namespace launchlab::driver_tests
