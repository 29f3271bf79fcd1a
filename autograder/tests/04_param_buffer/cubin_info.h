// The parameter layout nvcc records in a cubin, read here with a minimal ELF
// walk so that the tests' truth never comes from the learner's code.
//
// A cubin is an ELF file. For each kernel, the section `.nv.info.<kernel>`
// holds records of the form
//   u8 format, u8 attribute, u16 value-or-size, [payload]
// where format 4 (EIFMT_SVAL) means the u16 is the size of a payload that
// follows and the other formats carry no payload. The records read here:
//   EIATTR_KPARAM_INFO    (0x17): payload {u32 index, u16 ordinal, u16 offset,
//                                 u32 flags}, the size is flags >> 18
//   EIATTR_KPARAM_INFO_V2 (0x45): the same 12 bytes, the size in the low 16
//                                 bits of the last word (nvcc 13.0 writes these
//                                 instead of 0x17 once a kernel's parameters
//                                 pass 4,352 bytes)
//   EIATTR_CBANK_PARAM_SIZE (0x19, format 3): the parameters' total size
// (the size rules were observed on nvcc 13.0 output, and agree with
// cuFuncGetParamInfo on an H200).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "param_buffer.h"

namespace launchlab::param_buffer_tests {

struct RecordedParam {
  std::uint32_t ordinal = 0;     ///< the parameter's position in the list
  std::uint32_t offset = 0;      ///< where its bytes start
  std::uint32_t size = 0;        ///< how many bytes
  std::uint8_t attribute = 0;    ///< 0x17 or 0x45: which record said so
};

struct RecordedKernel {
  std::vector<RecordedParam> params;               ///< sorted by ordinal
  std::optional<std::uint32_t> cbank_param_size;   ///< EIATTR_CBANK_PARAM_SIZE
};

/// Every kernel's parameter records, by kernel name (the section's suffix).
/// Throws std::runtime_error when the bytes are not a 64-bit little-endian
/// ELF file or a record runs past its section.
std::map<std::string, RecordedKernel> read_recorded_params(std::span<const std::byte> cubin);

/// The cubin nvcc makes of kernels/echo_kernels.cuh with
/// `nvcc -x cu -cubin -arch=sm_90`, compiled on first use.
const std::vector<std::byte>& echo_cubin();

/// The slots nvcc records for an echo kernel (EIATTR_KPARAM_INFO), in
/// parameter order. Throws std::runtime_error when the cubin has no such
/// kernel, or records another number of parameters than the test describes
/// (a problem of the test, not of the code under test).
std::vector<param_buffer::Slot> nvcc_slots(const std::string& kernel);
/// The parameters' total size nvcc records for an echo kernel
/// (EIATTR_CBANK_PARAM_SIZE); throws std::runtime_error when it is missing.
std::size_t nvcc_param_size(const std::string& kernel);
/// The buffer nvcc's layout makes of values: each at its recorded offset,
/// zeros elsewhere.
std::vector<std::byte> nvcc_buffer(const std::string& kernel, const std::vector<std::vector<std::byte>>& values);

/// What nvcc said and did for a source compiled with `nvcc -cubin -arch=sm_90`.
struct CompileResult {
  int exit_code = -1;
  std::string output;
};
/// Compiles kernels/<name> into a temporary folder.
CompileResult compile_cubin(const std::string& name);

/// What lay_out must do with the parameters of kernels/<name>, as nvcc
/// decides it: "throws std::length_error" when nvcc refuses the kernel
/// saying `refusal`, "throws nothing" when it compiles it (the words of
/// launchlab::testing::what_is_thrown). Throws std::runtime_error when nvcc
/// fails otherwise.
std::string nvcc_verdict(const std::string& name, const std::string& refusal);

}  // namespace launchlab::param_buffer_tests
