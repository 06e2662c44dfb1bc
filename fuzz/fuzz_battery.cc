// dumpsys battery parser on arbitrary text: whatever comes back is within
// the ranges the parser promises (status 1..5, health 1..7, level within
// 0..scale, ±200 °C, 0..20 V), nothing is set without the header, never
// more malformed lines than lines, and the same text with CRLF line ends
// reads the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/battery.h"
#include "tests/support/crlf.h"

namespace {

void check(const jank::parsers::BatteryDump& d) {
  if (d.malformed_lines > d.lines) std::abort();
  if (!d.recognised && (d.malformed_lines != 0 || d.updates_stopped || d.level || d.scale || d.status ||
                        d.health || d.present || d.temperature_celsius || d.voltage_volts || d.ac_powered ||
                        d.usb_powered || d.wireless_powered || d.dock_powered || d.charge_counter_uah)) {
    std::abort();
  }
  if (d.status && (*d.status < 1 || *d.status > 5)) std::abort();
  if (d.health && (*d.health < 1 || *d.health > 7)) std::abort();
  if (d.scale && *d.scale <= 0) std::abort();
  if (d.level && (*d.level < 0 || *d.level > d.scale.value_or(100))) std::abort();
  if (d.level_fraction && (!d.level || !d.scale || *d.level_fraction < 0 || *d.level_fraction > 1)) std::abort();
  if (d.temperature_celsius && (*d.temperature_celsius < -200 || *d.temperature_celsius > 200)) std::abort();
  if (d.voltage_volts && (*d.voltage_volts < 0 || *d.voltage_volts > 20)) std::abort();
  if (jank::parsers::battery_plug_name(d).empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto lf = jank::parsers::parse_battery(text);
  check(lf);

  const std::string crlf = jank::test::crlf(text);
  const auto cr = jank::parsers::parse_battery(crlf);
  check(cr);
  if (cr.lines != lf.lines || cr.malformed_lines != lf.malformed_lines || cr.recognised != lf.recognised ||
      cr.level != lf.level || cr.temperature_celsius != lf.temperature_celsius || cr.status != lf.status) {
    std::abort();
  }
  return 0;
}
