// check(), on any machine: with a driver the names come from cuGetErrorName,
// without one check() must still say which call failed and with what number.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "driver.h"
#include "launchlab/record.h"
#include "support.h"

namespace launchlab::driver_tests {
namespace {

using launchlab::driver::DriverError;

// What check(status, call) threw: its code and message, or nothing.
struct Thrown {
  std::optional<std::string> code;  // error_name of DriverError::code()
  std::string message;
};
Thrown thrown_by_check(CUresult status, const std::string& call) {
  try {
    launchlab::driver::check(status, call);
  } catch (const DriverError& e) {
    return Thrown{error_name(e.code()), e.what()};
  } catch (const std::exception&) {
  }
  return Thrown{};
}

TEST(Errors, CheckNamesTheCallAndTheError) {
  RECORD_NO_THROW(launchlab::driver::check(CUDA_SUCCESS, "cuInit")) << "check(CUDA_SUCCESS, \"cuInit\"): no error";

  {
    RECORD_SCOPE("check(CUDA_ERROR_INVALID_IMAGE, \"cuModuleLoadData\")");
    RECORD_THROWS(launchlab::driver::check(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData"), DriverError);
    const Thrown invalid_image = thrown_by_check(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData");
    RECORD_EQ(invalid_image.code, error_name(CUDA_ERROR_INVALID_IMAGE)) << "DriverError::code()";
    RECORD_EQ(invalid_image.message.substr(0, 18), "cuModuleLoadData: ") << "the message starts with the call";
    // error_name asks the driver, as check() must; without a driver it gives the number.
    RECORD_CONTAINS(invalid_image.message, error_name(CUDA_ERROR_INVALID_IMAGE)) << "the message names the error";
  }
  {
    RECORD_SCOPE("check(CUresult 12345, \"cuLaunchKernel\"), a status the driver has no name for");
    RECORD_THROWS(launchlab::driver::check(static_cast<CUresult>(12345), "cuLaunchKernel"), DriverError);
    RECORD_EQ(thrown_by_check(static_cast<CUresult>(12345), "cuLaunchKernel").message, "cuLaunchKernel: CUresult 12345")
        << "the message";
  }
}

}  // namespace
}  // namespace launchlab::driver_tests
