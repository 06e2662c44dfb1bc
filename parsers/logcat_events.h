// Extractors for the few log messages jank_exporter counts. Pure functions on
// an already parsed LogLine's tag and message.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace jank::parsers {

// Choreographer: "Skipped N frames!  The application may be doing too much work
// on its main thread." (final period optional). Requires tag "Choreographer".
// Returns N (≥ 1); nullopt for anything else, including "Frame time is … in the
// future" and N that does not fit in 32 bits.
std::optional<std::uint32_t> parse_skipped_frames(std::string_view tag, std::string_view message);

// HWUI "Davey! duration=1234ms; Flags=0, IntendedVsync=…, …" (tag OpenGLRenderer or HWUI).
struct DaveyFrame {
  std::int64_t duration_ms = 0;  // as printed
  // false when the duration is garbage: FrameCompleted/GpuCompleted were
  // INT64_MAX (unsignalled fence) or the duration exceeds one hour.
  bool duration_valid = true;
  std::int64_t flags = -1;       // -1 when the Flags field is absent
  std::int64_t intended_vsync = -1;
  std::int64_t frame_completed = -1;
};
std::optional<DaveyFrame> parse_davey(std::string_view tag, std::string_view message);

// Process lifecycle lines that map a pid to its process name.
struct ProcessEvent {
  enum class Kind : std::uint8_t { start, death };
  Kind kind = Kind::start;
  std::int32_t pid = -1;
  std::string_view process;  // "com.example.app" or "com.example.app:remote"
};
// Recognises ActivityManager "Start proc PID:NAME/UID for …", the pre-N form
// "Start proc NAME for … : pid=PID uid=…", "Process NAME (pid PID) has died…",
// "Killing PID:NAME/UID (adj N): reason", and the event-log tags am_proc_start,
// am_proc_died, am_kill ("[user,pid,…]" payloads).
std::optional<ProcessEvent> parse_process_event(std::string_view tag, std::string_view message);

}  // namespace jank::parsers
