// Lines logd counts in Total without holding them (docs/devsim.md,
// "Statistics"): a log.tag property refusing a line (in logd on 6.0 and for
// writers that bypass liblog; in the app's own liblog from 7.0, uncounted),
// and logd 8.0–11's squashing of identical lines into a chatty summary.
// Exact Total/Now per buffer and the lines logcat prints.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "devsim/model.h"
#include "tests/devsim/quiet_device.h"
#include "devsim/shell.h"
#include "parsers/logcat_line.h"

using namespace jank::devsim;

namespace {

DeviceConfig on_sdk(int sdk) { return test::quiet_device(sdk); }

// "PRIO TAG: MESSAGE" of every line `logcat -d -b main` prints.
std::vector<std::string> main_lines(Device& dev) {
  const ShellResult r = run_shell(dev, "logcat -d -b main -v threadtime");
  REQUIRE(r.exit == 0);
  std::vector<std::string> out;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) {
    const auto p = jank::parsers::parse_log_line(l, jank::parsers::LogLayout::threadtime);
    if (!p) continue;  // "--------- beginning of main"
    out.push_back(std::string(1, p->priority) + " " + std::string(p->tag) + ": " + std::string(p->message));
  }
  return out;
}

struct Counts {
  std::uint64_t total = 0, now = 0;
  bool operator==(const Counts&) const = default;
};
Counts main_counts(const Device& dev) {
  return {dev.logs().stats(LogId::main).written, dev.logs().entries(LogId::main).size()};
}

std::ostream& operator<<(std::ostream& os, const Counts& c) { return os << c.total << "/" << c.now; }

}  // namespace

TEST_CASE("a log.tag property: counted by logd without a line on 6.0, refused by the app's liblog from 7.0",
          "[devsim][logd]") {
  ManualClock clock;
  for (const int sdk : {23, 24, 28, 34}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    REQUIRE(run_shell(dev, "setprop log.tag.Noisy S").exit == 0);
    REQUIRE(run_shell(dev, "setprop persist.log.tag.Chatter W").exit == 0);
    const Counts before = main_counts(dev);
    dev.log(LogId::main, 'I', 321, 321, 1000, "Noisy", "one");
    dev.log(LogId::main, 'E', 321, 321, 1000, "Noisy", "two");  // S forbids every level
    dev.log(LogId::main, 'I', 321, 321, 1000, "Chatter", "three");
    dev.log(LogId::main, 'W', 321, 321, 1000, "Chatter", "four");  // W and above pass
    dev.log(LogId::main, 'D', 321, 321, 1000, "Other", "five");
    const std::uint64_t refused_in_logd = sdk == 23 ? 3 : 0;
    CHECK(main_counts(dev) == Counts{before.total + 2 + refused_in_logd, before.now + 2});
    CHECK(dev.lines_filtered() == refused_in_logd);
    CHECK(dev.lines_refused() == 3 - refused_in_logd);
    CHECK(dev.logs().stats(LogId::main).unheld == refused_in_logd);
    const auto lines = main_lines(dev);
    CHECK(lines == std::vector<std::string>{"W Chatter: four", "D Other: five"});
    // A writer that bypasses liblog: logd's own check still refuses the line,
    // and counts it.
    dev.log_to_logd(LogId::main, 'I', 321, 321, 1000, "Noisy", "six");
    CHECK(main_counts(dev) == Counts{before.total + 3 + refused_in_logd, before.now + 2});
    // log.tag (all tags) and the tag's own property first.
    REQUIRE(run_shell(dev, "setprop log.tag E").exit == 0);
    REQUIRE(run_shell(dev, "setprop log.tag.Other V").exit == 0);
    dev.log(LogId::main, 'W', 321, 321, 1000, "Else", "seven");
    dev.log(LogId::main, 'V', 321, 321, 1000, "Other", "eight");
    CHECK(main_lines(dev).back() == "V Other: eight");
    CHECK(main_counts(dev).now == before.now + 3);
  }
  // Before 6.0 neither liblog nor logd looks at the properties.
  Device lollipop(on_sdk(22), clock);
  REQUIRE(run_shell(lollipop, "setprop log.tag.Noisy S").exit == 0);
  const Counts before = main_counts(lollipop);
  lollipop.log(LogId::main, 'I', 321, 321, 1000, "Noisy", "one");
  CHECK(main_counts(lollipop) == Counts{before.total + 1, before.now + 1});
}

TEST_CASE("8.0 to 11: a run of identical lines is its first, a chatty summary and its last, all counted but the summary",
          "[devsim][logd]") {
  ManualClock clock;
  for (const int sdk : {26, 28, 30}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    const std::int32_t pid = dev.apps()[0].pid;
    const Counts before = main_counts(dev);
    REQUIRE(dev.repeat_line("com.example.feed", 5, "Unable to match the desired swap behavior."));
    // The first is held, the second to fourth squashed, the fifth held back.
    CHECK(main_counts(dev) == Counts{before.total + 1 + 3, before.now + 1});
    CHECK(dev.logs().held_back(LogId::main) != nullptr);
    CHECK(dev.lines_squashed() == 3);
    const auto run_start = main_lines(dev).size();
    // A different line to main ends the run: summary, last line, the new one.
    dev.log(LogId::main, 'I', 321, 321, 1000, "Other", "different");
    CHECK(main_counts(dev) == Counts{before.total + 5 + 1, before.now + 4});
    CHECK(dev.logs().stats(LogId::main).summaries == 1);
    CHECK(dev.logs().stats(LogId::main).unheld == 3);
    const auto lines = main_lines(dev);
    REQUIRE(lines.size() == run_start + 3);
    CHECK(std::vector<std::string>(lines.end() - 4, lines.end()) ==
          std::vector<std::string>{"W OpenGLRenderer: Unable to match the desired swap behavior.",
                                   "I chatty: uid=10100(com.example.feed) RenderThread identical 3 lines",
                                   "W OpenGLRenderer: Unable to match the desired swap behavior.",
                                   "I Other: different"});
    // The summary carries the run's thread and the stamp of the last squashed line.
    const auto& held = dev.logs().entries(LogId::main);
    const LogEntry& summary = held[held.size() - 3];
    CHECK(summary.pid == pid);
    CHECK(summary.tid == pid + 17);
    CHECK(summary.wall_ns == held[held.size() - 2].wall_ns - 1'000'000);
    CHECK(summary.index == held[held.size() - 4].index + 3);  // Total when it was stored: no index of its own
  }
}

TEST_CASE("squashing: two identical lines are both held, and another thread, another minute or another line break a run",
          "[devsim][logd]") {
  ManualClock clock;
  Device dev(on_sdk(28), clock);
  const Counts before = main_counts(dev);
  dev.log(LogId::main, 'I', 321, 321, 1000, "Tag", "same");
  dev.log(LogId::main, 'I', 321, 321, 1000, "Tag", "same");
  dev.log(LogId::main, 'I', 321, 322, 1000, "Tag", "same");  // another thread
  dev.log(LogId::main, 'I', 321, 322, 1000, "Tag", "same");
  clock.advance_ms(60'001);
  dev.log(LogId::main, 'I', 321, 322, 1000, "Tag", "same");  // over a minute after the one before
  dev.log(LogId::system, 'I', 321, 322, 1000, "Tag", "same");  // another buffer: its own run
  CHECK(main_counts(dev) == Counts{before.total + 5, before.now + 5});
  CHECK(dev.lines_squashed() == 0);
  CHECK(dev.logs().held_back(LogId::main) == nullptr);
}

TEST_CASE("squashing: a summary printed without its run's first line before it says expire, and log.tag.chatty hides it",
          "[devsim][logd]") {
  ManualClock clock;
  Device dev(on_sdk(29), clock);
  for (int i = 0; i < 4; ++i) dev.log(LogId::main, 'I', 321, 322, 1000, "Tag", "same");
  dev.log(LogId::main, 'I', 321, 321, 1000, "Tag", "other");
  const ShellResult all = run_shell(dev, "logcat -d -b main -v threadtime");
  CHECK(all.out.find("chatty  : uid=1000(system) identical 2 lines\n") != std::string::npos);
  const ShellResult tail = run_shell(dev, "logcat -d -b main -v threadtime -t 3");
  CHECK(tail.out.find("chatty  : uid=1000(system) expire 2 lines\n") != std::string::npos);
  const Counts held = main_counts(dev);
  REQUIRE(run_shell(dev, "setprop log.tag.chatty S").exit == 0);
  const ShellResult hidden = run_shell(dev, "logcat -d -b main -v threadtime");
  CHECK(hidden.out.find("chatty") == std::string::npos);
  CHECK(std::count(hidden.out.begin(), hidden.out.end(), '\n') + 1 == std::count(all.out.begin(), all.out.end(), '\n'));
  CHECK(main_counts(dev) == held);  // still held: Now counts what logcat no longer prints
}

TEST_CASE("7.1 and 12 keep every identical line", "[devsim][logd]") {
  ManualClock clock;
  for (const int sdk : {25, 31}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    const Counts before = main_counts(dev);
    REQUIRE(dev.repeat_line("com.example.feed", 5, "Unable to match the desired swap behavior."));
    CHECK(main_counts(dev) == Counts{before.total + 5, before.now + 5});
    CHECK(dev.lines_squashed() == 0);
  }
}
