// JUnit XML, as CI systems read test results (Jenkins, GitLab, GitHub
// actions' reporters): what `check` and `compare` write with --junit.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace jank::exporters {

struct JunitCase {
  enum class Outcome { kPassed, kFailed, kSkipped };
  std::string classname;
  std::string name;
  Outcome outcome = Outcome::kPassed;
  std::string type;     // a failure's type ("budget_breach", "regression", …)
  std::string message;  // a failure's or skip's one line
  std::string text;     // a failure's longer text
};

struct JunitSuite {
  std::string name;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JunitCase> cases;
};

// The document: <testsuites name=…> with the counts of every suite, each
// <testsuite> with its own counts and properties. Text is escaped as XML 1.0
// needs; control characters it cannot carry become '?'.
std::string junit_xml(const std::string& name, const std::vector<JunitSuite>& suites);

}  // namespace jank::exporters
