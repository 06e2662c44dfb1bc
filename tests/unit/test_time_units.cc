// parsers/time_units.h: the one set of time conversions and date rules. The
// calendar is checked against the standard library's (std::chrono::year_month_day).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>

#include "parsers/time_units.h"

namespace units = jank::parsers::units;
using namespace std::chrono_literals;

TEST_CASE("durations convert to and from the model's nanoseconds as the hand conversions did", "[time_units]") {
  CHECK(units::to_ns(units::Seconds(0.5)) == 500'000'000);
  CHECK(units::to_ns(units::Days(30)) == 30LL * 86'400 * 1'000'000'000);
  CHECK(units::to_ns(units::Milliseconds(16.6)) == static_cast<std::int64_t>(16.6 * 1e6));
  CHECK(units::to_ns(2s) == 2'000'000'000);
  CHECK(units::ns_of_seconds(0.1) == static_cast<std::int64_t>(0.1 * 1e9));
  CHECK(units::ns_of_ms(-2.5) == -2'500'000);  // toward zero
  CHECK(units::seconds_of_ns(1'234'567'891) == 1'234'567'891 / 1e9);
  CHECK(units::ms_of_ns(16'666'667) == 16'666'667 / 1e6);
}

TEST_CASE("the civil calendar agrees with std::chrono's, both ways", "[time_units]") {
  using namespace std::chrono;
  CHECK(units::days_from_civil(1970, 1, 1) == 0);
  CHECK(units::days_from_civil(2000, 3, 1) == 11'017);
  // 1600-01-01 .. 2400-12-31, past every 100- and 400-year rule.
  for (std::int64_t n = -135'140; n <= 157'000; n += 1) {
    const year_month_day ymd{sys_days{days{n}}};
    const units::CivilDate c = units::civil_from_days(n);
    REQUIRE(c.year == static_cast<int>(ymd.year()));
    REQUIRE(c.month == static_cast<int>(static_cast<unsigned>(ymd.month())));
    REQUIRE(c.day == static_cast<int>(static_cast<unsigned>(ymd.day())));
    REQUIRE(units::days_from_civil(c.year, c.month, c.day) == n);
    const year_month_day_last last(ymd.year(), month_day_last(ymd.month()));
    REQUIRE(units::days_in_month(c.year, c.month) == static_cast<int>(static_cast<unsigned>(last.day())));
  }
}

TEST_CASE("UTC text in each of the exporter's forms", "[time_units]") {
  const std::int64_t t = 1'764'061'000'123'456'789;  // 2025-11-25 08:56:40.123456789 UTC
  CHECK(units::format_utc(t, units::UtcFormat::iso) == "2025-11-25T08:56:40");
  CHECK(units::format_utc(t, units::UtcFormat::iso_ms) == "2025-11-25T08:56:40.123Z");
  CHECK(units::format_utc(t, units::UtcFormat::spaced) == "2025-11-25 08:56:40 UTC");
  CHECK(units::format_utc(t, units::UtcFormat::compact) == "20251125T085640");
  CHECK(units::format_utc(951'782'400LL * 1'000'000'000, units::UtcFormat::iso) == "2000-02-29T00:00:00");
  // Before 1970 a time is in the second (and day) it falls in.
  CHECK(units::format_utc(-1, units::UtcFormat::iso_ms) == "1969-12-31T23:59:59.999Z");
  CHECK(units::utc_date_of_ns(-1) == units::CivilDate{1969, 12, 31});
}

TEST_CASE("whole seconds and rates of nanosecond periods", "[time_units]") {
  CHECK(units::whole_seconds_of_ns(1'999'999'999) == 1);
  CHECK(units::whole_seconds_of_ns(-1'500'000'000) == -1);  // toward zero
  CHECK(units::rate_of_period_ns(16'666'667) == 1e9 / 16'666'667.0);
  CHECK(units::rate_of_period_ns(8'333'333) == 1e9 / 8'333'333.0);
}
