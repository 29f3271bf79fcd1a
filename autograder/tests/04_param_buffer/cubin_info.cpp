#include "cubin_info.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "cases.h"
#include "launchlab/testing.h"

namespace launchlab::param_buffer_tests {
namespace fs = std::filesystem;

namespace {

template <class T>
T read_at(std::span<const std::byte> bytes, std::size_t offset, const char* what) {
  if (offset > bytes.size() || sizeof(T) > bytes.size() - offset) {
    throw std::runtime_error(std::string("cubin: ") + what + " lies past the end of the file");
  }
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));  // little-endian host, little-endian ELF
  return value;
}

constexpr std::uint8_t kFormatSval = 4;
constexpr std::uint8_t kKparamInfo = 0x17;
constexpr std::uint8_t kCbankParamSize = 0x19;
constexpr std::uint8_t kKparamInfoV2 = 0x45;

void read_records(std::span<const std::byte> section, RecordedKernel& kernel) {
  std::size_t at = 0;
  while (at < section.size()) {
    const auto format = read_at<std::uint8_t>(section, at, "a record's format");
    const auto attribute = read_at<std::uint8_t>(section, at + 1, "a record's attribute");
    const auto value = read_at<std::uint16_t>(section, at + 2, "a record's value");
    at += 4;
    if (format != kFormatSval) {
      if (attribute == kCbankParamSize) kernel.cbank_param_size = value;
      continue;
    }
    const std::span<const std::byte> payload = section.subspan(at, std::min<std::size_t>(value, section.size() - at));
    if (payload.size() != value) throw std::runtime_error("cubin: a .nv.info record runs past its section");
    at += value;
    if ((attribute == kKparamInfo || attribute == kKparamInfoV2) && value == 12) {
      RecordedParam p;
      p.ordinal = read_at<std::uint16_t>(payload, 4, "KPARAM_INFO ordinal");
      p.offset = read_at<std::uint16_t>(payload, 6, "KPARAM_INFO offset");
      const auto flags = read_at<std::uint32_t>(payload, 8, "KPARAM_INFO flags");
      p.size = attribute == kKparamInfo ? flags >> 18 : flags & 0xffffu;
      p.attribute = attribute;
      kernel.params.push_back(p);
    }
  }
}

}  // namespace

std::map<std::string, RecordedKernel> read_recorded_params(std::span<const std::byte> cubin) {
  if (cubin.size() < 64 || std::memcmp(cubin.data(), "\x7f" "ELF", 4) != 0) {
    throw std::runtime_error("cubin: not an ELF file");
  }
  if (read_at<std::uint8_t>(cubin, 4, "EI_CLASS") != 2 || read_at<std::uint8_t>(cubin, 5, "EI_DATA") != 1) {
    throw std::runtime_error("cubin: not a 64-bit little-endian ELF file");
  }
  const auto section_headers = read_at<std::uint64_t>(cubin, 0x28, "e_shoff");
  const auto entry_size = read_at<std::uint16_t>(cubin, 0x3a, "e_shentsize");
  const auto count = read_at<std::uint16_t>(cubin, 0x3c, "e_shnum");
  const auto names_index = read_at<std::uint16_t>(cubin, 0x3e, "e_shstrndx");
  if (entry_size < 64 || names_index >= count) throw std::runtime_error("cubin: bad section header table");

  struct Section {
    std::uint32_t name;
    std::uint64_t offset, size;
  };
  std::vector<Section> sections;
  for (std::uint16_t i = 0; i < count; ++i) {
    const std::size_t at = section_headers + static_cast<std::size_t>(i) * entry_size;
    sections.push_back(Section{read_at<std::uint32_t>(cubin, at, "sh_name"), read_at<std::uint64_t>(cubin, at + 0x18, "sh_offset"),
                               read_at<std::uint64_t>(cubin, at + 0x20, "sh_size")});
  }
  const Section& names = sections[names_index];
  auto section_name = [&](const Section& s) {
    std::string name;
    for (std::size_t at = names.offset + s.name; at < names.offset + names.size; ++at) {
      const char c = static_cast<char>(read_at<std::uint8_t>(cubin, at, "a section name"));
      if (c == '\0') break;
      name += c;
    }
    return name;
  };

  std::map<std::string, RecordedKernel> kernels;
  const std::string prefix = ".nv.info.";
  for (const Section& s : sections) {
    const std::string name = section_name(s);
    if (name.rfind(prefix, 0) != 0) continue;
    if (s.offset > cubin.size() || s.size > cubin.size() - s.offset) {
      throw std::runtime_error("cubin: section " + name + " lies past the end of the file");
    }
    RecordedKernel& kernel = kernels[name.substr(prefix.size())];
    read_records(cubin.subspan(s.offset, s.size), kernel);
    std::sort(kernel.params.begin(), kernel.params.end(),
              [](const RecordedParam& a, const RecordedParam& b) { return a.ordinal < b.ordinal; });
  }
  return kernels;
}

const std::vector<std::byte>& echo_cubin() {
  namespace lt = launchlab::testing;
  return lt::made_once("echo_kernels.cubin", [] {
    return lt::bytes_of(lt::nvcc_once(lt::lab_material("04_param_buffer/kernels/echo_kernels.cuh"),
                                      {"-x", "cu", "-cubin", "-arch=sm_90"}, "echo_kernels.cubin")
                            .content);
  });
}

namespace {

const RecordedKernel& recorded(const std::string& kernel) {
  static const std::map<std::string, RecordedKernel> all = read_recorded_params(echo_cubin());
  auto it = all.find(kernel);
  if (it == all.end()) throw std::runtime_error("the cubin has no .nv.info." + kernel + " section");
  return it->second;
}

}  // namespace

std::vector<param_buffer::Slot> nvcc_slots(const std::string& kernel) {
  const RecordedKernel& truth = recorded(kernel);
  const std::size_t described = echo_case(kernel).params.size();
  if (truth.params.size() != described) {
    throw std::runtime_error(kernel + ": the cubin records " + std::to_string(truth.params.size()) +
                             " parameters, the test describes " + std::to_string(described) +
                             " (a problem of the test, not of the code under test)");
  }
  std::vector<param_buffer::Slot> slots;
  for (const RecordedParam& p : truth.params) slots.push_back(param_buffer::Slot{p.offset, p.size});
  return slots;
}

std::size_t nvcc_param_size(const std::string& kernel) {
  const RecordedKernel& truth = recorded(kernel);
  if (!truth.cbank_param_size) throw std::runtime_error(kernel + ": no EIATTR_CBANK_PARAM_SIZE in the cubin");
  return *truth.cbank_param_size;
}

std::vector<std::byte> nvcc_buffer(const std::string& kernel, const std::vector<std::vector<std::byte>>& values) {
  const std::vector<param_buffer::Slot> slots = nvcc_slots(kernel);
  std::vector<std::byte> buffer(nvcc_param_size(kernel), std::byte{0});
  for (std::size_t i = 0; i < values.size() && i < slots.size(); ++i) {
    if (slots[i].offset + values[i].size() > buffer.size()) throw std::runtime_error(kernel + ": a value past the end");
    std::memcpy(buffer.data() + slots[i].offset, values[i].data(), values[i].size());
  }
  return buffer;
}

CompileResult compile_cubin(const std::string& name) {
  const fs::path source = launchlab::testing::lab_material("04_param_buffer/kernels/" + name);
  const fs::path out = launchlab::testing::work_dir() / (fs::path(name).stem().string() + ".cubin");
  auto result = launchlab::testing::run_command(
      {launchlab::testing::nvcc().string(), "-cubin", "-arch=sm_90", source.string(), "-o", out.string()});
  return CompileResult{result.exit_code, result.output};
}

std::string nvcc_verdict(const std::string& name, const std::string& refusal) {
  const CompileResult result = compile_cubin(name);
  if (result.exit_code == 0) return "throws nothing";
  if (result.output.find(refusal) != std::string::npos) return "throws std::length_error";
  throw std::runtime_error("nvcc -cubin -arch=sm_90 " + name + " failed without saying \"" + refusal + "\":\n" +
                           result.output);
}

}  // namespace launchlab::param_buffer_tests
