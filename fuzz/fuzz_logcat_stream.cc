// The whole logcat stream (encoding detection, line splitting, pre-filter,
// parsing) with the input cut into chunks whose sizes come from the input.
// Checks the accounting identity and that chunking does not change results,
// with and without custom log patterns (tagged ones go through the tag
// pre-filter, an untagged one makes every line a candidate).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "parsers/logcat_stream.h"

namespace {
struct Totals : jank::parsers::LogcatSink {
  std::uint64_t frames = 0, davey = 0, processes = 0;
  void on_skipped_frames(const jank::parsers::LogLine&, std::uint32_t n) override { frames += n; }
  void on_davey(const jank::parsers::LogLine&, const jank::parsers::DaveyFrame&) override { ++davey; }
  void on_process_event(const jank::parsers::LogLine&, const jank::parsers::ProcessEvent&) override { ++processes; }
  std::uint64_t hits = 0, labels = 0, values = 0;
  void on_pattern(const jank::parsers::LogLine&, const jank::parsers::LogPatternHit& hit) override {
    ++hits;
    labels += hit.label.size();
    values += hit.value_ok ? 1 : 0;
  }
};

std::shared_ptr<const jank::parsers::LogPatternSet> patterns(bool any_tag) {
  using jank::parsers::LogPatternSpec;
  LogPatternSpec anr{"anr", {"ActivityManager", "am_anr"}, 'W', "ANR in (\\S+)", "1", ""};
  LogPatternSpec gc{"gc", {"art", "Choreographer"}, 0, "paused (?P<ms>\\S*)ms", "", "ms"};
  LogPatternSpec both{"both", {"ActivityManager"}, 0, "(\\w+)=(\\d+)", "1", "2"};
  LogPatternSpec any{"any", {}, 0, "(frames|Davey)", "1", ""};
  std::vector<LogPatternSpec> specs = {anr, gc, both};
  if (any_tag) specs.push_back(any);
  std::vector<jank::parsers::LogPatternSet::Error> errors;
  auto set = jank::parsers::LogPatternSet::compile(specs, errors);
  if (!set) std::abort();
  return set;
}

// Every count of two streams over the same text.
void same(const jank::parsers::LogcatStream& a, const Totals& ta, const jank::parsers::LogcatStream& b,
          const Totals& tb) {
  const auto& x = a.counts();
  const auto& y = b.counts();
  if (x.received != x.parsed + x.unmatched + x.discarded_total()) std::abort();
  if (x.received != y.received || x.parsed != y.parsed || ta.frames != tb.frames || ta.davey != tb.davey ||
      ta.hits != tb.hits || ta.labels != tb.labels || ta.values != tb.values) {
    std::abort();
  }
}
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

  same(whole, whole_totals, chunked, chunked_totals);

  static const auto tagged = patterns(false), every = patterns(true);
  for (const auto* set : {tagged.get(), every.get()}) {
    options.patterns = set;
    Totals whole_hits, chunked_hits;
    LogcatStream a(whole_hits, options), b(chunked_hits, options);
    a.feed(text);
    a.finish();
    for (std::size_t at = 0; at < text.size(); at += chunk) b.feed(text.substr(at, chunk));
    b.finish();
    same(a, whole_hits, b, chunked_hits);
    // Patterns add matches, never change what the built-in lines count.
    if (whole_hits.frames != whole_totals.frames || whole_hits.davey != whole_totals.davey ||
        a.counts().received != whole.counts().received) {
      std::abort();
    }
  }
  return 0;
}
