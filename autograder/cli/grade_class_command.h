#pragma once

#include <CLI/CLI.hpp>

#include "launchlab/class/grade_class_arguments.h"

namespace launchlab::cli {

/// Gives command grade-class's description, options and footer: the launchlab
/// program's grade-class command, or the grade-class program's own command
/// line. lab_number turns "00" into a slug.
CLI::App& define_grade_class(CLI::App& command, classroom::GradeClassArguments& args, const CLI::Validator& lab_number);

}  // namespace launchlab::cli
