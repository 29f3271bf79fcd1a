/// @file
/// The transcript a test program writes, one JSON object a line, to the file
/// descriptor named by LAUNCHLAB_TRANSCRIPT_FD (set by the grader and by
/// `launchlab test`). test_main.cpp calls these around every test; records
/// come from the RECORD_* macros of record.h.
///
///   {"event":"program","build":"exercise"|"reference"}
///   {"event":"start","test":"Suite.Name"}
///   {"event":"record","test":...,"key":...,"value":...,"context":...,
///    "check":...,"expected":...,"parameter":...}   (the last three: reference only)
///   {"event":"end","test":...,"skipped":bool,"skip_message":...,"failures":[...],
///    "seeded":true}   (seeded: only when the test's inputs came from the seed)
///   {"event":"done"}
#pragma once

#include <string>
#include <vector>

namespace launchlab::testing {

/// Takes the descriptor from the environment (and removes the variable, so
/// that programs the tests start do not inherit it).
void open_transcript_from_environment();
void transcript_test_started(const std::string& test);
void transcript_test_ended(const std::string& test, bool skipped, const std::string& skip_message,
                           const std::vector<std::string>& failures);
void transcript_program_ended();

/// Notes that the running test drew its inputs from the seed (testing.h's
/// secret_seed()): its end says so ("seeded"), and the grader's cache of the
/// reference's transcripts keeps no such test, since each submission's seed
/// is its own and the rest of the transcript can serve every submission.
void transcript_test_read_the_seed();

}  // namespace launchlab::testing
