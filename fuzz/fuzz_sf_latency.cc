// dumpsys SurfaceFlinger --latency parser on arbitrary text, and the present
// tracker fed the table twice (a poll and a repeat of it) and then the input
// split in two (two polls that overlap or not); then the input as a replay
// capture of many polls: every section is a view into it, fed in order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "metrics/present_tracker.h"
#include "parsers/sf_latency.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto table = jank::parsers::parse_sf_latency(text);
  jank::metrics::PresentTracker tracker;
  std::vector<jank::metrics::ActiveSpan> spans;
  tracker.observe(table, &spans);
  tracker.observe(table, &spans);
  tracker.observe(jank::parsers::parse_sf_latency(text.substr(0, size / 2)), &spans);
  tracker.observe(jank::parsers::parse_sf_latency(text.substr(size / 2)), &spans);
  jank::metrics::PresentTracker replayed;
  std::size_t covered = 0;
  for (const auto& section : jank::parsers::split_sf_latency_capture(text)) {
    if (section.text.data() < text.data() || section.text.data() + section.text.size() > text.data() + size) {
      std::abort();  // a section outside the capture
    }
    covered += section.text.size();
    replayed.observe(jank::parsers::parse_sf_latency(section.text), &spans);
  }
  if (covered > size) std::abort();
  return 0;
}
