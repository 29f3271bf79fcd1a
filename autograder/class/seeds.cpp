// The students' seeds: SHA-256, HMAC-SHA-256 and the seed of a submission's
// grading, which `launchlab grade --seed-secret` and grade-class both draw.
#include "launchlab/class/seeds.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "launchlab/grader/stages.h"

namespace launchlab::classroom {
namespace fs = std::filesystem;

namespace {

constexpr std::array<std::uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotate_right(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(std::array<std::uint32_t, 8>& state, const std::uint8_t* block) {
  std::array<std::uint32_t, 64> w{};
  for (int i = 0; i < 16; ++i) {
    w[i] = std::uint32_t(block[4 * i]) << 24 | std::uint32_t(block[4 * i + 1]) << 16 |
           std::uint32_t(block[4 * i + 2]) << 8 | std::uint32_t(block[4 * i + 3]);
  }
  for (int i = 16; i < 64; ++i) {
    std::uint32_t s0 = rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^ (w[i - 15] >> 3);
    std::uint32_t s1 = rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  auto [a, b, c, d, e, f, g, h] = state;
  for (int i = 0; i < 64; ++i) {
    std::uint32_t t1 = h + (rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25)) + ((e & f) ^ (~e & g)) +
                       kRoundConstants[i] + w[i];
    std::uint32_t t2 = (rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  const std::array<std::uint32_t, 8> add = {a, b, c, d, e, f, g, h};
  for (int i = 0; i < 8; ++i) state[i] += add[i];
}

}  // namespace

std::array<std::uint8_t, 32> sha256(std::string_view data) {
  std::array<std::uint32_t, 8> state = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string message(data);
  const std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  message += static_cast<char>(0x80);
  while (message.size() % 64 != 56) message += '\0';
  for (int shift = 56; shift >= 0; shift -= 8) message += static_cast<char>((bits >> shift) & 0xff);
  for (std::size_t at = 0; at < message.size(); at += 64) {
    compress(state, reinterpret_cast<const std::uint8_t*>(message.data() + at));
  }
  std::array<std::uint8_t, 32> digest{};
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 4; ++j) digest[4 * i + j] = static_cast<std::uint8_t>(state[i] >> (24 - 8 * j));
  }
  return digest;
}

std::array<std::uint8_t, 32> hmac_sha256(std::string_view key, std::string_view message) {
  constexpr std::size_t kBlock = 64;
  std::string block_key(key);
  if (block_key.size() > kBlock) {
    auto digest = sha256(block_key);
    block_key.assign(reinterpret_cast<const char*>(digest.data()), digest.size());
  }
  block_key.resize(kBlock, '\0');
  std::string inner(kBlock, '\0'), outer(kBlock, '\0');
  for (std::size_t i = 0; i < kBlock; ++i) {
    inner[i] = static_cast<char>(block_key[i] ^ 0x36);
    outer[i] = static_cast<char>(block_key[i] ^ 0x5c);
  }
  auto inner_digest = sha256(inner + std::string(message));
  return sha256(outer + std::string(reinterpret_cast<const char*>(inner_digest.data()), inner_digest.size()));
}

std::string to_hex(const std::uint8_t* bytes, std::size_t size) {
  static const char* kDigits = "0123456789abcdef";
  std::string hex;
  for (std::size_t i = 0; i < size; ++i) {
    hex += kDigits[bytes[i] >> 4];
    hex += kDigits[bytes[i] & 0xf];
  }
  return hex;
}

StudentSeed derive_seed(std::string_view secret, std::string_view student) {
  auto mac = hmac_sha256(secret, student);
  StudentSeed seed;
  for (int i = 0; i < 8; ++i) seed.value = seed.value << 8 | mac[i];
  auto fingerprint = sha256(secret);
  seed.derivation = "hmac-sha256(secret " + to_hex(fingerprint.data(), 4) + ", \"" + std::string(student) +
                    "\")[0:8] big-endian";
  return seed;
}

std::string read_course_secret(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the course secret " + file.string());
  std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.empty()) throw std::runtime_error(file.string() + " is empty: a course secret must say something");
  return secret;
}

StudentSeed derive_submission_seed(std::string_view secret, std::string_view student, const fs::path& submission,
                                   const std::vector<grader::Lab>& graded_labs) {
  const grader::SubmissionFiles files = grader::find_submission_files(submission, graded_labs, graded_labs);
  std::string graded;
  for (const auto& [slug, by_name] : files.files) {
    for (const auto& [name, path] : by_name) {
      std::ifstream in(path, std::ios::binary);
      const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      // Each file's name and size first, so that no two sets of files read alike.
      graded += slug + "/" + name + "\n" + std::to_string(content.size()) + "\n" + content;
    }
  }
  const auto digest = sha256(graded);
  return derive_seed(secret, std::string(student) + " submission " + to_hex(digest.data(), 8));
}

}  // namespace launchlab::classroom
