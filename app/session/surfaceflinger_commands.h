// The SurfaceFlinger commands a session sends and the output each may
// bring, named once: the surface poller runs them, and `observer-test`
// runs the per-frame ones as the poller does.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "ingest/protocol.h"

namespace jank::app::sf {

inline constexpr std::size_t kListOutput = 4 << 20;     // a few hundred layers of up to ~300 bytes
inline constexpr std::size_t kLatencyOutput = 1 << 20;  // 127 rows of ~60 bytes
// 64 display frames, each with its app frames: a whole dump is ~1 KiB a
// frame, mostly time tables; the lines the counts need are a fifth of it.
inline constexpr std::size_t kFrameTimelineOutput = 8 << 20;
// Each layer row prints nine histograms of ~0.5 KiB: up to 200 rows.
inline constexpr std::size_t kTimeStatsOutput = 16 << 20;

inline constexpr const char* kListCommand = "dumpsys SurfaceFlinger --list";
inline constexpr const char* kFrameTimelineCommand =
    "dumpsys SurfaceFlinger --frametimeline -all | grep -e 'Number of display frames' -e 'Display Frame' "
    "-e 'Vsync Period' -e 'Layer - ' -e 'Token:' -e 'Owner Pid' -e 'Layer ID' -e 'Present State' "
    "-e 'Prediction State' -e 'Jank Type' -e 'Present Metadata'";
inline constexpr const char* kTimeStatsCommand = "dumpsys SurfaceFlinger --timestats -dump -enable";
inline constexpr int kFrameTimelineSdk = 31;  // Android 12: FrameTimeline and TimeStats' jank payload
// FrameTimeline keeps the newest display frames (metrics::kFrameTimelineDisplayFrames):
// asked again after 3/5 of the span they cover, it overflows only when an
// answer comes that much late.
inline std::chrono::nanoseconds frametimeline_poll_interval(std::chrono::nanoseconds window_span) {
  return window_span * 3 / 5;
}

inline std::string latency_command(const std::string& layer) {
  return ingest::quote_args({"dumpsys", "SurfaceFlinger", "--latency", layer});
}

}  // namespace jank::app::sf
