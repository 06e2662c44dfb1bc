#include "app/cli/replay_logcat.h"

#include "metrics/logcat_recorder.h"
#include "parsers/logcat_line.h"

namespace jank::app {
namespace {

constexpr std::size_t kHeadBytes = 64 * 1024;  // where the first timestamp is looked for

}  // namespace

parsers::LogcatStreamOptions logcat_replay_options(const ReplayOptions& o) {
  parsers::LogcatStreamOptions options;
  options.parse.default_year = o.year != 0 ? o.year : current_utc_year();
  options.patterns = o.patterns.get();
  return options;
}

void finish_logcat_replay(parsers::LogcatStream& stream, std::string_view head_text,
                          const parsers::LogcatStreamOptions& options, metrics::Store& store,
                          metrics::DeviceMetrics& device) {
  stream.finish();
  device.lines += stream.counts();
  if (const auto first = parsers::first_wall_time(head_text.substr(0, kHeadBytes), options.parse)) {
    store.note_time(device, *first);
  }
  if (stream.last_time().base == parsers::TimeBase::wall) store.note_time(device, stream.last_time().ns);
}

void replay_logcat_text(std::string_view text, const ReplayOptions& o, metrics::Store& store,
                        metrics::DeviceMetrics& device) {
  const parsers::LogcatStreamOptions options = logcat_replay_options(o);
  metrics::DeviceLogcatRecorder recorder(store, device, o.max_pattern_values);
  parsers::LogcatStream stream(recorder, options);
  stream.feed(text);
  finish_logcat_replay(stream, text, options, store, device);
}

}  // namespace jank::app
