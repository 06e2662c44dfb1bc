// dumpsys SurfaceFlinger --frametimeline parser on arbitrary text, and the
// tracker fed the dump, a repeat of it and its two halves: every frame it
// reports has a token, and a repeat reports nothing new; the split of a
// capture into polls covers the text exactly.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "metrics/frametimeline_tracker.h"
#include "parsers/frametimeline.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto dump = jank::parsers::parse_frametimeline(text);
  jank::metrics::FrameTimelineTracker tracker;
  for (const auto& f : tracker.observe(dump)) {
    if (f.token < 0) std::abort();
  }
  // Final frames of a dump seen twice are never reported twice.
  for (const auto& f : tracker.observe(dump)) {
    if (f.classified) std::abort();
  }
  tracker.observe(jank::parsers::parse_frametimeline(text.substr(0, size / 2)));
  tracker.observe(jank::parsers::parse_frametimeline(text.substr(size / 2)));
  // Split into polls (replay): the pieces are the text, in order, nothing lost.
  std::size_t at = 0;
  for (const std::string_view poll : jank::parsers::split_frametimeline_polls(text)) {
    if (poll.empty() || poll.data() != text.data() + at) std::abort();
    at += poll.size();
  }
  if (at != size) std::abort();
  return 0;
}
