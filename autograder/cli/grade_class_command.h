#pragma once

#include <CLI/CLI.hpp>

#include "launchlab/class/grade_class.h"

namespace launchlab::cli {

/// Adds the grade-class command to app; lab_number turns "00" into a slug.
CLI::App& define_grade_class(CLI::App& app, classroom::GradeClassArguments& args, const CLI::Validator& lab_number);

}  // namespace launchlab::cli
