// dumpsys thermalservice parser on arbitrary text: whatever comes back is
// within the ranges Android prints (status 0..6, finite values, one entry
// per name), never more entries than lines, nothing without a recognised
// dump, and the same text with CRLF line ends reads the same. The store
// keeps at most its cap of sensors, each within the name limit.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "metrics/sources/thermal.h"
#include "metrics/store.h"
#include "parsers/thermal.h"
#include "tests/support/crlf.h"

namespace {

void check(const jank::parsers::ThermalDump& d) {
  using jank::parsers::ThermalSource;
  if (d.status && (*d.status < 0 || *d.status > 6)) std::abort();
  if (d.malformed_lines > d.lines) std::abort();
  if (d.temperatures.size() + d.cooling_devices.size() + d.malformed_lines > d.lines) std::abort();
  if (!d.recognised && (d.status || d.status_override || d.hal_ready || !d.temperatures.empty() ||
                        !d.cooling_devices.empty() || d.malformed_lines != 0)) {
    std::abort();
  }
  if (d.temperatures.empty() != (d.source == ThermalSource::none)) std::abort();
  std::set<std::string> names;
  for (const auto& t : d.temperatures) {
    if (t.name.empty() || !std::isfinite(t.value) || t.status < 0 || t.status > 6) std::abort();
    if (!names.insert(t.name).second) std::abort();
    if (jank::parsers::thermal_type_name(t.type).empty()) std::abort();
  }
  for (const auto& c : d.cooling_devices) {
    if (c.name.empty()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto lf = jank::parsers::parse_thermalservice(text);
  check(lf);

  const std::string crlf = jank::test::crlf(text);
  const auto cr = jank::parsers::parse_thermalservice(crlf);
  check(cr);
  if (cr.lines != lf.lines || cr.status != lf.status || cr.temperatures.size() != lf.temperatures.size() ||
      cr.malformed_lines != lf.malformed_lines || cr.recognised != lf.recognised) {
    std::abort();
  }

  jank::metrics::StoreOptions options;
  options.max_thermal_sensors_per_device = 4;
  jank::metrics::Store store(options);
  auto& d = store.device("f");
  jank::metrics::record_thermal(store, d, lf);
  const auto& t = *jank::metrics::thermal_of(d);
  if (t.temperatures.size() > 4 || t.lines != lf.lines || t.malformed_lines != lf.malformed_lines) std::abort();
  std::uint64_t dropped = 0;
  for (const auto n : t.dropped) dropped += n;
  if (t.temperatures.size() + dropped > lf.temperatures.size() + lf.non_finite_values + lf.duplicate_names) {
    std::abort();
  }
  for (const auto& r : t.temperatures) {
    if (r.name.size() > jank::metrics::kMaxThermalSensorName) std::abort();
  }
  return 0;
}
