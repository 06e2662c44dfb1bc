#include <catch2/catch.hpp>

#include "parsers/power_state.h"

using namespace jank::parsers;

TEST_CASE("dumpsys power: the display line decides, wakefulness when it is missing", "[power]") {
  // The two lines the daemon greps for, as PowerManagerService prints them.
  const PowerState awake = parse_power_state("  mWakefulness=Awake\r\nDisplay Power: state=ON\r\n");
  CHECK(awake.wakefulness == Wakefulness::awake);
  CHECK(awake.screen() == ScreenPower::on);
  CHECK(awake.malformed_lines == 0);
  CHECK(awake.lines == 2);

  // Always-on display: wakefulness Dozing, the panel in DOZE_SUSPEND.
  const PowerState aod = parse_power_state("  mWakefulness=Dozing\nDisplay Power: state=DOZE_SUSPEND\n");
  CHECK(aod.screen() == ScreenPower::doze);

  // The display line wins over wakefulness: Awake while the panel is still
  // turning off after the power key.
  CHECK(parse_power_state("  mWakefulness=Awake\nDisplay Power: state=OFF\n").screen() == ScreenPower::off);

  struct Row {
    const char* text;
    ScreenPower screen;
  };
  const Row rows[] = {
      {"  mWakefulness=Asleep\n", ScreenPower::off},
      {"  mWakefulness=Dreaming\n", ScreenPower::on},  // a screensaver lights the panel
      {"  mWakefulness=Dozing\n", ScreenPower::doze},
      {"Display Power: state=VR\n", ScreenPower::on},
      {"Display Power: state=ON_SUSPEND\n", ScreenPower::on},
      {"Display Power: state=UNKNOWN\n", ScreenPower::unknown},
      {"", ScreenPower::unknown},
  };
  for (const auto& row : rows) {
    INFO(row.text);
    CHECK(parse_power_state(row.text).screen() == row.screen);
  }
}

TEST_CASE("dumpsys power: unknown values are counted, only the first of each key counts", "[power]") {
  const PowerState p = parse_power_state(
      "POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n  mWakefulness=Sleepy\n"
      "  mWakefulnessChanging=false\nDisplay Power: state=ON\nDisplay Power: state=OFF\n");
  CHECK(p.malformed_lines == 1);
  CHECK_FALSE(p.wakefulness.has_value());
  CHECK(p.screen() == ScreenPower::on);
  CHECK(screen_power_name(ScreenPower::doze) == "doze");
}
