/// @file
/// The judge: one test's verdict from the reference's transcript and the
/// learner's, made in the grader's process, which the learner's code cannot
/// reach. The reference decides what is compared and how (each record's
/// check, expected value and parameter); the learner's transcript supplies
/// only the values.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "launchlab/grader/course.h"
#include "launchlab/grader/grading.h"
#include "launchlab/grader/transcript.h"

namespace launchlab::grader {

/// What a program's runs left for one test: its transcript, or why there is
/// none (the program crashed, hung or exited during it, or never got to it).
struct TestEvidence {
  const TestTranscript* transcript = nullptr;
  std::string why_missing;
};

/// The verdict on one test. Never throws for the transcripts' sake.
TestResult judge_test(const LabTest& test, const TestEvidence& reference, const TestEvidence& learner,
                      const Capabilities& capabilities);

/// Whether the learner's run of a test fails against every clean run of the
/// reference that differs from `reference` in the records `figure_keys`
/// names alone (the figures a test that measures compares with, which
/// change from run to run): it did not finish the test cleanly, stopped
/// before a record outside them, or recorded a value one of those refuses.
/// Such a test needs no fresh run of the reference to be judged.
bool fails_whatever_the_figures(const TestTranscript& reference, const TestTranscript& learner,
                                const std::set<std::string>& figure_keys);

}  // namespace launchlab::grader
