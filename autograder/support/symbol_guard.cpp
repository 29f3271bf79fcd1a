// launchlab_symbol_guard: refuses a learner's objects that define a name the
// course's own code defines, before the exercise program is linked
// (cmake/LaunchlabLab.cmake runs it as the program's pre-link step, in the
// graded tree and in `launchlab test` alike).
//
//   launchlab_symbol_guard --learner FILE... [--support FILE]... [--googletest FILE]...
//                          [--tests FILE]... [--tests-list FILE]...
//
// FILE is an object, a static archive or a shared library; a --tests-list
// names test objects one a line. Were the learner's definition of such a
// name linked, every test would call the learner's code in its place: a
// recorder that writes whatever the judge wants to read. The program links
// the course's parts first (cmake/LaunchlabLab.cmake), so that an inline or
// template definition both sides instantiate resolves to the course's copy,
// and whole, so that a second strong definition fails the link. What is left
// for this check, and refused:
//
// - a strong definition by the learner of any name the course defines: the
//   course's weak copy would lose to it, and a strong one would clash;
// - any definition by the learner of a name a shared library of the course
//   defines strongly: the program's own definition would take its place;
// - any use by the learner of a name the lab's tests or the test support
//   define strongly: a lab's tests may measure or compute with course code
//   of their own (lab 10's reference launches, a lab's expected layouts),
//   which the learner's code could otherwise call and hand back as its own
//   answer. (GoogleTest's names stay usable: what a learner's code does to
//   GoogleTest changes no verdict, since the judge reads only records.)
//
// A weak definition (inline, template, COMDAT) of a name the course defines
// in its static parts is allowed: the course's copy comes first and is the
// one every caller gets, and the learner's code legitimately instantiates
// the same templates (std::vector<int>, GoogleTest's inline functions).
//
// Exit status: 0 when nothing is refused, 1 with one line a refused name
// (each naming the learner's file, the name and whose it is), 2 when a file
// cannot be read as one of the kinds above.
#include <cxxabi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// A global name an object defines, and whether a linker would let another
/// definition of it stand beside this one (weak, or unique as GCC's
/// inline-function statics are).
struct Definition {
  std::string name;
  bool strong = false;
};

/// One object's definitions, and the global names it uses without defining
/// them: a plain object, an archive's member or a shared library.
struct DefiningFile {
  std::string shown_name;  // what the learner knows the file as (grid.cpp for grid.cpp.o)
  bool shared_library = false;
  std::vector<Definition> definitions;
  std::vector<std::string> uses;
};

class BadFile : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bounds-checked little-endian reads of a file's bytes: a malformed object
/// is refused with a message, never read past its end.
class Bytes {
 public:
  Bytes(std::string_view data, std::string what) : data_(data), what_(std::move(what)) {}

  template <class T>
  T at(std::uint64_t offset) const {
    if (offset > data_.size() || data_.size() - offset < sizeof(T)) fail("a field lies past the end");
    T value;
    std::memcpy(&value, data_.data() + offset, sizeof(T));
    return value;
  }
  std::string_view range(std::uint64_t offset, std::uint64_t size) const {
    if (offset > data_.size() || data_.size() - offset < size) fail("a section lies past the end");
    return data_.substr(offset, size);
  }
  [[noreturn]] void fail(const std::string& why) const { throw BadFile(what_ + ": " + why); }
  std::size_t size() const { return data_.size(); }

 private:
  std::string_view data_;
  std::string what_;
};

constexpr std::uint32_t kSymbolTable = 2;         // SHT_SYMTAB
constexpr std::uint32_t kDynamicSymbolTable = 11;  // SHT_DYNSYM
constexpr std::uint16_t kSharedObject = 3;        // ET_DYN
constexpr std::uint8_t kBindGlobal = 1, kBindWeak = 2, kBindUnique = 10;
constexpr std::uint16_t kUndefinedSection = 0;

/// The global definitions of one ELF64 little-endian file: its symbol table
/// (relocatable objects) or its dynamic one (shared libraries, where only
/// what it exports can meet the program's names).
DefiningFile read_elf(std::string_view data, const std::string& shown_name, const std::string& where) {
  const Bytes elf(data, where);
  if (data.size() < 64 || data.substr(0, 4) != "\x7f" "ELF") elf.fail("not an ELF object");
  if (data[4] != 2 || data[5] != 1) elf.fail("not a 64-bit little-endian ELF file, the only kind this check reads");
  DefiningFile file{shown_name, elf.at<std::uint16_t>(16) == kSharedObject, {}};
  const auto section_offset = elf.at<std::uint64_t>(0x28);
  const auto section_size = elf.at<std::uint16_t>(0x3A);
  std::uint64_t sections = elf.at<std::uint16_t>(0x3C);
  if (section_offset == 0) return file;
  if (section_size < 64) elf.fail("its section headers are too small");
  // Past 0xff00 sections, the count is kept in the first header's size.
  if (sections == 0) sections = elf.at<std::uint64_t>(section_offset + 32);
  const std::uint32_t wanted = file.shared_library ? kDynamicSymbolTable : kSymbolTable;
  for (std::uint64_t index = 0; index < sections; ++index) {
    const std::uint64_t header = section_offset + index * section_size;
    if (elf.at<std::uint32_t>(header + 4) != wanted) continue;
    const auto symbols_at = elf.at<std::uint64_t>(header + 24);
    const auto symbols_size = elf.at<std::uint64_t>(header + 32);
    const auto strings_index = elf.at<std::uint32_t>(header + 40);
    const auto entry_size = elf.at<std::uint64_t>(header + 56);
    if (entry_size < 24 || strings_index >= sections) elf.fail("its symbol table is malformed");
    const std::uint64_t strings_header = section_offset + strings_index * section_size;
    const std::string_view strings =
        elf.range(elf.at<std::uint64_t>(strings_header + 24), elf.at<std::uint64_t>(strings_header + 32));
    const std::string_view symbols = elf.range(symbols_at, symbols_size);
    const Bytes table(symbols, where);
    for (std::uint64_t at = 0; at + entry_size <= symbols.size(); at += entry_size) {
      const auto binding = static_cast<std::uint8_t>(table.at<std::uint8_t>(at + 4) >> 4);
      if (binding != kBindGlobal && binding != kBindWeak && binding != kBindUnique) continue;
      const auto name_at = table.at<std::uint32_t>(at);
      if (name_at >= strings.size()) elf.fail("a symbol's name lies past its string table");
      const std::string_view name = strings.substr(name_at, strings.substr(name_at).find('\0'));
      if (name.empty()) continue;
      if (table.at<std::uint16_t>(at + 6) == kUndefinedSection) {
        file.uses.emplace_back(name);
      } else {
        file.definitions.push_back({std::string(name), binding == kBindGlobal});
      }
    }
  }
  return file;
}

/// An archive member's name: the short form ("grid.cpp.o/") or an offset
/// into the long names ("/42").
std::string member_name(const Bytes& archive, std::string raw, std::string_view long_names) {
  while (!raw.empty() && raw.back() == ' ') raw.pop_back();
  if (raw.size() > 1 && raw.front() == '/' && raw[1] >= '0' && raw[1] <= '9') {
    const std::size_t at = std::strtoull(raw.c_str() + 1, nullptr, 10);
    if (at >= long_names.size()) archive.fail("a member's name lies past the long names");
    raw = std::string(long_names.substr(at, long_names.substr(at).find('\n')));
  }
  if (!raw.empty() && raw.back() == '/') raw.pop_back();
  return raw;
}

/// What the learner knows a compiled file as: CMake names grid.cpp's object grid.cpp.o.
std::string source_name(std::string object) {
  if (object.ends_with(".o")) object.resize(object.size() - 2);
  return object;
}

/// Every ELF member of a System V (GNU) archive.
std::vector<DefiningFile> read_archive(std::string_view data, const std::string& path) {
  const Bytes archive(data, path);
  std::vector<DefiningFile> members;
  std::string_view long_names;
  std::uint64_t at = 8;
  while (at + 60 <= data.size()) {
    const std::string_view header = archive.range(at, 60);
    const std::string raw_name(header.substr(0, 16));
    const std::string size_text(header.substr(48, 10));
    char* end = nullptr;
    const std::uint64_t size = std::strtoull(size_text.c_str(), &end, 10);
    if (end == size_text.c_str()) archive.fail("a member's size is not a number");
    const std::string_view body = archive.range(at + 60, size);
    at += 60 + size + (size & 1);
    if (raw_name.starts_with("// ")) {
      long_names = body;
    } else if (!raw_name.starts_with("/ ") && !raw_name.starts_with("/SYM64/")) {
      const std::string name = member_name(archive, raw_name, long_names);
      if (body.substr(0, 4) == "\x7f" "ELF") members.push_back(read_elf(body, source_name(name), path + "(" + name + ")"));
    }
  }
  return members;
}

std::vector<DefiningFile> read_defining_files(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadFile(path.string() + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string data = text.str();
  if (data.starts_with("!<arch>\n")) return read_archive(data, path.string());
  if (data.starts_with("!<thin>\n")) throw BadFile(path.string() + ": a thin archive, which this check does not read");
  return {read_elf(data, source_name(path.filename().string()), path.string())};
}

std::string demangled(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> readable(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                        &std::free);
  return status == 0 && readable ? readable.get() : name;
}

/// How the course defines a name: strongly somewhere, whether a shared
/// library of the course defines it strongly, and whether the learner's
/// code may use it (GoogleTest's, not the tests' or the support's); whose it
/// is, for the message.
struct CourseDefinition {
  bool strong = false;
  bool strong_in_shared_library = false;
  bool learner_may_use = true;
  std::string owner;
};

void add_course_file(std::map<std::string, CourseDefinition>& course, const fs::path& path, const std::string& owner,
                     bool learner_may_use) {
  for (const DefiningFile& file : read_defining_files(path)) {
    for (const Definition& definition : file.definitions) {
      CourseDefinition& known =
          course.try_emplace(definition.name, CourseDefinition{false, false, true, owner}).first->second;
      known.strong = known.strong || definition.strong;
      known.strong_in_shared_library = known.strong_in_shared_library || (definition.strong && file.shared_library);
      if (definition.strong && !learner_may_use) {
        known.learner_may_use = false;
        known.owner = owner;
      }
    }
  }
}

int usage() {
  std::cerr << "usage: launchlab_symbol_guard --learner FILE... [--support FILE]... [--googletest FILE]...\n"
               "                              [--tests FILE]... [--tests-list FILE]...\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, std::string> owners = {{"--support", "the course's test support"},
                                                     {"--googletest", "GoogleTest"},
                                                     {"--tests", "the lab's tests"},
                                                     {"--tests-list", "the lab's tests"}};
  std::vector<fs::path> learner_files;
  std::map<std::string, CourseDefinition> course;
  try {
    for (int index = 1; index < argc; ++index) {
      const std::string option = argv[index];
      if (index + 1 >= argc) return usage();
      const fs::path file = argv[++index];
      if (option == "--learner") {
        learner_files.push_back(file);
      } else if (option == "--tests-list") {
        std::ifstream list(file);
        if (!list) throw BadFile(file.string() + ": cannot be read");
        for (std::string line; std::getline(list, line);) {
          if (!line.empty()) add_course_file(course, line, owners.at(option), false);
        }
      } else if (owners.count(option)) {
        add_course_file(course, file, owners.at(option), option == "--googletest");
      } else {
        return usage();
      }
    }
    if (learner_files.empty()) return usage();

    std::set<std::string> refused;  // "file: name", each said once (a constructor has two symbols)
    std::vector<std::string> messages;
    for (const fs::path& path : learner_files) {
      for (const DefiningFile& file : read_defining_files(path)) {
        for (const Definition& definition : file.definitions) {
          const auto known = course.find(definition.name);
          if (known == course.end()) continue;
          if (!definition.strong && !known->second.strong_in_shared_library) continue;
          const std::string readable = demangled(definition.name);
          if (!refused.insert(file.shown_name + ": " + readable).second) continue;
          messages.push_back("error: " + file.shown_name + " defines " + readable + ", which belongs to " +
                             known->second.owner + ": rename it");
        }
        for (const std::string& name : file.uses) {
          const auto known = course.find(name);
          if (known == course.end() || known->second.learner_may_use) continue;
          const std::string readable = demangled(name);
          if (!refused.insert(file.shown_name + ": " + readable).second) continue;
          messages.push_back("error: " + file.shown_name + " uses " + readable + ", which belongs to " +
                             known->second.owner + ": the lab's code must compute its answers itself");
        }
      }
    }
    constexpr std::size_t kShown = 20;
    for (std::size_t index = 0; index < messages.size() && index < kShown; ++index) std::cerr << messages[index] << "\n";
    if (messages.size() > kShown) std::cerr << "error: and " << messages.size() - kShown << " more such definitions\n";
    if (!messages.empty()) {
      std::cerr << "error: the lab's files may not define what the course's tests, their support or GoogleTest "
                   "define, so the tests always run the course's own code, nor use what the tests or their support "
                   "define, so that every answer is the lab's own\n";
      return 1;
    }
    return 0;
  } catch (const BadFile& problem) {
    std::cerr << "error: the course's symbol check cannot read " << problem.what() << "\n";
    return 2;
  }
}
