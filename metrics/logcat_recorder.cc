#include "metrics/logcat_recorder.h"

#include "metrics/sources/log_patterns.h"
#include "metrics/sources/skips.h"

namespace jank::metrics {
namespace {

std::int64_t wall_time_ns(const parsers::LogLine& line, bool& has_time) {
  has_time = line.time.base == parsers::TimeBase::wall;
  return has_time ? line.time.ns : 0;
}

}  // namespace

void DeviceLogcatRecorder::on_skipped_frames(const parsers::LogLine& line, std::uint32_t frames) {
  bool has_time = false;
  const std::int64_t t = wall_time_ns(line, has_time);
  record_skip(store_, device_, Store::package_label(device_, line.pid, line.package), t, has_time, frames);
}

void DeviceLogcatRecorder::on_davey(const parsers::LogLine& line, const parsers::DaveyFrame& davey) {
  bool has_time = false;
  const std::int64_t t = wall_time_ns(line, has_time);
  if (has_time) store_.note_time(device_, device_.clock.place(t));
  record_davey(store_, device_, Store::package_label(device_, line.pid, line.package), davey);
}

void DeviceLogcatRecorder::on_pattern(const parsers::LogLine& line, const parsers::LogPatternHit& hit) {
  bool has_time = false;
  const std::int64_t t = wall_time_ns(line, has_time);
  if (has_time) store_.note_time(device_, device_.clock.place(t));
  record_log_pattern(store_, device_, Store::package_label(device_, line.pid, line.package), hit, max_pattern_values_);
}

void DeviceLogcatRecorder::on_process_event(const parsers::LogLine& line, const parsers::ProcessEvent& event) {
  bool has_time = false;
  const std::int64_t t = wall_time_ns(line, has_time);
  if (has_time) store_.note_time(device_, device_.clock.place(t));
  store_.record_process(device_, event);
}

}  // namespace jank::metrics
