// Whether the panel is lit, from `dumpsys power` (PowerManagerService's dump):
//   "  mWakefulness=Awake"          (Awake, Asleep, Dreaming, Dozing)
//   "Display Power: state=ON"       (ON, OFF, DOZE, DOZE_SUSPEND, VR, ON_SUSPEND, UNKNOWN)
// The daemon asks for just those lines (`dumpsys power | grep …`); a whole
// dump, as saved by hand, reads the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jank::parsers {

enum class Wakefulness : std::uint8_t { awake, asleep, dreaming, dozing };
// The panel as the exporter reports it (android_display_power_state).
enum class ScreenPower : std::uint8_t { on, off, doze, unknown };

struct PowerState {
  std::optional<Wakefulness> wakefulness;
  std::optional<ScreenPower> display;  // from "Display Power: state="
  std::uint64_t lines = 0;             // lines read (received = parsed + discarded)
  std::uint64_t malformed_lines = 0;   // one of those keys with a value no Android prints
  // The display line when present (it is what the panel does), else what
  // wakefulness implies (Awake and Dreaming light it, Dozing is doze, Asleep
  // is off), else unknown.
  ScreenPower screen() const;
};

PowerState parse_power_state(std::string_view text);

std::string_view screen_power_name(ScreenPower p);

}  // namespace jank::parsers
