/// @file
/// grade-class as a library: a class graded side by side on this host or as a
/// Slurm job array, then its gradebook. The grade-class program is a thin
/// layer over it (autograder/cli/grade_class_main.cpp), which the launchlab
/// program builds the first time it is asked for.
#pragma once

#include <filesystem>

#include "launchlab/class/grade_class_arguments.h"

namespace launchlab::classroom {

/// Runs grade-class for the course at root whose programs were built in
/// build; each grading is a `launchlab_program grade`, and the Slurm jobs
/// run the program that calls this again. Returns the command's exit status.
/// Throws std::runtime_error saying what is wrong with the arguments or the
/// submissions.
int grade_class(const std::filesystem::path& root, const std::filesystem::path& build,
                const std::filesystem::path& launchlab_program, const GradeClassArguments& args);

}  // namespace launchlab::classroom
