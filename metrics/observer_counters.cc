#include "metrics/observer_counters.h"

#include "parsers/sf_layers.h"

namespace jank::metrics {

CounterReading graphicsstats_reading(const parsers::GraphicsStatsDump& dump, std::string_view package) {
  CounterReading r;
  r.readable = dump.text != parsers::GraphicsStatsText::not_recognised && !dump.permission_denied;
  for (const auto& b : dump.blocks) {
    if (b.package != package || !b.stats.total_frames) continue;
    // Android 11+ prints a block per uid too: same key, summed.
    auto& [frames, janky] = r.blocks[std::to_string(b.version_code.value_or(-1)) + "@" +
                                     std::to_string(b.stats_start.value_or(-1))];
    frames += *b.stats.total_frames;
    janky += b.stats.janky_frames.value_or(0);
  }
  return r;
}

CounterReading timestats_reading(const parsers::TimeStatsDump& dump, std::string_view package) {
  CounterReading r;
  r.readable = dump.text == parsers::TimeStatsText::timestats && dump.has_jank_payload;
  r.epoch = dump.stats_start;
  for (const auto& l : dump.layers) {
    const auto layer = parsers::classify_layer(l.layer_name);
    if (!layer || layer->package != package) continue;
    auto& [frames, janky] = r.blocks[l.layer_name + "@" + std::to_string(l.refresh_rate_fps) + "/" +
                                     std::to_string(l.render_rate_fps)];
    frames += l.jank[parsers::TsJankField::total_timeline_frames];
    janky += l.jank[parsers::TsJankField::janky_frames];
  }
  return r;
}

PhaseCounts phase_counts(const CounterReading& before, const CounterReading& after) {
  PhaseCounts c;
  c.valid = before.readable && after.readable && before.epoch == after.epoch;
  for (const auto& [key, now] : after.blocks) {
    const auto was = before.blocks.find(key);
    const std::pair<std::uint64_t, std::uint64_t> base =
        was == before.blocks.end() ? std::pair<std::uint64_t, std::uint64_t>{0, 0} : was->second;
    if (now.first < base.first || now.second < base.second) {
      c.valid = false;
      continue;
    }
    c.frames += now.first - base.first;
    c.janky += now.second - base.second;
  }
  return c;
}

}  // namespace jank::metrics
