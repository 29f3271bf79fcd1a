// The main() of every lab's test program. Run by hand or by CTest it is
// GoogleTest's usual main. Run by the grader, it also reports each test's
// result through a pipe the grader opened, stamped with a one-time secret
// that the grader wrote into another pipe: a report that a submission fakes
// on disk, on stdout, or by exiting early is never taken for this one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void append_escaped(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t wrote = write(fd, data.data() + done, data.size() - done);
    if (wrote <= 0) return;
    done += static_cast<std::size_t>(wrote);
  }
}

class GraderReport : public ::testing::EmptyTestEventListener {
 public:
  GraderReport(std::string nonce, int fd) : nonce_(std::move(nonce)), fd_(fd) {}

  void OnTestProgramEnd(const ::testing::UnitTest& unit) override {
    std::string out = "{\"nonce\":";
    append_escaped(out, nonce_);
    out += ",\"tests\":[";
    bool first = true;
    for (int s = 0; s < unit.total_test_suite_count(); ++s) {
      const ::testing::TestSuite* suite = unit.GetTestSuite(s);
      for (int t = 0; t < suite->total_test_count(); ++t) {
        const ::testing::TestInfo* info = suite->GetTestInfo(t);
        if (!info->should_run()) continue;
        const ::testing::TestResult* result = info->result();
        out += first ? "{" : ",{";
        first = false;
        out += "\"name\":";
        append_escaped(out, std::string(suite->name()) + "." + info->name());
        out += ",\"result\":";
        append_escaped(out, result->Skipped() ? "SKIPPED" : "COMPLETED");
        out += ",\"failures\":[";
        bool first_failure = true;
        std::string skip_message;
        for (int p = 0; p < result->total_part_count(); ++p) {
          const ::testing::TestPartResult& part = result->GetTestPartResult(p);
          if (part.skipped()) {
            skip_message = part.message();
            continue;
          }
          if (!part.failed()) continue;
          if (!first_failure) out += ',';
          first_failure = false;
          std::string where = part.file_name() ? std::string(part.file_name()) + ":" + std::to_string(part.line_number()) + "\n" : "";
          append_escaped(out, where + part.message());
        }
        out += "],\"skip_message\":";
        append_escaped(out, skip_message);
        out += '}';
      }
    }
    out += "]}";
    write_all(fd_, out);
    close(fd_);
  }

 private:
  std::string nonce_;
  int fd_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // LAUNCHLAB_REPORT_FDS="secret_fd,report_fd", set by the grader only.
  if (const char* fds = std::getenv("LAUNCHLAB_REPORT_FDS")) {
    int secret_fd = -1, report_fd = -1;
    if (std::sscanf(fds, "%d,%d", &secret_fd, &report_fd) == 2) {
      std::string nonce;
      char c;
      while (nonce.size() < 128 && read(secret_fd, &c, 1) == 1 && c != '\n') nonce += c;
      close(secret_fd);
      ::testing::UnitTest::GetInstance()->listeners().Append(new GraderReport(nonce, report_fd));
    }
    unsetenv("LAUNCHLAB_REPORT_FDS");
  }
  return RUN_ALL_TESTS();
}
