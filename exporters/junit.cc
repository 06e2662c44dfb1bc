#include "exporters/junit.h"

#include <sstream>

namespace jank::exporters {
namespace {

std::string xml(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        out += static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '?' : c;
    }
  }
  return out;
}

struct Counts {
  std::size_t tests = 0, failures = 0, skipped = 0;
  void add(const Counts& o) {
    tests += o.tests;
    failures += o.failures;
    skipped += o.skipped;
  }
};

Counts counts_of(const JunitSuite& suite) {
  Counts c;
  for (const auto& k : suite.cases) {
    ++c.tests;
    c.failures += k.outcome == JunitCase::Outcome::kFailed;
    c.skipped += k.outcome == JunitCase::Outcome::kSkipped;
  }
  return c;
}

std::string counts_attributes(const Counts& c) {
  return " tests=\"" + std::to_string(c.tests) + "\" failures=\"" + std::to_string(c.failures) +
         "\" errors=\"0\" skipped=\"" + std::to_string(c.skipped) + "\"";
}

}  // namespace

std::string junit_xml(const std::string& name, const std::vector<JunitSuite>& suites) {
  std::ostringstream body;
  Counts all;
  for (const auto& suite : suites) {
    const Counts c = counts_of(suite);
    all.add(c);
    body << "  <testsuite name=\"" << xml(suite.name) << "\"" << counts_attributes(c) << ">\n";
    if (!suite.properties.empty()) {
      body << "    <properties>\n";
      for (const auto& [key, value] : suite.properties) {
        body << "      <property name=\"" << xml(key) << "\" value=\"" << xml(value) << "\"/>\n";
      }
      body << "    </properties>\n";
    }
    for (const auto& k : suite.cases) {
      body << "    <testcase classname=\"" << xml(k.classname) << "\" name=\"" << xml(k.name) << "\">\n";
      if (k.outcome == JunitCase::Outcome::kFailed) {
        body << "      <failure type=\"" << xml(k.type) << "\" message=\"" << xml(k.message) << "\">" << xml(k.text)
             << "</failure>\n";
      } else if (k.outcome == JunitCase::Outcome::kSkipped) {
        body << "      <skipped message=\"" << xml(k.message) << "\"/>\n";
      }
      body << "    </testcase>\n";
    }
    body << "  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"" + xml(name) + "\"" +
         counts_attributes(all) + ">\n" + body.str() + "</testsuites>\n";
}

}  // namespace jank::exporters
