// Turns successive `dumpsys SurfaceFlinger --timestats -dump` answers of one
// device into counters that only grow, whatever clears TimeStats in between.
//
// What clears it (frameworks/native TimeStats.cpp, Android 12-16):
//   - a statsd pull of atom 10062 (global info) zeroes every bucket's jank
//     payload and sets statsStart to the pull time; the layers are kept;
//   - a statsd pull of atom 10063 (layer info) empties the layers; statsStart
//     is kept;
//   - `--timestats -clear` does both (statsStart 0 while disabled);
//   - a SurfaceFlinger restart loses everything (empty answer until enabled).
// So a reset is decided per scope:
//   - buckets: statsStart changed, or a bucket present in the previous dump
//     went down;
//   - layers: a layer row present in the previous dump went down in any
//     counter (a statsStart change alone is a global pull, which keeps them);
//   - both: an empty answer (TimeStats holds nothing: what comes next is new).
// On a reset the scope's rows are added whole and its baselines forgotten.
// Otherwise a row adds what it grew by; a row not seen before is added whole;
// a row absent from the previous dump that went down was cleared meanwhile:
// added whole (a key reset). A row that disappears keeps its totals and its
// baseline (a truncated dump must not make it count twice when it returns).
// What cannot be seen: a clear followed, before the next dump, by every
// surviving row growing past its old values loses up to those old values;
// `-disable` then `-enable` moves statsStart without clearing anything and
// counts the buckets twice (the exporter issues neither).
//
// Keys: totals are kept per layer without its "#N" suffix
// (parsers::strip_layer_suffix), uid, refresh bucket, render bucket and game
// mode, so a recreated activity (new #N) continues its series; baselines are
// kept per exact row (with #N), since old and new layer can be listed side by
// side. At most max_layer_keys totals (and twice as many baselines) and
// max_bucket_keys buckets: rows beyond are counted as overflow, neither stored
// nor counted later (so never counted twice).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "parsers/timestats.h"

namespace jank::metrics {

struct TsBucketKey {
  int refresh_rate_fps = 0;
  int render_rate_fps = 0;
  auto operator<=>(const TsBucketKey&) const = default;
};

struct TsLayerKey {
  std::string layer;  // without the "#N" suffix
  std::int64_t uid = 0;
  int refresh_rate_fps = 0;
  int render_rate_fps = 0;
  parsers::TsGameMode game_mode = parsers::TsGameMode::not_printed;
  auto operator<=>(const TsLayerKey&) const = default;
};

struct TsLayerTotals {
  std::uint64_t total_frames = 0;
  std::uint64_t dropped_frames = 0;
  parsers::TsJankPayload jank;  // read by field: jank[parsers::TsJankField::sf_long_cpu]
  bool operator==(const TsLayerTotals&) const = default;
};

// What one dump did.
struct TsObservation {
  bool counted = false;       // a TimeStats text with its jank payload (or an empty answer) was taken in
  bool bucket_reset = false;  // the buckets' baselines were dropped
  bool layer_reset = false;   // the layers' baselines were dropped
  std::uint64_t overflow_rows = 0;
};

class TimeStatsTracker {
 public:
  static constexpr std::size_t kDefaultMaxLayerKeys = 256;
  static constexpr std::size_t kDefaultMaxBucketKeys = 64;

  explicit TimeStatsTracker(std::size_t max_layer_keys = kDefaultMaxLayerKeys,
                            std::size_t max_bucket_keys = kDefaultMaxBucketKeys);

  TsObservation observe(const parsers::TimeStatsDump& dump);

  // Loss-free totals since the tracker started.
  const std::map<TsLayerKey, TsLayerTotals>& layers() const { return layers_; }
  const std::map<TsBucketKey, parsers::TsJankPayload>& buckets() const { return buckets_; }

  std::uint64_t resets() const { return resets_; }              // dumps in which any scope reset
  std::uint64_t bucket_resets() const { return bucket_resets_; }
  std::uint64_t layer_resets() const { return layer_resets_; }
  std::uint64_t key_resets() const { return key_resets_; }      // single rows found cleared
  std::uint64_t overflow_rows() const { return overflow_rows_; }  // rows not stored (caps)
  std::uint64_t duplicate_rows() const { return duplicate_rows_; }  // a key printed twice in one dump: later ones ignored
  std::uint64_t ignored_dumps() const { return ignored_dumps_; }  // not TimeStats, or without a jank payload

  // Totals and baselines for the checkpoint: a restarted exporter goes on
  // from the device's next answer instead of counting everything since
  // statsStart again.
  void save(class StateWriter& w) const;
  // False when the record holds values that cannot be true together (the
  // tracker is then empty).
  bool load(class StateReader& r);

 private:
  template <typename Values>
  struct Baseline {
    Values values;
    std::uint64_t seen = 0;  // the dump it was last in
  };

  std::size_t max_layer_keys_;
  std::size_t max_bucket_keys_;
  std::map<TsLayerKey, TsLayerTotals> layers_;
  std::map<TsBucketKey, parsers::TsJankPayload> buckets_;
  std::map<TsLayerKey, Baseline<TsLayerTotals>> layer_base_;  // keyed by the exact row: layer with "#N"
  std::map<TsBucketKey, Baseline<parsers::TsJankPayload>> bucket_base_;
  std::optional<std::int64_t> stats_start_;
  std::uint64_t seq_ = 0;  // dumps taken in with a jank payload
  std::uint64_t resets_ = 0, bucket_resets_ = 0, layer_resets_ = 0, key_resets_ = 0;
  std::uint64_t overflow_rows_ = 0, duplicate_rows_ = 0, ignored_dumps_ = 0;
};

}  // namespace jank::metrics
