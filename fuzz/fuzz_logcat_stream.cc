// The whole logcat stream (encoding detection, line splitting, pre-filter,
// parsing) with the input cut into chunks whose sizes come from the input.
// Checks the accounting identity and that chunking does not change results.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parsers/logcat_stream.h"

namespace {
struct Totals : jank::parsers::LogcatSink {
  std::uint64_t frames = 0, davey = 0, processes = 0;
  void on_skipped_frames(const jank::parsers::LogLine&, std::uint32_t n) override { frames += n; }
  void on_davey(const jank::parsers::LogLine&, const jank::parsers::DaveyFrame&) override { ++davey; }
  void on_process_event(const jank::parsers::LogLine&, const jank::parsers::ProcessEvent&) override { ++processes; }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jank::parsers;
  if (size < 1) return 0;
  const std::size_t chunk = 1 + data[0] % 97;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  LogcatStreamOptions options;
  options.max_line_bytes = 256;  // small cap so that the fuzzer reaches the too_long paths

  Totals whole_totals, chunked_totals;
  LogcatStream whole(whole_totals, options), chunked(chunked_totals, options);
  whole.feed(text);
  whole.finish();
  for (std::size_t at = 0; at < text.size(); at += chunk) chunked.feed(text.substr(at, chunk));
  chunked.finish();

  const LineCounts& a = whole.counts();
  const LineCounts& b = chunked.counts();
  if (a.received != a.parsed + a.unmatched + a.discarded_total()) std::abort();
  if (a.received != b.received || a.parsed != b.parsed || whole_totals.frames != chunked_totals.frames ||
      whole_totals.davey != chunked_totals.davey) {
    std::abort();
  }
  return 0;
}
