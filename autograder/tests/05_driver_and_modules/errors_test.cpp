// check(), on any machine: with a driver the names come from cuGetErrorName,
// without one check() must still say which call failed and with what number.
// And time_context_creation's argument check, which comes before any driver
// call and so answers the same on any machine.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <stdexcept>
#include <string>

#include "driver.h"
#include "launchlab/drawn.h"
#include "launchlab/record.h"
#include "launchlab/testing.h"
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

TEST(Errors, ContextTimingRejectsTrialsBelowOneBeforeTheDriver) {
  RECORD_THROWS((void)launchlab::driver::time_context_creation(0), std::invalid_argument)
      << "time_context_creation(0)";
  RECORD_THROWS((void)launchlab::driver::time_context_creation(-1), std::invalid_argument)
      << "time_context_creation(-1)";
  // Drawn calls, valid or not by the draw. A valid one creates a context or
  // two on a GPU and fails in the driver (a DriverError) without one: only
  // whether each call was rejected is the same on every machine.
  std::mt19937_64 random = launchlab::testing::seeded_random(20260504);
  launchlab::testing::RejectionTable table;
  for (const bool valid : launchlab::testing::draw_validity(random, 8)) {
    const int trials = valid ? 1 + static_cast<int>(random() % 2) : -static_cast<int>(random() % 1000);
    table.add(valid, "time_context_creation(" + std::to_string(trials) + ")",
              [&] { (void)launchlab::driver::time_context_creation(trials); });
  }
  RECORD_EQ(table.rejected, table.invalid)
      << "[i]: whether call i threw std::invalid_argument; the calls: " << table.calls;
  // A valid call where the driver sees no device fails in the driver.
  RECORD_THROWS_WITHOUT_A_GPU((void)launchlab::driver::time_context_creation(1), DriverError)
      << "time_context_creation(1) where the driver sees no device";
}

}  // namespace
}  // namespace launchlab::driver_tests
