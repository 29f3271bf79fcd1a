#pragma once
// Stated rules tested: every exception a lab header promises (`@throws TYPE`,
// or a sentence `Throws TYPE`) is checked by some test of the lab, and the
// linter names that test. A header says which function throws by the
// declaration its comment documents; a test checks it by a
// RECORD_THROWS(statement, TYPE) (RECORD_THROWS_WITHOUT_A_GPU, or
// message_thrown<TYPE>(...)) whose
// statement calls that function. Nothing needs to be written twice: the
// header and the test are the record.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::cli {

/// An exception a header promises: where, of which function, of which type.
struct StatedThrow {
  std::size_t line = 0;   ///< of the `@throws` (or `Throws`) line, from 1
  std::string function;   ///< the name the documented declaration declares ("parse_nvdisasm")
  std::string exception;  ///< as the header writes it ("std::runtime_error")
};

/// A check in a test source that a statement throws.
struct TestedThrow {
  std::string test;       ///< the enclosing TEST's Suite.Name ("" outside any)
  std::string statement;  ///< the code expected to throw
  std::string exception;  ///< the type it must throw
};

/// Every exception promised by the `///` comments of a header, each with
/// the function of the declaration that follows its comment.
std::vector<StatedThrow> stated_throws(std::string_view header);

/// Every RECORD_THROWS(statement, TYPE), RECORD_THROWS_WITHOUT_A_GPU(statement,
/// TYPE) and message_thrown<TYPE>(statement)
/// of a test source, each with the test it is in.
std::vector<TestedThrow> tested_throws(std::string_view test_source);

/// The first test that checks a promised exception: a tested throw of the
/// same type whose statement calls the function (its name followed by `(`).
/// The type may be written with more or fewer of its namespaces than the
/// header writes it (`qmd::QmdError` tests `QmdError`).
std::optional<std::string> test_of(const StatedThrow& stated, const std::vector<TestedThrow>& tested);

}  // namespace launchlab::cli
