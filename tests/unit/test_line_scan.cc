#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "parsers/line_scan.h"

using namespace jank::parsers;

namespace {
struct Collect : LineVisitor {
  std::vector<std::pair<std::string, unsigned>> lines;
  void visit(std::string_view line, unsigned flags) override { lines.emplace_back(std::string(line), flags); }
};
}  // namespace

TEST_CASE("line_has_trigger finds every trigger word and nothing else", "[line_scan]") {
  CHECK(line_has_trigger("I Choreographer: Skipped 3 frames!"));
  CHECK(line_has_trigger("Davey! duration=800ms;"));
  CHECK(line_has_trigger("Start proc 123:com.a/u0a1 for activity"));
  CHECK(line_has_trigger("Process com.a (pid 12) has died"));
  CHECK(line_has_trigger("Killing 12:com.a/u0a1 (adj 900): empty"));
  CHECK(line_has_trigger("I am_proc_start: [0,1,2,com.a,activity,x]"));
  CHECK(line_has_trigger("I am_kill : [0,1,com.a,900,empty]"));
  CHECK_FALSE(line_has_trigger("W Choreographer: Frame time is 1.2 ms in the future!"));
  CHECK_FALSE(line_has_trigger("Skipped"));  // word without its trailing space
  CHECK_FALSE(line_has_trigger(""));
}

TEST_CASE("every vector scan agrees with the scalar scan on random text with triggers", "[line_scan]") {
  const std::vector<std::string> pieces = {"Skipped ", "Davey!", "Start proc", "has died", "Killing ", "am_proc_",
                                           "am_kill", "Skippe", "Dave", "has dies", "\n", "\n", "\n", "[", "a", "d",
                                           "S", "_", " ", "xxxxxxxx", std::string(1, '\0'), "\r\n", "\n\n"};
  std::mt19937 rng(12345);
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const int n = static_cast<int>(rng() % 400);
    for (int i = 0; i < n; ++i) text += pieces[rng() % pieces.size()];
    text += "\n";
    const std::size_t cap = 8 + rng() % 200;
    Collect expected;
    const ScanResult re = scan_lines_scalar(text, cap, expected);
    for (const ScanKernel kernel : supported_scan_kernels()) {
      INFO("kernel " << static_cast<int>(kernel));
      Collect got;
      const ScanResult rg = scan_lines_with(kernel, text, cap, got);
      REQUIRE(rg.plain_lines == re.plain_lines);
      REQUIRE(got.lines == expected.lines);
    }
    Collect best;
    REQUIRE(scan_lines(text, cap, best).plain_lines == re.plain_lines);
    REQUIRE(best.lines == expected.lines);
  }
}

TEST_CASE("this machine's widest scan kernel is in use", "[line_scan]") {
  // The list always starts with the portable loop; on x86-64 every CPU the
  // exporter targets has AVX2 (a CI machine without it would show here).
  const auto kernels = supported_scan_kernels();
  REQUIRE(kernels.front() == ScanKernel::scalar);
#if defined(__x86_64__)
  CHECK(kernels.size() >= 2);
#endif
}

TEST_CASE("scan visits exactly the lines that need a look", "[line_scan]") {
  using namespace std::string_literals;
  const std::string text = "plain one\n[ header\n\nvery long line indeed\nx Skipped 2 frames!\nnul\0here\nlast\n"s;
  Collect c;
  ScanResult r = scan_lines(text, 12, c);
  REQUIRE(r.plain_lines == 2);  // "plain one", "last"
  REQUIRE(c.lines.size() == 5);
  CHECK(c.lines[0].first == "[ header");
  CHECK(c.lines[1].first.empty());
  CHECK(c.lines[2].first == "very long line indeed");
  CHECK(c.lines[3].second == kLineTrigger);
  CHECK((c.lines[4].second & kLineNul) != 0);
}
