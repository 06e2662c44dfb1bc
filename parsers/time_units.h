// Time, written once for every folder that may include parsers/: the
// duration types of the configuration and the code, the conversions to and
// from the int64 nanosecond counts the model keeps (host wall and steady
// instants, device timestamps, spans), and the one civil calendar: days since
// 1970-01-01 to and from proleptic Gregorian dates, and UTC text. The logcat
// parser, run ids, results files and the live pages all use it, so each date
// rule is written once. Unit-tested in tests/unit/test_time_units.cc.
//
// devsim/ keeps its own copies: the simulator may include nothing of the
// exporter.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace jank::parsers::units {

using Nanoseconds = std::chrono::nanoseconds;
// Double counts where a value may be fractional (0.5 s, a 16.7 ms frame).
using Seconds = std::chrono::duration<double>;
using Milliseconds = std::chrono::duration<double, std::milli>;
using Days = std::chrono::duration<double, std::chrono::days::period>;

inline constexpr std::int64_t kNsPerSecond = 1'000'000'000;
inline constexpr std::int64_t kNsPerMillisecond = 1'000'000;
inline constexpr std::int64_t kSecondsPerDay = 86'400;

// A duration as the model's nanoseconds; a fractional count is truncated
// toward zero, as the casts this replaced did.
template <typename Rep, typename Period>
constexpr std::int64_t to_ns(std::chrono::duration<Rep, Period> d) {
  return std::chrono::duration_cast<Nanoseconds>(d).count();
}

// The model's nanoseconds as (fractional) seconds or milliseconds: exactly
// ns / 1e9 and ns / 1e6.
constexpr double seconds_of_ns(std::int64_t ns) { return Seconds(Nanoseconds(ns)).count(); }
constexpr double ms_of_ns(std::int64_t ns) { return Milliseconds(Nanoseconds(ns)).count(); }
// Milliseconds as seconds and back, exactly ms / 1e3 and s * 1e3 (a dump's
// milliseconds as a metric's seconds; a total of seconds shown per run in ms).
constexpr double seconds_of_ms(double ms) { return Seconds(Milliseconds(ms)).count(); }
constexpr double ms_of_seconds(double seconds) { return Milliseconds(Seconds(seconds)).count(); }

// Whole milliseconds of nanoseconds, truncated toward zero.
constexpr std::int64_t whole_ms_of_ns(std::int64_t ns) { return ns / kNsPerMillisecond; }

// Whole seconds of nanoseconds, truncated toward zero (a file name's stamp).
constexpr std::int64_t whole_seconds_of_ns(std::int64_t ns) { return ns / kNsPerSecond; }

// How often per second something with this period happens (a refresh rate
// of a vsync period): exactly 1e9 / period_ns.
constexpr double rate_of_period_ns(std::int64_t period_ns) {
  return static_cast<double>(kNsPerSecond) / static_cast<double>(period_ns);
}
// The other way: the period (ns, truncated) of something `per_second` times a
// second (a refresh rate's vsync period, a budget's interval): 1e9 / rate.
constexpr std::int64_t period_ns_of_rate(double per_second) {
  return static_cast<std::int64_t>(static_cast<double>(kNsPerSecond) / per_second);
}
// `periods` periods of a rate, in ns (truncated): a stall of N frames at a
// refresh rate is N × 1e9 / Hz.
constexpr std::int64_t ns_of_periods(double periods, double per_second) {
  return static_cast<std::int64_t>(periods * static_cast<double>(kNsPerSecond) / per_second);
}

// Fractional seconds or milliseconds (a parsed value) as nanoseconds,
// truncated toward zero.
constexpr std::int64_t ns_of_seconds(double seconds) { return to_ns(Seconds(seconds)); }
constexpr std::int64_t ns_of_ms(double ms) { return to_ns(Milliseconds(ms)); }

// ---- the civil calendar (proleptic Gregorian, UTC) ---------------------------

constexpr bool is_leap_year(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// Days of month `m` (1..12) of year `y`.
constexpr int days_in_month(std::int64_t y, int m) {
  constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap_year(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a date (era arithmetic in 400-year cycles).
constexpr std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  const std::int64_t yy = y - (m <= 2 ? 1 : 0);
  const std::int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
  const std::int64_t yoe = yy - era * 400;
  const std::int64_t mp = (m + 9) % 12;  // March = 0
  const std::int64_t doy = (153 * mp + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct CivilDate {
  std::int64_t year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..31
  friend bool operator==(const CivilDate&, const CivilDate&) = default;
};

// The date of a day count since 1970-01-01: days_from_civil's inverse.
constexpr CivilDate civil_from_days(std::int64_t days) {
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;  // March = 0
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

// Rounded toward negative infinity (a day or second before 1970 is still
// the one it is in).
constexpr std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
}

// The UTC date of a Unix time in nanoseconds.
constexpr CivilDate utc_date_of_ns(std::int64_t unix_ns) {
  return civil_from_days(floor_div(floor_div(unix_ns, kNsPerSecond), kSecondsPerDay));
}

enum class UtcFormat {
  iso,      // 2026-11-25T10:15:00
  iso_ms,   // 2026-11-25T10:15:00.123Z (results files)
  spaced,   // 2026-11-25 10:15:00 UTC (the live pages; live.js writes the same)
  compact,  // 20261125T101500 (run ids; trace ids add a Z)
};

// A Unix time in nanoseconds as UTC text, to the second (iso_ms: to the
// millisecond), rounded down.
std::string format_utc(std::int64_t unix_ns, UtcFormat format);

}  // namespace jank::parsers::units
