// A logcat capture through the log pipeline as `replay` reads one: the
// stream's options from replay's, and what the end of a capture records.
#pragma once

#include <string_view>

#include "app/cli/replay_options.h"
#include "metrics/store.h"
#include "parsers/logcat_stream.h"

namespace jank::app {

parsers::LogcatStreamOptions logcat_replay_options(const ReplayOptions& o);
// After the capture's last byte: the stream finished, its counts and its
// first and last times (from `head_text`, its decoded start) recorded.
void finish_logcat_replay(parsers::LogcatStream& stream, std::string_view head_text,
                          const parsers::LogcatStreamOptions& options, metrics::Store& store,
                          metrics::DeviceMetrics& device);
// A whole capture held in memory (a bug report's system log).
void replay_logcat_text(std::string_view text, const ReplayOptions& o, metrics::Store& store,
                        metrics::DeviceMetrics& device);

}  // namespace jank::app
