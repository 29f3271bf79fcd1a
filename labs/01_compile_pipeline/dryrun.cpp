// Part A: reading `nvcc --dryrun`.
//
// Look at the real thing first:
//   nvcc --dryrun -arch=sm_90 -c vadd.cu -o vadd.o
//   mkdir -p k && nvcc --dryrun --keep --keep-dir k -arch=sm_90 -c vadd.cu -o vadd.o
// (nvcc prints the commands on standard error.)
#include "pipeline.h"

#include <stdexcept>
#include <string>

namespace launchlab::pipeline {

std::vector<std::string> split_arguments(std::string_view command) {
  // TODO(student): split the line into words as a POSIX shell would (see
  // pipeline.h): blanks separate words; "double quotes" group, and inside
  // them \" \\ \$ and \` are escapes; 'single quotes' are literal; outside
  // quotes a backslash escapes the next character. Quotes join with the text
  // next to them (-DX="\"a\"" is the one word -DX="a"), and "" is an empty
  // word. Throw std::runtime_error for an unterminated quote or a trailing
  // backslash.
  (void)command;
  return {};
}

DryRun parse_dryrun(std::string_view text) {
  // TODO(student): go through the text line by line, counting lines from 1
  // and dropping a trailing '\r'.
  //  - Skip every line that does not start with "#$ ".
  //  - "#$ NAME=value" (a name made of letters, digits and '_', then '=') is
  //    an EnvironmentVariable: the value is the rest of the line, verbatim.
  //  - Every other line is a Stage: split it with split_arguments (turn its
  //    exception into one whose message starts with "line N: "), take the
  //    base name of the first word as the tool ("$CICC_PATH/cicc" -> "cicc")
  //    and keep the other words as the arguments.
  //  - Then, per tool, work out the kind, the inputs, the outputs and the
  //    arch, following the rules written on Stage in pipeline.h. For each
  //    tool you need to know which options take the next word as their value
  //    (-o, -x, -include, -isystem ... for the host compiler; -arch, -o and
  //    the --..._name options for cudafe++ and cicc; --host-ccbin for
  //    nvlink): a word that is an option's value is never an input. An
  //    option that lacks its value is an error naming the line.
  (void)text;
  return {};
}

}  // namespace launchlab::pipeline
