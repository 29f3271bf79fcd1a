// The grade-class program: what `launchlab grade-class` runs, once the
// launchlab program has read its arguments and built it; the Slurm jobs it
// submits run it again. Only a course's staff needs it, so a fresh clone's
// first command does not wait for it to build.
#include <iostream>

#include "course_context.h"
#include "grade_class_command.h"
#include "launchlab/class/grade_class.h"
#include "launchlab/cli/arguments.h"

int main(int argc, char** argv) {
  const launchlab::cli::Context ctx = launchlab::cli::course_context();
  launchlab::cli::CourseLabs course(ctx.root);
  CLI::App app("", "launchlab grade-class");
  launchlab::classroom::GradeClassArguments arguments;
  launchlab::cli::define_grade_class(app, arguments, course.lab_number(false));
  if (auto status = launchlab::cli::parse_arguments(app, argc, argv)) return *status;
  try {
    // The launchlab program beside this one grades each submission.
    const auto launchlab_program = std::filesystem::canonical("/proc/self/exe").parent_path() / "launchlab";
    return launchlab::classroom::grade_class(ctx.root, ctx.build, launchlab_program, arguments);
  } catch (const std::exception& error) {
    std::cerr << "launchlab grade-class: " << error.what() << "\n";
    return 2;
  }
}
