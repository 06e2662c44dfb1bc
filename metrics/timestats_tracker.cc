#include "metrics/timestats_tracker.h"

#include <set>

#include "metrics/state_io.h"
#include "parsers/sf_layers.h"

namespace jank::metrics {

namespace {

bool went_down(const parsers::TsJankPayload& cur, const parsers::TsJankPayload& base) {
  for (std::size_t i = 0; i < parsers::kTsJankFieldCount; ++i) {
    if (cur.counts[i] < base.counts[i]) return true;
  }
  return false;
}

bool went_down(const TsLayerTotals& cur, const TsLayerTotals& base) {
  return cur.total_frames < base.total_frames || cur.dropped_frames < base.dropped_frames ||
         went_down(cur.jank, base.jank);
}

// Adds what `cur` grew by since `base`, or all of it without a base. Callers
// have checked that nothing went down.
void add(parsers::TsJankPayload& to, const parsers::TsJankPayload& cur, const parsers::TsJankPayload* base) {
  for (std::size_t i = 0; i < parsers::kTsJankFieldCount; ++i) {
    to.counts[i] += cur.counts[i] - (base != nullptr ? base->counts[i] : 0);
  }
}

void add(TsLayerTotals& to, const TsLayerTotals& cur, const TsLayerTotals* base) {
  to.total_frames += cur.total_frames - (base != nullptr ? base->total_frames : 0);
  to.dropped_frames += cur.dropped_frames - (base != nullptr ? base->dropped_frames : 0);
  add(to.jank, cur.jank, base != nullptr ? &base->jank : nullptr);
}

TsLayerKey row_key_of(const parsers::TsLayer& l) {
  return {l.layer_name, l.uid, l.refresh_rate_fps, l.render_rate_fps, l.game_mode};
}

TsLayerTotals totals_of(const parsers::TsLayer& l) { return {l.total_frames, l.dropped_frames, l.jank}; }

}  // namespace

TimeStatsTracker::TimeStatsTracker(std::size_t max_layer_keys, std::size_t max_bucket_keys)
    : max_layer_keys_(max_layer_keys), max_bucket_keys_(max_bucket_keys) {}

TsObservation TimeStatsTracker::observe(const parsers::TimeStatsDump& dump) {
  TsObservation out;
  if (dump.text == parsers::TimeStatsText::not_recognised ||
      (dump.text == parsers::TimeStatsText::timestats && !dump.has_jank_payload)) {
    ++ignored_dumps_;  // nothing learnt (Android 11, a dump cut before its jank payload, an error)
    return out;
  }
  out.counted = true;
  if (dump.text == parsers::TimeStatsText::empty) {
    // statsStart is 0: never enabled, cleared while disabled, or SurfaceFlinger
    // restarted. Whatever comes next started from zero.
    if (!layer_base_.empty() || !bucket_base_.empty() || stats_start_) {
      layer_base_.clear();
      bucket_base_.clear();
      stats_start_.reset();
      ++resets_;
      ++bucket_resets_;
      ++layer_resets_;
      out.bucket_reset = out.layer_reset = true;
    }
    return out;
  }

  const std::uint64_t previous = seq_++;
  // Only a row of the previous dump dates a clear to "since the previous
  // dump"; an older baseline that went down says nothing about the others.
  // A key printed twice counts once, here as below: its first row.
  bool bucket_reset = dump.stats_start && stats_start_ && *dump.stats_start != *stats_start_;
  std::set<TsBucketKey> buckets;
  for (const auto& g : dump.global) {
    const TsBucketKey key{g.refresh_rate_fps, g.render_rate_fps};
    if (!buckets.insert(key).second) continue;
    const auto it = bucket_base_.find(key);
    if (it != bucket_base_.end() && it->second.seen == previous && went_down(g.jank, it->second.values))
      bucket_reset = true;
  }
  bool layer_reset = false;
  std::set<TsLayerKey> rows;  // this dump's rows: their baselines are never evicted
  for (const auto& l : dump.layers) {
    TsLayerKey row = row_key_of(l);
    const auto it = layer_base_.find(row);
    if (!rows.insert(std::move(row)).second) continue;
    if (it != layer_base_.end() && it->second.seen == previous && went_down(totals_of(l), it->second.values))
      layer_reset = true;
  }
  if (bucket_reset) {
    bucket_base_.clear();
    ++bucket_resets_;
  }
  if (layer_reset) {
    layer_base_.clear();
    ++layer_resets_;
  }
  if (bucket_reset || layer_reset) ++resets_;
  out.bucket_reset = bucket_reset;
  out.layer_reset = layer_reset;

  for (const auto& g : dump.global) {
    const TsBucketKey key{g.refresh_rate_fps, g.render_rate_fps};
    auto base = bucket_base_.find(key);
    if (base != bucket_base_.end() && base->second.seen == seq_) {
      ++duplicate_rows_;
      continue;
    }
    auto total = buckets_.find(key);
    if (total == buckets_.end()) {
      if (buckets_.size() >= max_bucket_keys_) {
        ++out.overflow_rows;
        continue;
      }
      total = buckets_.emplace(key, parsers::TsJankPayload{}).first;
    }
    const parsers::TsJankPayload* from = nullptr;
    if (base != bucket_base_.end()) {
      if (went_down(g.jank, base->second.values)) {
        ++key_resets_;
      } else {
        from = &base->second.values;
      }
    }
    add(total->second, g.jank, from);
    bucket_base_[key] = {g.jank, seq_};
  }

  const std::size_t max_baselines = 2 * max_layer_keys_;
  for (const auto& l : dump.layers) {
    TsLayerKey row = row_key_of(l);
    auto base = layer_base_.find(row);
    if (base != layer_base_.end() && base->second.seen == seq_) {
      ++duplicate_rows_;
      continue;
    }
    TsLayerKey key = row;
    key.layer = std::string(parsers::strip_layer_suffix(row.layer));
    auto total = layers_.find(key);
    if (total == layers_.end() && layers_.size() >= max_layer_keys_) {
      ++out.overflow_rows;
      continue;
    }
    if (base == layer_base_.end() && layer_base_.size() >= max_baselines) {
      // Room for a new row: forget the baseline of the row gone longest (if
      // it ever comes back it is added whole).
      auto oldest = layer_base_.end();
      for (auto it = layer_base_.begin(); it != layer_base_.end(); ++it) {
        if (rows.count(it->first) == 0 && (oldest == layer_base_.end() || it->second.seen < oldest->second.seen))
          oldest = it;
      }
      if (oldest == layer_base_.end()) {
        ++out.overflow_rows;
        continue;
      }
      layer_base_.erase(oldest);
    }
    if (total == layers_.end()) total = layers_.emplace(std::move(key), TsLayerTotals{}).first;
    const TsLayerTotals cur = totals_of(l);
    const TsLayerTotals* from = nullptr;
    if (base != layer_base_.end()) {
      if (went_down(cur, base->second.values)) {
        ++key_resets_;
      } else {
        from = &base->second.values;
      }
    }
    add(total->second, cur, from);
    layer_base_[std::move(row)] = {cur, seq_};
  }
  overflow_rows_ += out.overflow_rows;
  if (dump.stats_start) stats_start_ = dump.stats_start;
  return out;
}

namespace {

void save_payload(StateWriter& w, const parsers::TsJankPayload& p) {
  for (const std::uint64_t n : p.counts) w.u64(n);
}

void load_payload(StateReader& r, parsers::TsJankPayload& p) {
  for (auto& n : p.counts) n = r.u64();
}

void save_bucket_key(StateWriter& w, const TsBucketKey& k) { w.i64(k.refresh_rate_fps).i64(k.render_rate_fps); }

// Rates are rounded to 30 fps by SurfaceFlinger: anything beyond 10 000 is no rate.
bool load_bucket_key(StateReader& r, TsBucketKey& k) {
  const std::int64_t refresh = r.i64(), render = r.i64();
  if (refresh < 0 || refresh > 10'000 || render < 0 || render > 10'000) return false;
  k.refresh_rate_fps = static_cast<int>(refresh);
  k.render_rate_fps = static_cast<int>(render);
  return true;
}

void save_layer(StateWriter& w, const TsLayerKey& k, const TsLayerTotals& t) {
  w.str(k.layer).i64(k.uid).i64(k.refresh_rate_fps).i64(k.render_rate_fps).u64(static_cast<std::uint64_t>(k.game_mode));
  w.u64(t.total_frames).u64(t.dropped_frames);
  save_payload(w, t.jank);
}

bool load_layer(StateReader& r, TsLayerKey& k, TsLayerTotals& t) {
  k.layer = r.str();
  k.uid = r.i64();
  TsBucketKey rates;
  bool ok = load_bucket_key(r, rates);
  k.refresh_rate_fps = rates.refresh_rate_fps;
  k.render_rate_fps = rates.render_rate_fps;
  const std::uint64_t mode = r.u64();
  ok = ok && mode <= static_cast<std::uint64_t>(parsers::TsGameMode::other);
  k.game_mode = ok ? static_cast<parsers::TsGameMode>(mode) : parsers::TsGameMode::not_printed;
  t.total_frames = r.u64();
  t.dropped_frames = r.u64();
  load_payload(r, t.jank);
  return ok;
}

}  // namespace

void TimeStatsTracker::save(StateWriter& w) const {
  w.tag("timestats").u64(seq_).boolean(stats_start_.has_value()).i64(stats_start_.value_or(0));
  w.u64(resets_).u64(bucket_resets_).u64(layer_resets_).u64(key_resets_);
  w.u64(overflow_rows_).u64(duplicate_rows_).u64(ignored_dumps_);
  w.newline().u64(buckets_.size());
  for (const auto& [k, p] : buckets_) {
    save_bucket_key(w, k);
    save_payload(w, p);
  }
  w.newline().u64(bucket_base_.size());
  for (const auto& [k, b] : bucket_base_) {
    save_bucket_key(w, k);
    save_payload(w, b.values);
    w.u64(b.seen);
  }
  w.newline().u64(layers_.size());
  for (const auto& [k, t] : layers_) {
    w.newline();
    save_layer(w, k, t);
  }
  w.newline().u64(layer_base_.size());
  for (const auto& [k, b] : layer_base_) {
    w.newline();
    save_layer(w, k, b.values);
    w.u64(b.seen);
  }
}

bool TimeStatsTracker::load(StateReader& r) {
  const std::uint64_t rejected = r.rejected();
  r.expect("timestats");
  seq_ = r.u64();
  const bool has_start = r.boolean();
  const std::int64_t start = r.i64();
  stats_start_ = has_start ? std::optional<std::int64_t>(start) : std::nullopt;
  resets_ = r.u64();
  bucket_resets_ = r.u64();
  layer_resets_ = r.u64();
  key_resets_ = r.u64();
  overflow_rows_ = r.u64();
  duplicate_rows_ = r.u64();
  ignored_dumps_ = r.u64();
  buckets_.clear();
  bucket_base_.clear();
  layers_.clear();
  layer_base_.clear();
  bool ok = true;
  std::uint64_t n = r.count(max_bucket_keys_);
  for (std::uint64_t i = 0; i < n && !r.fail(); ++i) {
    TsBucketKey k;
    ok = load_bucket_key(r, k) && ok;
    load_payload(r, buckets_[k]);
  }
  n = r.count(max_bucket_keys_);
  for (std::uint64_t i = 0; i < n && !r.fail(); ++i) {
    TsBucketKey k;
    ok = load_bucket_key(r, k) && ok;
    Baseline<parsers::TsJankPayload> b;
    load_payload(r, b.values);
    b.seen = r.u64();
    ok = ok && b.seen <= seq_;
    bucket_base_[k] = b;
  }
  n = r.count(max_layer_keys_);
  for (std::uint64_t i = 0; i < n && !r.fail(); ++i) {
    TsLayerKey k;
    TsLayerTotals t;
    ok = load_layer(r, k, t) && ok;
    layers_[std::move(k)] = t;
  }
  n = r.count(2 * max_layer_keys_);
  for (std::uint64_t i = 0; i < n && !r.fail(); ++i) {
    TsLayerKey k;
    Baseline<TsLayerTotals> b;
    ok = load_layer(r, k, b.values) && ok;
    b.seen = r.u64();
    ok = ok && b.seen <= seq_;
    layer_base_[std::move(k)] = b;
  }
  ok = ok && r.rejected() == rejected && !r.fail();
  if (!ok) *this = TimeStatsTracker(max_layer_keys_, max_bucket_keys_);
  return ok;
}

}  // namespace jank::metrics
