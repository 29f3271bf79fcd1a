// Part B: naming the files `nvcc --keep` leaves.
#include "pipeline.h"

#include <array>
#include <cctype>
#include <string>

namespace launchlab::pipeline {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "compute_90", "sm_90", "sm_90a", "compute_100f": a prefix, digits, and at
// most one letter for the arch-specific and family-specific variants.
bool is_arch(std::string_view part, std::string_view prefix) {
  if (part.substr(0, prefix.size()) != prefix) return false;
  std::string_view rest = part.substr(prefix.size());
  std::size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits == 0) return false;
  rest.remove_prefix(digits);
  return rest.empty() || (rest.size() == 1 && std::isalpha(static_cast<unsigned char>(rest[0])));
}

struct Suffix {
  std::string_view text;
  FileKind kind;
  StageKind made_by;
};

// Matched against the end of the name only: "vadd.fatbin.c" contains
// ".fatbin" and "vadd.cudafe1.stub.c" contains ".cudafe1." but each ends in
// exactly one of these.
constexpr std::array<Suffix, 13> kSuffixes = {{
    {".cudafe1.stub.c", FileKind::Stub, StageKind::Cicc},
    {".cudafe1.cpp", FileKind::HostSource, StageKind::Cudafe},
    {".cudafe1.gpu", FileKind::DeviceGpu, StageKind::Cicc},
    {".cudafe1.c", FileKind::CudafeC, StageKind::Cicc},
    {".module_id", FileKind::ModuleId, StageKind::Cudafe},
    {".cpp4.ii", FileKind::HostPreprocessed, StageKind::HostPreprocess},
    {".cpp1.ii", FileKind::DevicePreprocessed, StageKind::DevicePreprocess},
    {".fatbin.c", FileKind::FatbinC, StageKind::Fatbinary},
    {".fatbin", FileKind::Fatbin, StageKind::Fatbinary},
    {".reg.c", FileKind::LinkRegistration, StageKind::Nvlink},
    {".cubin", FileKind::Cubin, StageKind::Ptxas},
    {".ptx", FileKind::Ptx, StageKind::Cicc},
    {".o", FileKind::Object, StageKind::HostCompile},
}};

}  // namespace

KeptFile classify_kept_file(std::string_view file_name) {
  std::size_t slash = file_name.find_last_of('/');
  if (slash != std::string_view::npos) file_name.remove_prefix(slash + 1);

  KeptFile file;
  file.name = std::string(file_name);
  std::string_view stem;
  for (const Suffix& suffix : kSuffixes) {
    if (ends_with(file_name, suffix.text) && file_name.size() > suffix.text.size()) {
      file.kind = suffix.kind;
      file.made_by = suffix.made_by;
      stem = file_name.substr(0, file_name.size() - suffix.text.size());
      break;
    }
  }
  if (file.kind == FileKind::Unknown) return file;

  // Between the source's stem and the suffix nvcc puts the architectures:
  // vadd.compute_90.sm_90.cubin. Look at every dot-separated part of what
  // precedes the suffix.
  std::string_view parts = stem;
  std::string_view base = stem;  // the stem without architecture parts
  while (!parts.empty()) {
    std::size_t dot = parts.find_last_of('.');
    std::string_view part = dot == std::string_view::npos ? parts : parts.substr(dot + 1);
    if (is_arch(part, "compute_")) {
      file.virtual_arch = std::string(part);
    } else if (is_arch(part, "sm_")) {
      file.real_arch = std::string(part);
    } else {
      break;  // the architectures sit right before the suffix; the rest is the stem
    }
    if (dot == std::string_view::npos) { parts = {}; base = {}; break; }
    parts = parts.substr(0, dot);
    base = parts;
  }

  // The device link names its files after the source with "_dlink": nvlink
  // writes x_dlink.sm_90.cubin and x_dlink.reg.c, fatbinary -link the
  // x_dlink.fatbin(.c), and the host compiler x_dlink.o from crt/link.stub.
  file.device_link = ends_with(base, "_dlink");
  if (file.device_link && file.kind == FileKind::Cubin) file.made_by = StageKind::Nvlink;
  return file;
}

}  // namespace launchlab::pipeline
