#include "live.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <regex>
#include <stdexcept>

#include "launchlab/testing.h"

namespace launchlab::pipeline {
using nlohmann::json;
using launchlab::testing::encode;

json record_value(StageKind kind) { return std::string(to_string(kind)); }
json record_value(FileKind kind) { return std::string(to_string(kind)); }
json record_value(const EnvironmentVariable& v) { return {{"name", v.name}, {"value", v.value}}; }
json record_value(const StubArgument& a) {
  return {{"variable", a.variable}, {"offset", a.offset}, {"by_reference", a.by_reference}};
}
json record_value(const StubKernel& k) {
  return {{"stub_name", k.stub_name}, {"mangled_name", k.mangled_name}, {"arguments", encode(k.arguments)}};
}
json record_value(const RegisteredEntry& e) { return {{"symbol", e.symbol}, {"max_threads", e.max_threads}}; }
json record_value(const PtxParam& p) {
  return {{"name", p.name}, {"type", p.type}, {"size", p.size}, {"align", p.align}, {"array_length", encode(p.array_length)}};
}
json record_value(const PtxRegister& r) {
  return {{"type", r.type}, {"prefix", r.prefix}, {"count", r.count}, {"parameterized", r.parameterized}};
}

}  // namespace launchlab::pipeline

namespace launchlab::compile_pipeline_tests {
namespace fs = std::filesystem;
using launchlab::testing::lines_of;
using launchlab::testing::nvcc;
using launchlab::testing::output_of;
using pipeline::FileKind;
using pipeline::StageKind;

namespace {

struct Recipe {
  const char* name;
  const char* source;
  std::vector<std::string> arch_options;
};

const std::vector<Recipe>& recipes() {
  static const std::vector<Recipe> all = {
      {"vadd_sm80", "vadd.cu", {"-arch=sm_80"}},
      {"vadd_sm90", "vadd.cu", {"-arch=sm_90"}},
      {"vadd_gencode", "vadd.cu",
       {"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=[sm_90,compute_90]"}},
      {"params_gencode", "params.cu",
       {"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=[sm_90,compute_90]"}},
      {"multi_sm90", "multi.cu", {"-arch=sm_90"}},
  };
  return all;
}

LiveBuild build(const Recipe& recipe) {
  LiveBuild b;
  b.name = recipe.name;
  b.source = recipe.source;
  b.stem = b.source.substr(0, b.source.find('.'));
  b.keep_dir = "k";
  b.object = b.stem + ".o";
  b.arch_options = recipe.arch_options;
  b.dir = launchlab::testing::work_dir() / b.name;
  fs::create_directories(b.dir / b.keep_dir);  // nvcc does not create the keep folder
  fs::copy_file(launchlab::testing::lab_material("01_compile_pipeline/kernels/" + b.source), b.dir / b.source,
                fs::copy_options::overwrite_existing);

  std::vector<std::string> argv = {nvcc().string(), "-Wno-deprecated-gpu-targets", "--keep", "--keep-dir", b.keep_dir};
  argv.insert(argv.end(), b.arch_options.begin(), b.arch_options.end());
  argv.insert(argv.end(), {"-c", b.source, "-o", b.object});
  std::vector<std::string> dry = argv;
  dry.insert(dry.begin() + 1, "--dryrun");
  b.dryrun = output_of(dry, b.dir);
  output_of(argv, b.dir);
  for (const auto& entry : fs::directory_iterator(b.dir / b.keep_dir)) b.kept.push_back(entry.path().filename().string());
  std::sort(b.kept.begin(), b.kept.end());
  return b;
}

const LiveBuild& built_once(const Recipe& recipe) {
  return launchlab::testing::made_once(recipe.name, [&] { return build(recipe); });
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string spaced(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

}  // namespace

std::string LiveBuild::command() const {
  return "nvcc --keep --keep-dir " + keep_dir + " " + spaced(arch_options) + " -c " + source + " -o " + object;
}

std::string LiveBuild::dryrun_command() const {
  return "nvcc --dryrun --keep --keep-dir " + keep_dir + " " + spaced(arch_options) + " -c " + source + " -o " + object;
}

std::string LiveBuild::read_kept(std::string_view suffix) const {
  std::vector<std::string> matches;
  for (const auto& file : kept) {
    if (ends_with(file, suffix)) matches.push_back(file);
  }
  if (matches.size() != 1) {
    throw std::runtime_error(this->name + ": expected one kept file ending in " + std::string(suffix) + ", found " +
                             join(matches));
  }
  return launchlab::testing::read_file(dir / keep_dir / matches.front());
}

const LiveBuild& live(std::string_view name) {
  // Each build is two serial nvcc runs: the first call makes them all side by side.
  static std::once_flag every_build;
  std::call_once(every_build, [] {
    std::vector<std::function<void()>> builds;
    for (const auto& recipe : recipes()) {
      builds.push_back([&recipe] { (void)built_once(recipe); });
    }
    launchlab::testing::make_side_by_side(builds);
  });
  for (const auto& recipe : recipes()) {
    if (name == recipe.name) return built_once(recipe);
  }
  throw std::invalid_argument("no live build named " + std::string(name));
}

std::vector<std::string> live_names() {
  std::vector<std::string> names;
  for (const auto& recipe : recipes()) names.push_back(recipe.name);
  return names;
}

const std::string& dryrun_without_keep() {
  static const std::string text = [] {
    fs::path dir = launchlab::testing::work_dir() / "nokeep";
    fs::create_directories(dir);
    fs::copy_file(launchlab::testing::lab_material("01_compile_pipeline/kernels/vadd.cu"), dir / "vadd.cu");
    return output_of({nvcc().string(), "--dryrun", "-arch=sm_90", "-c", "vadd.cu", "-o", "vadd.o"}, dir);
  }();
  return text;
}

std::string fixture(std::string_view name) {
  return launchlab::testing::read_file(launchlab::testing::lab_material("01_compile_pipeline/fixtures/" + std::string(name)));
}

std::string join(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

#ifndef LAUNCHLAB_EXERCISE
namespace {

const std::regex& assignment() {
  static const std::regex re(R"(^#\$ [A-Za-z_][A-Za-z0-9_]*=)");
  return re;
}

}  // namespace

std::vector<TruthStage> truth_stages(std::string_view dryrun) {
  std::vector<TruthStage> stages;
  for (const auto& line : lines_of(dryrun)) {
    if (line.rfind("#$ ", 0) != 0 || std::regex_search(line, assignment())) continue;
    TruthStage stage;
    stage.text = line.substr(3);
    std::string first = stage.text.substr(0, stage.text.find(' '));
    first.erase(std::remove(first.begin(), first.end(), '"'), first.end());
    stage.tool = first.substr(first.find_last_of('/') + 1);
    const std::string padded = " " + stage.text + " ";
    if (stage.tool == "cudafe++") stage.kind = StageKind::Cudafe;
    else if (stage.tool == "cicc") stage.kind = StageKind::Cicc;
    else if (stage.tool == "ptxas") stage.kind = StageKind::Ptxas;
    else if (stage.tool == "fatbinary") stage.kind = StageKind::Fatbinary;
    else if (stage.tool == "nvlink") stage.kind = StageKind::Nvlink;
    else if (stage.tool == "rm") stage.kind = StageKind::Cleanup;
    else if (padded.find(" -E ") != std::string::npos)
      stage.kind = padded.find(" -D__CUDA_ARCH__=") != std::string::npos ? StageKind::DevicePreprocess
                                                                         : StageKind::HostPreprocess;
    else if (padded.find(" -c ") != std::string::npos) stage.kind = StageKind::HostCompile;
    else stage.kind = StageKind::HostLink;
    stages.push_back(stage);
  }
  return stages;
}

std::vector<pipeline::EnvironmentVariable> truth_environment(std::string_view dryrun) {
  std::vector<pipeline::EnvironmentVariable> variables;
  for (const auto& line : lines_of(dryrun)) {
    if (!std::regex_search(line, assignment())) continue;
    const std::size_t equals = line.find('=');
    variables.push_back({line.substr(3, equals - 3), line.substr(equals + 1)});
  }
  return variables;
}

std::optional<TruthProducer> truth_producer(std::string_view dryrun, const std::string& path) {
  for (const auto& stage : truth_stages(dryrun)) {
    if (stage.kind == StageKind::Cleanup) continue;
    const std::string& t = stage.text;
    for (std::size_t pos = t.find(path); pos != std::string::npos; pos = t.find(path, pos + 1)) {
      char before = pos == 0 ? ' ' : t[pos - 1];
      std::size_t after_pos = pos + path.size();
      char after = after_pos < t.size() ? t[after_pos] : ' ';
      if ((before != '"' && before != '=' && before != ' ') || (after != '"' && after != ' ')) continue;
      // The option before the path: "-o \"k/x\"" gives -o, "--create=\"k/x\"" gives --create=.
      std::size_t end = pos;
      if (before == '"') --end;
      std::size_t option_end = end;
      if (end > 0 && t[end - 1] == '=') {
        std::size_t start = t.rfind(' ', end - 1);
        start = start == std::string::npos ? 0 : start + 1;
        std::string option = t.substr(start, end - start);
        option.erase(std::remove(option.begin(), option.end(), '"'), option.end());
        return TruthProducer{stage.kind, option};
      }
      while (option_end > 0 && t[option_end - 1] == ' ') --option_end;
      std::size_t start = t.rfind(' ', option_end - 1);
      start = start == std::string::npos ? 0 : start + 1;
      return TruthProducer{stage.kind, t.substr(start, option_end - start)};
    }
  }
  return std::nullopt;
}

FileKind truth_file_kind(const TruthProducer& p) {
  switch (p.kind) {
    case StageKind::HostPreprocess: return FileKind::HostPreprocessed;
    case StageKind::DevicePreprocess: return FileKind::DevicePreprocessed;
    case StageKind::Cudafe:
      if (p.option == "--gen_c_file_name") return FileKind::HostSource;
      if (p.option == "--module_id_file_name") return FileKind::ModuleId;
      break;
    case StageKind::Cicc:
      if (p.option == "-o") return FileKind::Ptx;
      if (p.option == "--stub_file_name") return FileKind::Stub;
      if (p.option == "--gen_c_file_name") return FileKind::CudafeC;
      if (p.option == "--gen_device_file_name") return FileKind::DeviceGpu;
      break;
    case StageKind::Ptxas: return FileKind::Cubin;
    case StageKind::Fatbinary:
      if (p.option == "--create=") return FileKind::Fatbin;
      if (p.option == "--embedded-fatbin=") return FileKind::FatbinC;
      break;
    case StageKind::HostCompile: return FileKind::Object;
    case StageKind::Nvlink:
      if (p.option == "-o") return FileKind::Cubin;
      if (p.option == "--register-link-binaries=") return FileKind::LinkRegistration;
      break;
    default: break;
  }
  return FileKind::Unknown;
}

std::vector<TruthEntry> truth_ptx(std::string_view ptx) {
  static const std::regex entry_re(R"(^(\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)\s*\((\))?)");
  static const std::regex param_re(R"(^\s*\.param\s+(?:\.align\s+(\d+)\s+)?(\.[a-z0-9]+)\s+([\w$]+)(?:\[(\d+)\])?,?\s*$)");
  static const std::regex reg_re(R"(^\t\.reg\s+(\.[a-z0-9]+)\s+(%\w+)<(\d+)>;\s*$)");
  static const std::map<std::string, std::size_t> sizes = {
      {".u8", 1},  {".s8", 1},  {".b8", 1},  {".u16", 2}, {".s16", 2}, {".b16", 2}, {".f16", 2},
      {".u32", 4}, {".s32", 4}, {".b32", 4}, {".f32", 4}, {".u64", 8}, {".s64", 8}, {".b64", 8},
      {".f64", 8},
  };
  std::vector<TruthEntry> entries;
  enum { Outside, Params, BeforeBody, Body } state = Outside;
  for (const auto& line : lines_of(ptx)) {
    std::smatch m;
    if (state == Outside) {
      if (std::regex_search(line, m, entry_re)) {
        entries.push_back({m[2].str(), m[1].matched && m[1].str().rfind(".visible", 0) == 0, {}, {}});
        state = m[3].matched ? BeforeBody : Params;
      }
    } else if (state == Params) {
      if (line == ")") {
        state = BeforeBody;
      } else if (std::regex_match(line, m, param_re)) {
        TruthParam p;
        p.type = m[2].str();
        p.name = m[3].str();
        std::size_t element = sizes.at(p.type);
        p.size = m[4].matched ? element * std::stoul(m[4].str()) : element;
        p.align = m[1].matched ? std::stoul(m[1].str()) : element;
        if (m[4].matched) p.array_length = std::stoul(m[4].str());
        entries.back().params.push_back(p);
      } else {
        throw std::runtime_error("truth_ptx: unexpected parameter line: " + line);
      }
    } else if (state == BeforeBody) {
      if (line == "{") state = Body;
    } else if (state == Body) {
      // cicc closes a function with "}" alone at the start of a line; nested
      // blocks are indented.
      if (line == "}") state = Outside;
      else if (std::regex_match(line, m, reg_re))
        entries.back().top_level_regs.push_back({m[1].str(), m[2].str(), std::stoul(m[3].str())});
    }
  }
  return entries;
}

std::vector<std::size_t> truth_offsets(const std::vector<TruthParam>& params) {
  std::vector<std::size_t> offsets;
  std::size_t end = 0;
  for (const auto& p : params) {
    std::size_t offset = (end + p.align - 1) / p.align * p.align;
    offsets.push_back(offset);
    end = offset + p.size;
  }
  return offsets;
}

std::string truth_stub_name(std::string_view stub_text, const std::string& entry_name) {
  if (entry_name.rfind("_Z", 0) == 0) return entry_name;
  const std::regex stub("__device_stub_(_Z" + std::to_string(entry_name.size()) + entry_name + R"(\w*)\s*\()");
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_search(stub_text.begin(), stub_text.end(), m, stub)) return m[1].str();
  return "(no stub in the file for the extern \"C\" kernel " + entry_name + ")";
}
#endif  // LAUNCHLAB_EXERCISE

}  // namespace launchlab::compile_pipeline_tests
