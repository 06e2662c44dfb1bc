#include "metrics/sources/power.h"

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"android_display_power_state", FamilyType::gauge, "",
     "The panel's power state from dumpsys power (on, off, doze, unknown): 1 for the current one.", "serial,state"},
};
constexpr const FamilySpec& kScreen = kFamilies[0];
// Declared by the layers module with SurfaceFlinger's input (sources/layers);
// power's lines are its source="power". A copy is found by its name.
constexpr FamilySpec kSurfaceLines = {"jank_exporter_surfaceflinger_lines_total", FamilyType::counter, "lines", "",
                                      "serial,source,result"};

}  // namespace

const PowerSource& power_source() {
  static const PowerSource source;
  return source;
}

std::span<const FamilySpec> PowerSource::families() const { return kFamilies; }

bool PowerSource::checkpoint_state(Checkpoint& c, PowerState& p) const {
  c.count(p.lines).count(p.malformed_lines);
  return c.valid() && p.malformed_lines <= p.lines;
}

void PowerSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet& dev, std::int64_t,
                          CollectAt at) const {
  const PowerState* p = find(d);
  if (at == CollectAt::display) {
    if (p == nullptr || !p->screen) return;
    for (const auto s : {parsers::ScreenPower::on, parsers::ScreenPower::off, parsers::ScreenPower::doze,
                         parsers::ScreenPower::unknown}) {
      f.sample(kScreen, dev, Extra{"state", parsers::screen_power_name(s)}, *p->screen == s ? 1 : 0);
    }
    return;
  }
  // Among SurfaceFlinger's lines, zeros too: the device is polled for both.
  const LabelSet labels = f.labels({{"serial", d.serial}, {"source", "power"}});
  const std::uint64_t lines = p == nullptr ? 0 : p->lines, malformed = p == nullptr ? 0 : p->malformed_lines;
  f.sample(kSurfaceLines, labels, Extra{"result", "parsed"}, count_value(lines - malformed));
  f.sample(kSurfaceLines, labels, Extra{"result", "discarded"}, count_value(malformed));
}

void record_power_state(const Store& store, DeviceMetrics& device, const parsers::PowerState& power) {
  auto& p = power_source().state(device);
  p.lines += power.lines;
  p.malformed_lines += power.malformed_lines;
  p.screen = power.screen();
  if (p.screen != parsers::ScreenPower::on && store.host_time() != 0) p.not_on_ns = store.host_time();
}

const PowerState* power_of(const DeviceMetrics& device) { return power_source().find(device); }

}  // namespace jank::metrics
