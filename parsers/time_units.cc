#include "parsers/time_units.h"

#include <cinttypes>
#include <cstdio>

namespace jank::parsers::units {

std::string format_utc(std::int64_t unix_ns, UtcFormat format) {
  const std::int64_t secs = floor_div(unix_ns, kNsPerSecond);
  const std::int64_t second_of_day = secs - floor_div(secs, kSecondsPerDay) * kSecondsPerDay;
  const CivilDate date = utc_date_of_ns(unix_ns);
  const int hh = static_cast<int>(second_of_day / 3600);
  const int mi = static_cast<int>(second_of_day / 60 % 60);
  const int ss = static_cast<int>(second_of_day % 60);
  char buf[64];
  int n = 0;
  switch (format) {
    case UtcFormat::iso:
    case UtcFormat::iso_ms:
    case UtcFormat::spaced:
      n = std::snprintf(buf, sizeof buf, "%04" PRId64 "-%02d-%02d%c%02d:%02d:%02d", date.year, date.month, date.day,
                        format == UtcFormat::spaced ? ' ' : 'T', hh, mi, ss);
      break;
    case UtcFormat::compact:
      n = std::snprintf(buf, sizeof buf, "%04" PRId64 "%02d%02dT%02d%02d%02d", date.year, date.month, date.day, hh, mi,
                        ss);
      break;
  }
  std::string out(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
  if (format == UtcFormat::spaced) out += " UTC";
  if (format == UtcFormat::iso_ms) {
    const auto ms = static_cast<int>((unix_ns - secs * kNsPerSecond) / kNsPerMillisecond);
    std::snprintf(buf, sizeof buf, ".%03dZ", ms);
    out += buf;
  }
  return out;
}

}  // namespace jank::parsers::units
