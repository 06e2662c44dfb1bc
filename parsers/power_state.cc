#include "parsers/power_state.h"

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

constexpr std::string_view kWakefulness = "mWakefulness=";
constexpr std::string_view kDisplayPower = "Display Power: state=";

std::optional<Wakefulness> wakefulness_of(std::string_view v) {
  if (v == "Awake") return Wakefulness::awake;
  if (v == "Asleep") return Wakefulness::asleep;
  if (v == "Dreaming") return Wakefulness::dreaming;
  if (v == "Dozing") return Wakefulness::dozing;
  return std::nullopt;
}

// Display.stateToString's names.
std::optional<ScreenPower> display_of(std::string_view v) {
  if (v == "ON" || v == "VR" || v == "ON_SUSPEND") return ScreenPower::on;
  if (v == "OFF") return ScreenPower::off;
  if (v == "DOZE" || v == "DOZE_SUSPEND") return ScreenPower::doze;
  if (v == "UNKNOWN") return ScreenPower::unknown;
  return std::nullopt;
}

}  // namespace

ScreenPower PowerState::screen() const {
  if (display) return *display;
  if (!wakefulness) return ScreenPower::unknown;
  switch (*wakefulness) {
    case Wakefulness::awake:
    case Wakefulness::dreaming: return ScreenPower::on;
    case Wakefulness::dozing: return ScreenPower::doze;
    case Wakefulness::asleep: return ScreenPower::off;
  }
  return ScreenPower::unknown;
}

PowerState parse_power_state(std::string_view text) {
  PowerState out;
  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view raw;
  while (lines.next(raw)) {
    ++out.lines;
    const std::string_view line = scan::trim(scan::strip_trailing_crs(raw));
    // Only the first of each counts: a whole dump repeats neither, and a
    // later section quoting one (a wake lock's history) must not override it.
    if (line.rfind(kWakefulness, 0) == 0 && !out.wakefulness) {
      const auto w = wakefulness_of(scan::first_word(line.substr(kWakefulness.size())));
      if (w) out.wakefulness = w; else ++out.malformed_lines;
    } else if (line.rfind(kDisplayPower, 0) == 0 && !out.display) {
      const auto d = display_of(scan::first_word(line.substr(kDisplayPower.size())));
      if (d) out.display = d; else ++out.malformed_lines;
    }
  }
  return out;
}

std::string_view screen_power_name(ScreenPower p) {
  switch (p) {
    case ScreenPower::on: return "on";
    case ScreenPower::off: return "off";
    case ScreenPower::doze: return "doze";
    case ScreenPower::unknown: return "unknown";
  }
  return "unknown";
}

}  // namespace jank::parsers
