// Every layout parser and the event extractors on one arbitrary line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parsers/logcat_events.h"
#include "parsers/logcat_line.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jank::parsers;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const std::string_view stripped = strip_tool_prefix(line);
  (void)buffer_separator(stripped);
  for (int l = static_cast<int>(LogLayout::brief); l <= static_cast<int>(LogLayout::logcatapp); ++l) {
    if (auto parsed = parse_log_line(stripped, static_cast<LogLayout>(l))) {
      (void)parse_skipped_frames(parsed->tag, parsed->message);
      (void)parse_davey(parsed->tag, parsed->message);
      (void)parse_process_event(parsed->tag, parsed->message);
    }
  }
  (void)detect_log_line(stripped);
  (void)parse_skipped_frames("Choreographer", line);
  (void)parse_davey("HWUI", line);
  (void)parse_process_event("ActivityManager", line);
  (void)parse_process_event("am_proc_start", line);
  return 0;
}
