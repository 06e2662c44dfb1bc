// What replay learns from its inputs before counting: where a logcat
// capture's time begins (SM's span) and the refresh period --latency
// captures print most often (the rate rows without their own interval are
// judged by).
#include <catch2/catch.hpp>

#include "parsers/logcat_line.h"
#include "parsers/sf_latency.h"

using namespace jank::parsers;

TEST_CASE("a capture's first wall time passes over lines without one", "[parsers][replay]") {
  const ParseOptions o;

  const std::string text =
      "--------- beginning of main\r\n"
      "some banner line\n"
      "03-04 05:06:07.250  123  456 I Choreographer: Skipped 3 frames!\n"
      "03-04 05:06:09.000  123  456 I Choreographer: Skipped 4 frames!\n";
  const auto first = first_wall_time(text, o);
  REQUIRE(first);
  const auto second = detect_log_line("03-04 05:06:09.000  123  456 I Choreographer: Skipped 4 frames!", o);
  REQUIRE(second);
  CHECK(second->time.ns - *first == 1'750'000'000);
  CHECK_FALSE(first_wall_time("--------- beginning of main\nno time here\n", o));
  CHECK_FALSE(first_wall_time("", o));
}

TEST_CASE("the period printed most often wins, the shorter on a tie, over several captures", "[parsers][replay]") {
  std::map<std::int64_t, std::uint64_t> counts;
  CHECK_FALSE(most_printed_period(counts));
  count_printed_periods("16666667\n1 2 3\n\n16666667\n4 5 6\n", counts);
  count_printed_periods("8333333\n7 8 9\n", counts);
  CHECK(counts.at(16666667) == 2);
  CHECK(counts.at(8333333) == 1);
  CHECK(most_printed_period(counts) == 16666667);
  count_printed_periods("8333333\n7 8 9\n", counts);
  CHECK(most_printed_period(counts) == 8333333);  // 2 and 2: the shorter
}
