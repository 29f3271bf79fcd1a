// `launchlab doctor`: the versions of what the course uses, what each
// command can do on this machine, and what to install for the rest.
#include "doctor.h"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "launchlab/grader/grading.h"
#include "launchlab/grader/process.h"
#include "launchlab/grader/sandbox.h"
#include "launchlab/grader/stages.h"
#include "launchlab/cli/versions.h"

namespace launchlab::cli {
namespace fs = std::filesystem;
using namespace launchlab::grader;

namespace {

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && access((fs::path(dir) / program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

/// One line of packages.txt: its group, its Debian package, and whether what
/// it provides is here (the same test as ./launchlab's).
struct Package {
  std::string group, name;
  bool present = false;
};

std::vector<Package> course_packages(const fs::path& root) {
  std::vector<Package> packages;
  std::istringstream lines(read_text(root / "packages.txt"));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    Package package;
    std::string check;
    if (!(words >> package.group >> package.name >> check) || package.group.starts_with("#")) continue;
    if (check.starts_with("command:")) {
      package.present = on_path(check.substr(8));
    } else if (check.starts_with("file:")) {
      const fs::path file = check.substr(5);
      const std::string under_usr_include = "/usr/include/";
      package.present = fs::exists(file) ||
                        (check.find(under_usr_include) == 5 &&
                         fs::exists(root / ".carry" / "include" / check.substr(5 + under_usr_include.size())));
    }
    packages.push_back(package);
  }
  return packages;
}

std::string python_module_version(const std::string& module) {
  // Debian's python3, which holds Debian's Sphinx packages.
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::string text = output_of({python, "-c", "import " + module + " as m; print(getattr(m, '__version__', 'found'))"});
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.find('\n') == std::string::npos ? text : "";
}

/// The kernel module's version (/proc/driver/nvidia/version), "" without one.
std::string driver_version() {
  return version_in(read_text("/proc/driver/nvidia/version"), "NVRM");
}

void show(const std::string& what, const std::string& value, const std::string& otherwise = "not found") {
  std::cout << "  " << std::left << std::setw(19) << what << (value.empty() ? otherwise : value) << std::endl;
}

}  // namespace

int command_doctor(const fs::path& root, const fs::path& build, const fs::path& cuda_bin,
                   const std::string& architectures) {
  // Each line as soon as it is known: the probes take seconds on a busy machine.
  std::cout << "launchlab doctor\n\nWhat is installed" << std::endl;
  const Capabilities capabilities = detect_capabilities(cuda_bin);
  const std::vector<Package> packages = course_packages(root);
  auto missing_in = [&](const std::string& group) {
    std::vector<std::string> names;
    for (const auto& package : packages) {
      if (package.group == group && !package.present) names.push_back(package.name);
    }
    return names;
  };

  const std::string nvcc = nvcc_version(cuda_bin);
  show("nvcc", nvcc.empty() ? "" : nvcc + " (" + cuda_bin.string() + ")");
  show("g++", tool_version("g++"));
  show("cmake", tool_version("cmake"));
  show("ninja", tool_version("ninja"));
  show("bubblewrap", tool_version("bwrap"));
  for (const auto& [need, found] : capabilities.tools) {
    if (need == "open-gpu-doc") show(need, open_gpu_doc_checkout());
    else show(need, found_tool(need, capabilities), "not found beside nvcc or on PATH");
  }
  const std::string driver = driver_version();
  int cuda_of_driver = 0;
  if (driver.empty()) {
    show("NVIDIA driver", "", "no NVIDIA driver here");
  } else if (cudaDriverGetVersion(&cuda_of_driver) == cudaSuccess && cuda_of_driver > 0) {
    show("NVIDIA driver", driver + " (supports CUDA " + std::to_string(cuda_of_driver / 1000) + "." +
                              std::to_string(cuda_of_driver % 1000 / 10) + ")");
  } else {
    show("NVIDIA driver", driver);
  }
  show("GPU", capabilities.gpu ? capabilities.gpu_detail : "none (" + capabilities.gpu_detail + ")");
  const std::string sphinx = fs::exists("/usr/bin/sphinx-build") ? version_in(output_of({"/usr/bin/sphinx-build", "--version"}))
                                                                 : tool_version("sphinx-build");
  show("Sphinx", sphinx);
  const std::string breathe = python_module_version("breathe");
  const std::string myst = python_module_version("myst_parser");
  show("Breathe", breathe);
  show("MyST", myst);
  const std::string doxygen = tool_version("doxygen");
  show("Doxygen", doxygen);
  show("architectures", architectures);
  show("build folder", build.string());

  std::cout << "\nWhat each command can do here\n";
  std::vector<std::string> fully, partly, none;
  std::map<std::string, int> points_needing;
  std::vector<std::string> partly_details;
  for (const auto& lab : load_course(root)) {
    int here = 0, total = 0;
    for (const auto& test : lab.tests) {
      total += test.points;
      if (auto need = capabilities.unmet_need(test)) points_needing[*need] += test.points;
      else here += test.points;
    }
    // A check under compute-sanitizer needs its test's needs and the tool.
    for (const auto& check : lab.sanitizer_checks()) {
      total += check.points;
      LabTest under_the_tool = *std::find_if(lab.tests.begin(), lab.tests.end(),
                                             [&](const LabTest& t) { return t.name == check.test; });
      under_the_tool.needs.push_back("compute-sanitizer");
      if (auto need = capabilities.unmet_need(under_the_tool)) points_needing[*need] += check.points;
      else here += check.points;
    }
    if (here == total) fully.push_back(lab.number());
    else if (here == 0) none.push_back(lab.number());
    else partly_details.push_back(lab.number() + " (" + std::to_string(here) + "/" + std::to_string(total) + ")");
  }
  auto joined = [](const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
    return text.empty() ? std::string("none") : text;
  };
  show("test", "every test of labs " + joined(fully));
  if (!partly_details.empty()) show("", "some tests of labs " + joined(partly_details) + " (points gradable here)");
  if (!none.empty()) show("", "no test of labs " + joined(none));
  for (const auto& [need, points] : points_needing) {
    show("", std::to_string(points) + " points need " + (need == "gpu" ? std::string("a GPU") : need));
  }
  try {
    // Trying bubblewrap as a sandbox user takes that user for the run, and
    // another grading may hold it for minutes: doctor says so and goes on.
    SandboxRequest request = SandboxRequest::from_environment();
    request.wait_for_user = false;
    Sandbox sandbox = choose_sandbox(request);
    show("grade", "sandbox " + std::string(to_string(sandbox.kind)) + ": " + sandbox.reason);
  } catch (const SandboxUsersBusy& busy) {
    show("grade", std::string("cannot try the sandbox now, its users are taken by other gradings: ") + busy.what() +
                      "; a grading started now waits for one");
  } catch (const std::exception& error) {
    show("grade", std::string("no sandbox: ") + error.what());
  }
  if (geteuid() != 0) {
    show("", "the user and user_bubblewrap sandboxes need root and a dedicated user (the grader's container has both)");
  }
  const std::vector<std::string> docs_missing = missing_in("docs");
  show("docs", docs_missing.empty() ? "Sphinx, Breathe, MyST and Doxygen are found: `launchlab docs` builds the site"
                                    : "cannot build the site: " + joined(docs_missing) + " missing");
  show("inspect", nvcc.empty() ? "needs nvcc" : "builds its tools from your labs (cubin, fatbin, sass, qmd, pushbuf)");
  show("trace", capabilities.gpu ? "captures and decodes launches on " + capabilities.gpu_detail
                                 : "needs an NVIDIA GPU and its driver to capture a launch (none here)");

  std::vector<std::string> to_install = missing_in("build");
  for (const auto& name : missing_in("grader")) to_install.push_back(name);
  for (const auto& name : docs_missing) to_install.push_back(name);
  std::cout << "\nWhat to install for the rest\n";
  if (!to_install.empty()) std::cout << "  sudo apt-get install -y " << joined(to_install) << "\n";
  if (points_needing.count("cuobjdump") || points_needing.count("nvdisasm")) {
    std::cout << "  cuobjdump and nvdisasm come with the CUDA Toolkit (NVIDIA's cuda-cuobjdump and cuda-nvdisasm packages)\n";
  }
  if (points_needing.count("open-gpu-doc")) std::cout << "  open-gpu-doc: " << open_gpu_doc_checkout() << "\n";
  if (!capabilities.gpu) {
    std::cout << "  the GPU tests need an NVIDIA GPU with its driver (NVIDIA's driver packages; the course was measured with 580)\n";
  }
  if (to_install.empty() && points_needing.empty()) std::cout << "  nothing: every command can do everything here\n";
  return 0;
}

}  // namespace launchlab::cli
