/// @file
/// The students' seeds, from the course secret: each one's, and the seed of a
/// submission's grading, which `launchlab grade --seed-secret` and
/// grade-class both draw. Apart from the rest of grade-class's library
/// (gradebook.h), so that the launchlab program links only this.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace launchlab::course {
struct Lab;
}

namespace launchlab::classroom {

/// SHA-256 of data (FIPS 180-4).
std::array<std::uint8_t, 32> sha256(std::string_view data);

/// HMAC-SHA-256 of message under key (RFC 2104).
std::array<std::uint8_t, 32> hmac_sha256(std::string_view key, std::string_view message);

/// Lowercase hexadecimal.
std::string to_hex(const std::uint8_t* bytes, std::size_t size);

/// A student's secret seed and how it was made, which names the secret only
/// by a fingerprint (the first 8 hexadecimal digits of its SHA-256).
struct StudentSeed {
  std::uint64_t value = 0;
  std::string derivation;  ///< "hmac-sha256(secret 1a2b3c4d, \"alice\")[0:8] big-endian"
};

/// The seed of a student's grading: the first 8 bytes of
/// HMAC-SHA-256(secret, student), big-endian. The same secret and student
/// give the same seed, so a regrade sees the inputs the first grading saw.
StudentSeed derive_seed(std::string_view secret, std::string_view student);

/// The seed of one submission's grading, from the course secret:
/// derive_seed of the student and a digest of the files of `graded_labs`
/// (as `launchlab grade` finds them in the submission), so that a
/// resubmission with other files gets other inputs and a regrade of the
/// same files the same ones. `launchlab grade --seed-secret` and
/// grade-class both draw from it.
StudentSeed derive_submission_seed(std::string_view secret, std::string_view student,
                                   const std::filesystem::path& submission, const std::vector<course::Lab>& graded_labs);

/// The course secret a file holds (its trailing newline left out); throws
/// std::runtime_error when the file cannot be read or holds nothing.
std::string read_course_secret(const std::filesystem::path& file);

}  // namespace launchlab::classroom
