#include "metrics/frametimeline_metrics.h"

#include <algorithm>
#include <cmath>

#include "metrics/state_io.h"

namespace jank::metrics {

std::string_view jank_label(std::size_t index) {
  if (index == 0) return "none";
  if (index > static_cast<std::size_t>(parsers::kJankBitCount)) return "unknown";
  return parsers::jank_bit_name(std::uint32_t{1} << (index - 1));
}

std::vector<std::size_t> jank_labels_of(std::uint32_t jank) {
  std::vector<std::size_t> out;
  for (int bit = 0; bit < parsers::kJankBitCount; ++bit) {
    if ((jank & (std::uint32_t{1} << bit)) != 0) out.push_back(static_cast<std::size_t>(bit) + 1);
  }
  if (out.empty()) out.push_back(0);
  return out;
}

template <typename T>
void FrameJoin::Waiting<T>::add(std::int64_t token, T value) {
  by_age_.emplace(next_, std::make_pair(token, std::move(value)));
  by_token_.emplace(token, next_);
  ++next_;
  while (by_age_.size() > kMaxWaiting) {
    const auto oldest = by_age_.begin();
    auto [b, e] = by_token_.equal_range(oldest->second.first);
    for (auto it = b; it != e; ++it) {
      if (it->second == oldest->first) {
        by_token_.erase(it);
        break;
      }
    }
    by_age_.erase(oldest);
  }
}

template <typename T>
template <typename Fits>
std::optional<T> FrameJoin::Waiting<T>::take(std::int64_t token, Fits fits) {
  auto [b, e] = by_token_.equal_range(token);
  for (auto it = b; it != e; ++it) {
    auto half = by_age_.find(it->second);
    if (half == by_age_.end() || !fits(half->second.second)) continue;
    T value = std::move(half->second.second);
    by_age_.erase(half);
    by_token_.erase(it);
    return value;
  }
  return std::nullopt;
}

namespace {

bool same_window(std::string_view a, std::string_view b) { return a.empty() || b.empty() || a == b; }

}  // namespace

std::optional<FrameJoin::Match> FrameJoin::verdict(std::int64_t token, std::string_view window, std::uint32_t jank) {
  if (token < 0) return std::nullopt;
  if (auto t = timings_.take(token, [&](const Timing& w) { return same_window(w.window, window); })) {
    return Match{jank, t->frame};
  }
  verdicts_.add(token, Verdict{std::string(window), jank});
  return std::nullopt;
}

std::optional<FrameJoin::Match> FrameJoin::timing(std::string_view window, const TimedFrame& frame) {
  if (frame.token < 0) return std::nullopt;
  if (auto v = verdicts_.take(frame.token, [&](const Verdict& w) { return same_window(w.window, window); })) {
    return Match{v->jank, frame};
  }
  timings_.add(frame.token, Timing{std::string(window), frame});
  return std::nullopt;
}

void FrameTimelineCounts::count(std::uint32_t jank, bool classified) {
  if (!classified) {
    ++unjudged;
    return;
  }
  ++frames;
  if ((jank & kJankyMask) != 0) ++janky;
  for (const std::size_t label : jank_labels_of(jank)) ++by_label[label];
}

void FrameTimelineCounts::join(const FrameJoin::Match& match) {
  ++joined;
  for (const std::size_t label : jank_labels_of(match.jank)) {
    for (std::size_t s = 0; s < kFrameStages; ++s) {
      if (!match.timing.stage_seconds[s]) continue;
      stage_seconds[label][s] += *match.timing.stage_seconds[s];
      ++stage_frames[label][s];
    }
  }
}

void FrameTimelineCounts::save(StateWriter& w) const {
  // The stage histograms of earlier versions are written as none; the sums
  // follow in their own record.
  w.tag("frametimeline").u64(frames).u64(janky).u64(unjudged).u64(joined).u64(by_label.size());
  for (const std::uint64_t n : by_label) w.u64(n);
  w.u64(0);
  if (joined == 0) return;
  w.newline().tag("ft_stages");
  for (std::size_t l = 0; l < kJankLabels; ++l) {
    for (std::size_t s = 0; s < kFrameStages; ++s) w.f64(stage_seconds[l][s]).u64(stage_frames[l][s]);
  }
}

bool FrameTimelineCounts::load(StateReader& r) {
  const std::uint64_t rejected = r.rejected();
  r.expect("frametimeline");
  frames = r.u64();
  janky = r.u64();
  unjudged = r.u64();
  joined = r.u64();
  if (r.count(kJankLabels) != kJankLabels) r.set_error("jank labels changed");
  std::uint64_t labelled = 0;
  for (auto& n : by_label) labelled = std::max(labelled, n = r.u64());
  stage_seconds = {};
  stage_frames = {};
  bool ok = true;
  // Files of earlier versions kept a histogram per label and stage: their
  // sums and counts are what is kept now.
  const std::uint64_t n = r.count(kJankLabels);
  for (std::uint64_t k = 0; k < n && !r.fail(); ++k) {
    const std::uint64_t label = r.u64();
    std::vector<Histogram> hists(kFrameStages, Histogram(buckets::stage_duration_seconds()));
    for (auto& h : hists) ok = h.load(r) && ok;
    if (label >= kJankLabels) {
      ok = false;
      continue;
    }
    for (std::size_t s = 0; s < kFrameStages; ++s) {
      stage_seconds[label][s] = hists[s].sum();
      stage_frames[label][s] = hists[s].count();
    }
  }
  if (r.peek("ft_stages")) {
    r.expect("ft_stages");
    for (std::size_t l = 0; l < kJankLabels; ++l) {
      for (std::size_t s = 0; s < kFrameStages; ++s) {
        stage_seconds[l][s] = r.f64();
        stage_frames[l][s] = r.u64();
        // Each joined frame counts a stage once under each of its labels.
        ok = ok && stage_seconds[l][s] >= 0 && std::isfinite(stage_seconds[l][s]) && stage_frames[l][s] <= joined;
      }
    }
  }
  // A frame is counted under at least one label and janky frames are frames.
  return ok && r.rejected() == rejected && janky <= frames && labelled <= frames && joined <= frames;
}

void FrameTimelineWindows::count(std::string_view window, std::uint32_t jank, std::size_t cap) {
  auto it = windows_.find(window);
  if (it == windows_.end()) {
    // _other_ does not take one of the cap's places.
    const std::size_t named = windows_.size() - (windows_.count(kOverflowWindow) ? 1 : 0);
    if (window.size() > kMaxWindowTitleBytes || named >= cap) window = kOverflowWindow;
    it = windows_.try_emplace(std::string(window)).first;
  }
  FrameTimelineWindowCounts& c = it->second;
  ++c.frames;
  if ((jank & kJankyMask) != 0) ++c.janky;
  for (const std::size_t label : jank_labels_of(jank)) ++c.by_label[label];
}

void FrameTimelineWindows::save(StateWriter& w) const {
  w.tag("ft_windows").u64(windows_.size());
  for (const auto& [title, c] : windows_) {
    w.str(title).u64(c.frames).u64(c.janky);
    for (const std::uint64_t n : c.by_label) w.u64(n);
  }
}

bool FrameTimelineWindows::load(StateReader& r) {
  const std::uint64_t rejected = r.rejected();
  r.expect("ft_windows");
  windows_.clear();
  bool ok = true;
  const std::uint64_t n = r.count(kMaxSaved);
  for (std::uint64_t k = 0; k < n && !r.fail(); ++k) {
    std::string title = r.str();
    FrameTimelineWindowCounts c;
    c.frames = r.u64();
    c.janky = r.u64();
    std::uint64_t labelled = 0;
    for (auto& v : c.by_label) labelled = std::max(labelled, v = r.u64());
    ok = ok && !title.empty() && title.size() <= kMaxWindowTitleBytes && c.janky <= c.frames && labelled <= c.frames;
    windows_.insert_or_assign(std::move(title), c);
  }
  return ok && r.rejected() == rejected;
}

}  // namespace jank::metrics
