// Names of the wait methods, and the PCIe link as the operating system
// reports it. Not a student file. The contract is in completion.h.

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "completion.h"

namespace launchlab::completion {

namespace {

constexpr std::pair<WaitMethod, std::string_view> kNames[] = {
    {WaitMethod::StreamQuerySpin, "stream-query-spin"},
    {WaitMethod::StreamSyncSpin, "stream-sync-spin"},
    {WaitMethod::StreamSyncYield, "stream-sync-yield"},
    {WaitMethod::StreamSyncBlocking, "stream-sync-blocking"},
    {WaitMethod::EventSyncSpin, "event-sync-spin"},
    {WaitMethod::EventSyncBlocking, "event-sync-blocking"},
};

std::optional<std::string> first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

}  // namespace

std::string_view method_name(WaitMethod method) {
  for (const auto& [m, name] : kNames) {
    if (m == method) return name;
  }
  return "unknown";
}

std::optional<WaitMethod> method_from_name(std::string_view name) {
  for (const auto& [m, n] : kNames) {
    if (n == name) return m;
  }
  return std::nullopt;
}

std::optional<PcieLink> read_pcie_link(int device) {
  int domain = 0, bus = 0, slot = 0;
  if (cudaDeviceGetAttribute(&domain, cudaDevAttrPciDomainId, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&slot, cudaDevAttrPciDeviceId, device) != cudaSuccess) {
    return std::nullopt;
  }
  // sysfs names a PCI function domain:bus:device.function in lowercase hex;
  // a GPU is function 0.
  char address[32];
  std::snprintf(address, sizeof address, "%04x:%02x:%02x.0", static_cast<unsigned>(domain),
                static_cast<unsigned>(bus), static_cast<unsigned>(slot));
  const std::string dir = std::string("/sys/bus/pci/devices/") + address + "/";
  const auto speed = first_line(dir + "max_link_speed");  // "32.0 GT/s PCIe" (older kernels: "8 GT/s")
  const auto width = first_line(dir + "max_link_width");  // "16"
  if (!speed || !width) return std::nullopt;
  char* rest = nullptr;
  const double gts = std::strtod(speed->c_str(), &rest);
  if (rest == speed->c_str() || std::string(rest).find("GT/s") == std::string::npos || gts <= 0) {
    return std::nullopt;  // "Unknown"
  }
  const long lanes = std::strtol(width->c_str(), &rest, 10);
  if (rest == width->c_str() || lanes <= 0 || lanes > 32) return std::nullopt;
  return PcieLink{gts, static_cast<unsigned>(lanes)};
}

}  // namespace launchlab::completion
