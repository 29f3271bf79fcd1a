#include "support.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "driver.h"
#include "launchlab/testing.h"

namespace launchlab::driver_tests {
namespace fs = std::filesystem;

namespace {
namespace lt = launchlab::testing;

std::string tool(const char* name) {
  auto path = lt::find_cuda_tool(name);
  if (!path) throw std::runtime_error(std::string(name) + " is not installed beside nvcc");
  return path->string();
}

// A file a tool writes once per test program, as the tests keep it.
Compiled made(const std::vector<std::string>& argv, const fs::path& out) {
  const lt::MadeFile& file = lt::file_made_once(argv, out);
  return Compiled{file.path, lt::bytes_of(file.content)};
}

}  // namespace

const Compiled& compile(const std::string& source, const std::string& kind, const std::string& arch) {
  const std::string extension = kind == "-ptx" ? ".ptx" : kind == "-fatbin" ? ".fatbin" : ".cubin";
  const std::string name = fs::path(source).stem().string() + "_nvcc_" + arch + extension;
  return lt::made_once(name, [&] {
    const lt::MadeFile& file =
        lt::nvcc_once(lt::lab_material("05_driver_and_modules/kernels/" + source), {kind, "-arch=" + arch}, name);
    return Compiled{file.path, lt::bytes_of(file.content)};
  });
}

const Compiled& ptx75(const std::string& source) { return compile(source, "-ptx", "compute_75"); }

const Compiled& assemble(const std::string& source, int sm) {
  const std::string arch = "sm_" + std::to_string(sm);
  const fs::path out = lt::work_dir() / (fs::path(source).stem().string() + "_" + arch + ".cubin");
  return lt::made_once(out.filename().string(), [&] {
    return made({tool("ptxas"), "-arch=" + arch, ptx75(source).path.string(), "-o", out.string()}, out);
  });
}

const Compiled& fatbin(const std::string& source, int sm) {
  const fs::path out = lt::work_dir() / (fs::path(source).stem().string() + "_sm_" + std::to_string(sm) + ".fatbin");
  return lt::made_once(out.filename().string(), [&] {
    return made({tool("fatbinary"), "--64", "--create=" + out.string(),
                 "--image3=kind=elf,sm=" + std::to_string(sm) + ",file=" + assemble(source, sm).path.string(),
                 "--image3=kind=ptx,sm=75,file=" + ptx75(source).path.string()},
                out);
  });
}

std::vector<std::byte> nul_terminated(const std::vector<std::byte>& bytes) {
  std::vector<std::byte> image = bytes;
  image.push_back(std::byte{0});
  return image;
}

std::string error_name(CUresult status) {
  const char* name = nullptr;
  if (cuGetErrorName(status, &name) == CUDA_SUCCESS && name != nullptr) return name;
  return "CUresult " + std::to_string(static_cast<int>(status));
}

std::string device_arch() {
  CUdevice device = 0;
  int major = 0, minor = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS) {
    throw std::runtime_error("device_arch: the driver could not say the device's compute capability");
  }
  return std::to_string(major * 10 + minor);
}

// ---- cold starts in fresh processes -------------------------------------------

double TrialOutcome::value(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) throw std::runtime_error("the cold start reported no " + key);
  return it->second;
}

TrialOutcome run_trial(const TrialSetup& setup) {
  TrialOutcome outcome;
  // Each variable a trial sets is unset first, so that none leaks from the
  // environment the tests were started in.
  static const std::vector<std::string> managed = {"CUDA_MODULE_LOADING=", "CUDA_CACHE_DISABLE=", "CUDA_CACHE_PATH=",
                                                   "CUDA_FORCE_PTX_JIT=", std::string(kColdStartVariable) + "="};
  std::vector<std::string> set = {std::string(kColdStartVariable) + "=" + setup.image.string()};
  if (setup.module_loading) set.push_back("CUDA_MODULE_LOADING=" + *setup.module_loading);
  if (setup.cache_disabled) set.push_back("CUDA_CACHE_DISABLE=1");
  if (setup.cache_path) set.push_back("CUDA_CACHE_PATH=" + setup.cache_path->string());
  const lt::FreshProcess child = lt::run_fresh_process(managed, set, std::chrono::seconds(300));
  outcome.process_ms = child.wall_ms;

  std::istringstream lines(child.output);
  std::string line;
  bool reported = false;
  while (std::getline(lines, line)) {
    if (line.rfind("cold_start ", 0) != 0) continue;
    std::istringstream words(line.substr(11));
    std::string word;
    while (words >> word) {
      const auto eq = word.find('=');
      if (eq != std::string::npos) outcome.values[word.substr(0, eq)] = std::stod(word.substr(eq + 1));
    }
    reported = true;
  }
  outcome.ok = reported && !child.timed_out && child.exit_code == 0;
  if (!outcome.ok) {
    outcome.error = "the cold start in a fresh process (" + setup.image.filename().string() + ", CUDA_MODULE_LOADING=" +
                    setup.module_loading.value_or("(unset)") + ") " + child.how_it_ended() + "; it printed:\n" +
                    child.output;
  }
  return outcome;
}

namespace {

// The fresh process's side: one cold start, one line on stdout.
int cold_start_child(const char* image_argument) {
  try {
    if (auto why = launchlab::driver::load_driver_library()) {
      std::printf("error %s\n", why->c_str());
      return 2;
    }
    const fs::path image_path = image_argument;
    std::vector<std::byte> image = lt::bytes_of(lt::read_file(image_path));
    if (image_path.extension() == ".ptx") image = nul_terminated(image);
    const launchlab::driver::ColdStart r = launchlab::driver::cold_start(image, kKernel, kValue);
    std::printf(
        "cold_start init_ms=%.6f context_ms=%.6f load_ms=%.6f get_function_ms=%.6f first_launch_ms=%.6f "
        "second_launch_ms=%.6f jit_wall_ms=%.6f loading_mode=%d functions=%u loaded_after_load=%u "
        "loaded_after_get=%u result=%d\n",
        r.init_ms, r.context_ms, r.load_ms, r.get_function_ms, r.first_launch_ms, r.second_launch_ms,
        static_cast<double>(r.jit_wall_ms), static_cast<int>(r.loading_mode), r.after_load.functions,
        r.after_load.loaded, r.after_get_function.loaded, r.result);
    return 0;
  } catch (const std::exception& e) {
    std::printf("error %s\n", e.what());
    return 2;
  }
}

// CUDA_MODULE_LOADING and the compute cache are read when a process
// initializes CUDA, so each cold start needs a process of its own: run_trial
// starts this program again with kColdStartVariable set, and the cold start
// runs there instead of the tests.
[[maybe_unused]] const bool cold_start_child_registered = lt::run_instead_of_tests(kColdStartVariable, cold_start_child);

}  // namespace

}  // namespace launchlab::driver_tests
