#include "app/cli/replay_dumps.h"

#include <utility>
#include <vector>

#include "metrics/sources/display.h"
#include "metrics/sources/frametimeline.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/power.h"
#include "metrics/sources/thermal.h"
#include "metrics/sources/timestats.h"
#include "parsers/frametimeline.h"
#include "parsers/gfxinfo.h"
#include "parsers/power_state.h"
#include "parsers/sf_latency.h"
#include "parsers/sf_layers.h"
#include "parsers/thermal.h"
#include "parsers/time_units.h"
#include "parsers/timestats.h"

namespace jank::app {
namespace {

// One or more --latency outputs of app layers, each under the layer its
// command line names (else the previous one's, else --layer), counted as the
// daemon counts its polls. Returns an error message or "".
std::string replay_latency(const std::string& name, std::string_view text, metrics::Store& store,
                           metrics::DeviceMetrics& device, std::string& layer_name, std::ostream& err) {
  std::string skipped;
  for (const auto& section : parsers::split_sf_latency_capture(text)) {
    if (!section.layer.empty()) layer_name = section.layer;
    const parsers::SfLatency table = parsers::parse_sf_latency(section.text);
    if (table.refresh_period_ns && *table.refresh_period_ns > 0) {
      // A period no display has leaves the rate as it was.
      const double hz = parsers::units::rate_of_period_ns(*table.refresh_period_ns);
      if (metrics::plausible_refresh_hz(hz)) metrics::record_refresh_rate(device, hz, device.refresh_hz);
    }
    if (layer_name.empty()) {
      if (table.rows.empty()) continue;  // a period alone: only the refresh rate
      return "SurfaceFlinger --latency rows without a layer name: keep the command line "
             "(... --latency NAME) in the capture or give --layer NAME";
    }
    const auto layer = parsers::classify_layer(layer_name);
    if (!layer) {
      if (layer_name != skipped) {  // once per run of polls of the same layer
        err << "jank_exporter replay: " << name << ": layer \"" << layer_name
            << "\" is not an app window or SurfaceView layer; its " << table.rows.size()
            << " rows are not counted (the daemon does not follow it either)\n";
        skipped = layer_name;
      }
      continue;
    }
    metrics::record_layer_latency(store, device, *layer, table);
  }
  return "";
}

}  // namespace

std::string record_dump(parsers::InputKind kind, const std::string& name, std::string_view text,
                        metrics::Store& store, metrics::DeviceMetrics& device, std::string& layer_name,
                        std::ostream& err) {
  switch (kind) {
    case parsers::InputKind::gfxinfo:
      metrics::record_gfxinfo(store, device, parsers::parse_gfxinfo(text));
      return "";
    case parsers::InputKind::thermal:
      metrics::record_thermal(store, device, parsers::parse_thermalservice(text));
      return "";
    case parsers::InputKind::power_state:
      metrics::record_power_state(store, device, parsers::parse_power_state(text));
      return "";
    case parsers::InputKind::sf_layer_list:
      metrics::record_layer_list(device, parsers::parse_sf_layer_list(text));
      return "";
    case parsers::InputKind::sf_latency:
      return replay_latency(name, text, store, device, layer_name, err);
    case parsers::InputKind::frametimeline: {
      // Polls in a row count each app frame once, as live. Only -all polls
      // hold the whole window; a -jank list (janky display frames only,
      // printed before -all's when both are asked) repeats frames -all has.
      std::vector<parsers::FrameTimelineDump> polls;
      for (const std::string_view poll : parsers::split_frametimeline_polls(text)) {
        auto dump = parsers::parse_frametimeline(poll);
        if (dump.display_frame_count) polls.push_back(std::move(dump));
      }
      if (polls.empty()) {
        return "a --frametimeline capture without -all: -jank lists only janky display frames, which gives "
               "no frame totals (capture `dumpsys SurfaceFlinger --frametimeline -all`)";
      }
      for (const auto& dump : polls) metrics::record_frametimeline(store, device, dump);
      return "";
    }
    case parsers::InputKind::timestats:
      // Dumps in a row: resets between them are taken in as live.
      for (const std::string_view dump : parsers::split_timestats_dumps(text)) {
        metrics::record_timestats(device, parsers::parse_timestats(dump));
      }
      return "";
    case parsers::InputKind::logcat:
      break;
  }
  return "";
}

}  // namespace jank::app
