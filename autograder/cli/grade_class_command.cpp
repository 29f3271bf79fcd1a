// The grade-class command's arguments, which the launchlab program reads as
// the grade-class program does; the class library (autograder/class/) does
// the grading.
#include "grade_class_command.h"

#include "launchlab/cli/arguments.h"

namespace launchlab::cli {

using classroom::GradeClassArguments;

CLI::App& define_grade_class(CLI::App& command, GradeClassArguments& args, const CLI::Validator& lab_number) {
  command.description("grade a class's submissions, side by side or through Slurm: results, a gradebook, histograms");
  command.add_option("--submissions", args.submissions,
                     "one folder per student, or Gradescope's export (submission_metadata.yml at the top)")
      ->type_name("DIR")->check(existing_folder());
  command.add_option("--out", args.out, "OUT/<student>/results.json, OUT/gradebook.csv, OUT/summary.md, OUT/histograms.png, OUT/canvas.csv")
      ->type_name("DIR")->required();
  command.add_option("--engine", args.engine, "local: gradings side by side on this host; slurm: a job array")
      ->type_name("local|slurm")->check(CLI::IsMember({"local", "slurm"}));
  command.add_option("--jobs", args.jobs,
                     "gradings at once (local: default a quarter of the cores; slurm: the array's limit, default none)")
      ->type_name("N")->check(whole_number(1, 4096));
  command.add_option("--labs", args.labs, "grade only these labs, by number or slug (default: every lab)")
      ->type_name("NN,NN")->delimiter(',')->transform(lab_number);
  CLI::Option* secret_file = command.add_option(
      "--seed-secret", args.seed_secret_file,
      "a file whose content is the course secret: each student's seed is HMAC-SHA-256(secret, student and their files)")
      ->type_name("FILE")->check(existing_file());
  command.add_option("--course-secret", args.course_secret, "the course secret itself (other users may see it in ps)")
      ->type_name("TEXT")->excludes(secret_file);
  command.add_option("--regrade", args.regrade, "grade these students again, up to date or not")
      ->type_name("STUDENT,...")->delimiter(',');
  command.add_flag("--regrade-failed", args.regrade_failed,
                   "grade again every student the gradebook flags (no results, a grader error, a regrade)");
  command.add_option("--private-tests", args.private_tests, "passed to every grading (launchlab grade --private-tests)")
      ->type_name("DIR")->check(existing_folder());
  command.add_option("--private-visibility", args.private_visibility, "passed to every grading")
      ->type_name("WHEN")->check(CLI::IsMember({"hidden", "after_due_date", "after_published", "visible"}));
  command.add_option("--test-timeout", args.test_timeout_seconds, "passed to every grading")
      ->type_name("SECONDS")->check(whole_number(1, 24 * 3600));
  command.add_option("--grading-timeout", args.grading_timeout_seconds, "the time one grading may take (default 3600)")
      ->type_name("SECONDS")->check(whole_number(60, 7 * 24 * 3600));
  command.add_option("--class", args.class_file,
                     "the class file (TOML): due dates, late policy, each student's LMS identity, grace days, extensions; "
                     "adds the late columns, OUT/canvas.csv and OUT/gradescope_scores.csv")
      ->type_name("FILE")->check(existing_file());
  command.add_flag("--similarity", args.similarity,
                   "compare every pair of submissions lab by lab (sim_c++, the starter left out); flags, never scores");
  command.add_option("--similarity-threshold", args.similarity_threshold_percent,
                     "the share of code above which a pair is listed (default 50)")
      ->type_name("PERCENT")->check(whole_number(1, 100));
  command.add_flag("--keep-work", args.keep_work, "keep each grading's work folder (in the temporary folder; grading.json names it)");
  command.add_option("--sbatch-arg", args.sbatch_args, "slurm: one more sbatch option for every job (--partition=gpu); repeat it")
      ->type_name("ARG")->allow_extra_args(false);
  command.add_option("--cpus-per-task", args.cpus_per_task, "slurm: the cores of one grading (default 2)")
      ->type_name("N")->check(whole_number(1, 1024));
  command.add_option("--wait", args.wait_seconds,
                     "slurm: how long to wait for the jobs (default 43200); 0 submits them and returns")
      ->type_name("SECONDS")->check(whole_number(0, 30 * 24 * 3600));
  // What the submitted jobs run; not for people.
  command.add_flag("--prepare", args.prepare, "")->group("");
  command.add_option("--task", args.task, "")->group("")->check(whole_number(0, 1 << 30));
  command.add_flag("--collect", args.collect, "")->group("");
  command.footer(
      "A student whose results.json is newer than their files (and was graded from the same course commit, with\n"
      "the same labs, seed and options) is skipped: a run that stopped goes on where it stopped. The trusted part\n"
      "of the course is built once, in BUILD/graded-course, and shared by every grading.");
  return command;
}

}  // namespace launchlab::cli
