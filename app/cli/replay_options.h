// `jank_exporter replay`'s command line: its options, their help and their
// checks (docs: README.md, "jank_exporter replay").
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "metrics/log_pattern_counts.h"
#include "parsers/log_patterns.h"

namespace jank::app {

struct ReplayOptions {
  unsigned threads = 0;  // 0: one per core
  std::string serial = "replay";
  double refresh_hz = 60;
  bool refresh_given = false;  // --refresh-rate was given
  std::chrono::seconds sm_window{60};  // --window-seconds
  int year = 0;
  std::string layer;   // for --latency captures that do not name theirs
  std::string config;  // --config: its log_patterns are counted
  std::shared_ptr<const parsers::LogPatternSet> patterns;
  std::size_t max_pattern_values = metrics::kDefaultPatternValues;
  std::vector<std::string> files;
};

// The UTC year now: what logcat layouts without a year are taken to be in
// unless --year says otherwise.
int current_utc_year();

// Parses `args` (what follows "replay") into `o`. nullopt: go on; else the
// exit status, the help written to `out` or the usage error to `err`.
std::optional<int> parse_replay_options(const std::vector<std::string>& args, ReplayOptions& o, std::ostream& out,
                                        std::ostream& err);

}  // namespace jank::app
