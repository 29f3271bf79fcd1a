/// @file
/// Reading what nvcc does to a .cu file: the commands it runs (`nvcc
/// --dryrun`), the files those commands leave behind (`nvcc --keep`), the host
/// stub that packs a kernel's parameters (`*.cudafe1.stub.c`) and the PTX that
/// cicc writes (`*.ptx`).
///
/// Every function here takes text (or a file name) and returns plain values;
/// none of them runs nvcc. Malformed text makes them throw std::runtime_error
/// with a message that names the line ("line 12: ..."; which line, each
/// function says), never crash.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::pipeline {

// ---------------------------------------------------------------------------
// Part A: nvcc --dryrun
// ---------------------------------------------------------------------------

/// What a step of the nvcc pipeline does, told apart by its program and, for
/// the host compiler (gcc, g++, clang, ...), by its options.
enum class StageKind {
  HostPreprocess,    ///< host compiler `-E` without `-D__CUDA_ARCH__=`: x.cu to x.cpp4.ii, the input of cudafe++
  Cudafe,            ///< cudafe++: x.cpp4.ii to the host-side x.cudafe1.cpp (and x.module_id)
  DevicePreprocess,  ///< host compiler `-E -D__CUDA_ARCH__=NNN`: x.cu to x.cpp1.ii, once per virtual architecture
  Cicc,              ///< cicc (NVVM): x.cpp1.ii to x.ptx, plus the stub, x.cudafe1.c and x.cudafe1.gpu
  Ptxas,             ///< ptxas: x.ptx to SASS in an ELF x.cubin, once per real architecture
  Fatbinary,         ///< fatbinary: cubins and PTX packed into x.fatbin and the C array x.fatbin.c
  HostCompile,       ///< host compiler `-c`: x.cudafe1.cpp (with the stub and fatbin.c included) to x.o
  Nvlink,            ///< nvlink: the device link of the objects' device code (x_dlink.*)
  HostLink,          ///< host compiler without `-E` or `-c`: objects to the executable
  Cleanup,           ///< `rm`: a temporary file removed
  Unknown,           ///< none of the above (a file name that matches no rule)
};

/// The name of a StageKind as written above ("HostPreprocess", "Cicc", ...),
/// for messages.
inline std::string_view to_string(StageKind kind) {
  switch (kind) {
    case StageKind::HostPreprocess: return "HostPreprocess";
    case StageKind::Cudafe: return "Cudafe";
    case StageKind::DevicePreprocess: return "DevicePreprocess";
    case StageKind::Cicc: return "Cicc";
    case StageKind::Ptxas: return "Ptxas";
    case StageKind::Fatbinary: return "Fatbinary";
    case StageKind::HostCompile: return "HostCompile";
    case StageKind::Nvlink: return "Nvlink";
    case StageKind::HostLink: return "HostLink";
    case StageKind::Cleanup: return "Cleanup";
    case StageKind::Unknown: return "Unknown";
  }
  return "Unknown";
}

/// One command of `nvcc --dryrun`: a line `#$ tool arguments...` that is not
/// a variable assignment.
struct Stage {
  StageKind kind = StageKind::Unknown;  ///< what the command does
  /// The program's base name, without folders, quotes or variables:
  /// `"$CICC_PATH/cicc"` gives "cicc", `/usr/bin/g++-13` gives "g++-13".
  std::string tool;
  /// Every argument after the program, with quotes and backslash escapes
  /// removed as a POSIX shell would, in order.
  std::vector<std::string> arguments;
  /// The files the command reads, in command-line order, spelled as in the
  /// command: positional file arguments (the host compiler's sources or
  /// objects, cudafe++'s and cicc's .ii, ptxas's .ptx, nvlink's objects),
  /// fatbinary's `--image3=...,file=F` images, cicc's `--module_id_file_name`
  /// and the files `rm` removes. A word that is an option's value is never
  /// an input (`-include cuda_runtime.h`, cudafe++'s `--orig_src_file_name
  /// "vadd.cu"`). The options that take the next word as their value in
  /// nvcc 13.0's commands are: for the host compiler, those gcc documents
  /// so (`-o`, `-x`, `-include`, `-isystem`, and `-I`, `-D`, `-L`, `-l`
  /// when written apart from their value); for cudafe++ and cicc, `-arch`,
  /// `-o` and every option whose name ends in `_name`; for ptxas, `-o` and
  /// `-arch`; for nvlink, `-o`, `--host-ccbin`, `-L` and `-l`. fatbinary and
  /// nvlink's `--name=value` options are one word.
  std::vector<std::string> inputs;
  /// The files the command writes, in command-line order: `-o F`; cudafe++'s
  /// `--gen_c_file_name` (and `--module_id_file_name` when
  /// `--gen_module_id_file` is given); cicc's `--gen_c_file_name`,
  /// `--stub_file_name` and `--gen_device_file_name`; fatbinary's `--create=`
  /// and `--embedded-fatbin=`; nvlink's `--register-link-binaries=`.
  /// cudafe++'s own `--stub_file_name` is not an output: it is the name that
  /// x.cudafe1.cpp will `#include`, and cicc writes that file.
  std::vector<std::string> outputs;
  /// The architecture the command compiles for: "compute_90" for a device
  /// preprocessing (from `-D__CUDA_ARCH__=900`) and for cicc (`-arch
  /// compute_90`), "sm_90" for ptxas (`-arch=sm_90`) and nvlink
  /// (`--arch=sm_90`); empty for every other stage.
  std::optional<std::string> arch;
  std::size_t line = 0;  ///< the line of the dryrun text it came from, counting from 1
};

/// A variable nvcc sets before it runs the stages, `#$ NAME=value`.
struct EnvironmentVariable {
  std::string name;   ///< the text before the first `=`, e.g. "CICC_PATH"
  std::string value;  ///< the rest of the line after that `=`, exactly as written (quotes kept)
};

/// Everything `nvcc --dryrun` printed, in order.
struct DryRun {
  std::vector<EnvironmentVariable> environment;  ///< the `#$ NAME=value` lines
  std::vector<Stage> stages;                     ///< the commands, in the order nvcc would run them
};

/// Splits one command line into its words the way a POSIX shell would,
/// without expanding anything: blanks separate words; inside double quotes a
/// backslash escapes `"`, `\`, `$` and a backquote; outside quotes a
/// backslash escapes any character; single quotes take everything literally.
/// Quotes join with the text around them: `-DX="\"a b\""` is one word,
/// `-DX="a b"`. A pair of quotes with nothing between them (`""` or `''`)
/// is a word of its own, the empty one: `a "" b` is three words.
///
/// @param command one line of shell text, e.g. `ptxas -arch=sm_90 "a.ptx" -o "a.cubin"`
/// @return its words, e.g. {"ptxas", "-arch=sm_90", "a.ptx", "-o", "a.cubin"}
/// @throws std::runtime_error on an unterminated quote or a trailing backslash
std::vector<std::string> split_arguments(std::string_view command);

/// Parses the output of `nvcc --dryrun ...`.
///
/// Only lines that begin with `#$ ` count; anything else (a warning, an empty
/// line, a `# comment`) is skipped. Lines end at `\n`; a `\r` before it
/// (a file with CRLF line ends) is not part of the line, and the last line
/// needs no line end. Lines are counted from 1, every line of the text
/// included. A line whose text after `#$ ` starts with a name (letters,
/// digits and `_`) and `=` (`_NVVM_BRANCH_=nvvm`, `PATH=...`) is an
/// environment variable; every other one is a Stage.
///
/// @param text the whole output
/// @return the environment and the stages, in order
/// @throws std::runtime_error naming the line of the command ("line 14:
///         ...") when it cannot be split into words or an option lacks its
///         value (a trailing `-o`)
DryRun parse_dryrun(std::string_view text);

// ---------------------------------------------------------------------------
// Part B: the files nvcc --keep leaves
// ---------------------------------------------------------------------------

/// What a file left by `nvcc --keep` holds, told by the end of its name.
enum class FileKind {
  HostPreprocessed,    ///< x.cpp4.ii: the .cu preprocessed for the host side
  DevicePreprocessed,  ///< x.cpp1.ii, x.compute_90.cpp1.ii: preprocessed with `__CUDA_ARCH__` defined
  HostSource,          ///< x.cudafe1.cpp: host code with kernels replaced by calls to their stubs
  ModuleId,            ///< x.module_id: the id that ties the host side to its device code
  Stub,                ///< x.cudafe1.stub.c: the stubs and the registration code
  CudafeC,             ///< x.cudafe1.c: C written beside the PTX by cicc's front end
  DeviceGpu,           ///< x.cudafe1.gpu: the device-side code cicc's front end kept
  Ptx,                 ///< x.ptx, x.compute_90.ptx: PTX, the virtual ISA
  Cubin,               ///< x.sm_90.cubin, x.compute_80.cubin, x_dlink.sm_90.cubin: an ELF with SASS
  Fatbin,              ///< x.fatbin, x_dlink.fatbin: the fat binary container
  FatbinC,             ///< x.fatbin.c, x_dlink.fatbin.c: the fat binary as a C array for the host compiler
  LinkRegistration,    ///< x_dlink.reg.c: nvlink's list of linked device binaries to register
  Object,              ///< x.o, x_dlink.o: a host object file
  Unknown,             ///< anything else
};

/// The name of a FileKind as written above ("Ptx", "Cubin", ...), for messages.
inline std::string_view to_string(FileKind kind) {
  switch (kind) {
    case FileKind::HostPreprocessed: return "HostPreprocessed";
    case FileKind::DevicePreprocessed: return "DevicePreprocessed";
    case FileKind::HostSource: return "HostSource";
    case FileKind::ModuleId: return "ModuleId";
    case FileKind::Stub: return "Stub";
    case FileKind::CudafeC: return "CudafeC";
    case FileKind::DeviceGpu: return "DeviceGpu";
    case FileKind::Ptx: return "Ptx";
    case FileKind::Cubin: return "Cubin";
    case FileKind::Fatbin: return "Fatbin";
    case FileKind::FatbinC: return "FatbinC";
    case FileKind::LinkRegistration: return "LinkRegistration";
    case FileKind::Object: return "Object";
    case FileKind::Unknown: return "Unknown";
  }
  return "Unknown";
}

/// A file left by `nvcc --keep`, classified by its name alone.
struct KeptFile {
  std::string name;                      ///< the part of the name given after its last `/`, e.g. "vadd.compute_90.sm_90.cubin"
  FileKind kind = FileKind::Unknown;     ///< what it holds
  StageKind made_by = StageKind::Unknown;  ///< the stage that writes it (nvlink for x_dlink.sm_90.cubin)
  bool device_link = false;              ///< true for the device link's files, whose stem ends in `_dlink`
  /// The virtual architecture when the name carries one as a dot-separated
  /// part: "compute_90" for x.compute_90.ptx; empty for x.ptx.
  std::optional<std::string> virtual_arch;
  /// The real architecture when the name carries one: "sm_90" for
  /// x.compute_90.sm_90.cubin; empty for x.compute_80.cubin.
  std::optional<std::string> real_arch;
};

/// Classifies a file that `nvcc --keep` left, by the end of its name.
///
/// The stem may itself contain dots ("my.kernel.cpp4.ii") and may be one of
/// nvcc's temporary names ("tmpxft_0000_00000000-6_vadd.cudafe1.cpp").
///
/// @param file_name a base name or a path; only the part after the last `/` counts
/// @return its kind, the stage that made it and the architectures its name carries;
///         FileKind::Unknown and StageKind::Unknown for names nvcc does not write
KeptFile classify_kept_file(std::string_view file_name);

// ---------------------------------------------------------------------------
// Part C: the host stub, x.cudafe1.stub.c
// ---------------------------------------------------------------------------

/// One parameter as a stub hands it on: `__cudaSetupArgSimple(__par3, 24UL)`.
struct StubArgument {
  std::string variable;         ///< what the stub passes, e.g. "__par0" (or a copy such as "__T0")
  /// Its byte offset in the kernel's parameter buffer, e.g. 24 from `24UL`.
  /// The macros of CUDA 13.0's crt/host_runtime.h do not use it at run time
  /// (they collect the arguments' addresses), but it is the offset the
  /// argument's bytes will have: the layout the PTX parameters imply.
  std::size_t offset = 0;
  bool by_reference = false;    ///< true for `__cudaSetupArg` (an aggregate, passed by reference), false for `__cudaSetupArgSimple`
};

/// One kernel's stub: the host function `__device_stub__<mangled>(...)` that
/// a launch of the kernel calls.
struct StubKernel {
  std::string stub_name;     ///< e.g. "__device_stub__Z4vaddPKfS0_Pfi"
  /// The stub name without its "__device_stub_" prefix: the kernel's C++
  /// mangled name, e.g. "_Z4vaddPKfS0_Pfi". For an `extern "C"` kernel the
  /// stub still carries the C++ mangling (`__device_stub__Z5cvaddPf`) while
  /// the device symbol is plain `cvadd`: RegisteredEntry::symbol is the one
  /// the GPU code is found by.
  std::string mangled_name;
  std::vector<StubArgument> arguments;  ///< the `__cudaSetupArg*` calls of its body, in order
};

/// One `__cudaRegisterEntry(handle, host_function, mangled_name, max_threads)`
/// call of the registration callback.
struct RegisteredEntry {
  std::string symbol;    ///< the third argument: the device symbol (the PTX `.entry` name) the host function is tied to
  /// The fourth argument: the kernel's `__launch_bounds__` thread limit
  /// ("128"), or -1 without one ("(-1)").
  int max_threads = -1;
};

/// What a `*.cudafe1.stub.c` holds.
struct StubFile {
  /// The fat binary the stub includes (`#include "vadd.fatbin.c"` gives
  /// "vadd.fatbin.c"); empty if there is none.
  std::string fatbin_include;
  /// Every stub defined in the file (a definition has a body in braces;
  /// declarations and calls of a stub are not kernels), in file order.
  std::vector<StubKernel> kernels;
  /// The `__cudaRegisterEntry` calls, in file order.
  std::vector<RegisteredEntry> entries;
};

/// Reads a `*.cudafe1.stub.c`.
///
/// The text mixes one-line and multi-line definitions, `# 1 "vadd.cu"` line
/// markers, the kernels' host wrappers (which call their stub) and template
/// wrappers; only definitions of `__device_stub_...` count as kernels.
///
/// @param text the file's content
/// @return the fatbin include, the kernels and the registered entries
/// @throws std::runtime_error whose message names a line as "line N"
///         (counted from 1): when a stub's parameter list or body never
///         closes, the line of the `(` or `{` that is not closed; when a
///         `__cudaSetupArg*` call has no `<number>UL` offset, the line of
///         that call
StubFile read_stub(std::string_view text);

// ---------------------------------------------------------------------------
// Part D: PTX
// ---------------------------------------------------------------------------

/// One parameter of a PTX `.entry`, e.g. `.param .align 16 .b8 k_param_4[16]`.
struct PtxParam {
  std::string name;        ///< e.g. "_Z1kcdPis6float4_param_4"
  std::string type;        ///< the element type with its dot: ".u64", ".f64", ".u8", ".b8", ...
  std::size_t size = 0;    ///< bytes: the element's size times the array length (16 for `.b8 x[16]`)
  std::size_t align = 0;   ///< bytes: the `.align N` given, otherwise the element's size
  std::optional<std::size_t> array_length;  ///< N for `name[N]`, empty for a scalar
};

/// One register declaration, `.reg .b32 %r<6>;` (type ".b32", prefix "%r",
/// count 6: it declares %r0 to %r5), or a single named register,
/// `.reg .b32 temp;` (prefix "temp", count 1, parameterized false).
struct PtxRegister {
  std::string type;          ///< ".pred", ".b16", ".b32", ".b64", ".f32", ".f64", ...
  std::string prefix;        ///< "%r", "%rd", "%f", "%p", ...
  std::size_t count = 0;     ///< how many registers it declares
  bool parameterized = true; ///< true for the `<N>` form
};

/// One kernel in PTX: a `.entry`.
struct PtxEntry {
  std::string name;                      ///< the mangled name, e.g. "_Z4vaddPKfS0_Pfi"
  bool visible = false;                  ///< true when declared `.visible .entry` (false for a static kernel's plain `.entry`)
  std::vector<PtxParam> params;          ///< in order; empty for `()`
  /// Every `.reg` declaration in the body, nested blocks included, in order;
  /// one element per declared name (`.reg .b32 a, b;` gives two).
  std::vector<PtxRegister> registers;
};

/// The parts of a PTX module this lab reads.
struct PtxModule {
  std::string version;          ///< from `.version 9.0`: "9.0"
  std::string target;           ///< from `.target sm_90`: "sm_90" (everything after `.target`, trimmed)
  int address_size = 0;         ///< from `.address_size 64`: 64
  std::vector<PtxEntry> entries;  ///< every `.entry`, in file order; `.func` device functions are not entries
};

/// The size in bytes of a PTX fundamental type that a parameter can have: 1
/// for ".u8", ".s8", ".b8"; 2 for the 16-bit types (".f16" and ".bf16"
/// included); 4 for the 32-bit ones (".f16x2" included); 8 for the 64-bit
/// ones; 16 for ".b128".
///
/// @param type a type with its dot, e.g. ".f64"
/// @return its size, or nothing for a name that is not a PTX fundamental type
std::optional<std::size_t> ptx_type_size(std::string_view type);

/// Reads a PTX module as cicc writes it.
///
/// Comments (`// ...` and `/* ... */`) are ignored. Kernel parameters are the
/// `.param` declarations between the entry's parentheses; `.param` lines in
/// the body (a call's arguments) are not kernel parameters.
///
/// @param text the whole .ptx file
/// @return its version, target, address size and entries
/// @throws std::runtime_error whose message names a line as "line N"
///         (counted from 1): for an entry whose parameter list never closes,
///         the line of its `(`; whose body never closes, the line of its
///         `{`; for a parameter of unknown type, the line of that `.param`;
///         for a `.reg` declaration without `;`, the line where the `.reg`
///         is
PtxModule read_ptx(std::string_view text);

}  // namespace launchlab::pipeline
