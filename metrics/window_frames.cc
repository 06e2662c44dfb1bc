#include "metrics/window_frames.h"

#include <cmath>

#include "metrics/state_io.h"
#include "parsers/time_units.h"
#include "parsers/utf8.h"

namespace jank::metrics {
namespace {

constexpr std::string_view kViewRoot = "/android.view.ViewRootImpl@";
constexpr std::size_t kMaxWindowRecords = 4096;

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

bool plausible(const WindowCounts& c) {
  std::uint64_t in_buckets = 0;
  for (const std::uint64_t n : c.duration.counts()) in_buckets += n;
  return c.janky <= c.frames && c.duration.count() == c.frames && in_buckets == c.frames &&
         c.duration.sum() >= 0 && std::isfinite(c.duration.sum());
}

}  // namespace

WindowCounts::WindowCounts() : duration(buckets::frame_duration_seconds()) {}

std::string WindowFrames::title_of(std::string_view name) {
  if (const auto at = name.find(kViewRoot); at != std::string_view::npos && at > 0) name = name.substr(0, at);
  name = parsers::utf8_prefix(name, kMaxWindowTitleBytes);
  return name.empty() ? std::string(kUnnamedWindow) : std::string(name);
}

void WindowFrames::add(std::string_view window_name, const std::vector<CountedFrame>& frames, std::size_t cap) {
  if (frames.empty()) return;  // a window gets a series once it drew
  std::string title = title_of(window_name);
  auto it = windows_.find(title);
  if (it == windows_.end()) {
    const std::size_t named = windows_.size() - (windows_.count(kOverflowWindow) != 0 ? 1 : 0);
    if (named >= cap) {
      if (overflowed_titles_.size() >= kMaxRemembered) overflowed_titles_.clear();
      if (overflowed_titles_.insert(fnv1a(title)).second) ++overflowed_;
      title = std::string(kOverflowWindow);
    }
    it = windows_.try_emplace(std::move(title)).first;
  }
  WindowCounts& c = it->second;
  for (const CountedFrame& f : frames) {
    ++c.frames;
    if (f.janky) ++c.janky;
    c.duration.observe(parsers::units::seconds_of_ns(f.duration_ns));
  }
}

void WindowFrames::save(StateWriter& w) const {
  w.tag("windows").u64(windows_.size());
  for (const auto& [title, c] : windows_) {
    w.str(title).u64(c.frames).u64(c.janky);
    c.duration.save(w);
  }
  w.u64(overflowed_).u64(overflowed_titles_.size());
  for (const std::uint64_t h : overflowed_titles_) w.hash(h);
}

bool WindowFrames::load(StateReader& r) {
  const std::uint64_t rejected = r.rejected();
  windows_.clear();
  overflowed_titles_.clear();
  r.expect("windows");
  bool ok = true;
  const std::uint64_t n = r.count(kMaxWindowRecords);
  for (std::uint64_t i = 0; i < n && !r.fail(); ++i) {
    std::string title = r.str();
    WindowCounts c;
    c.frames = r.u64();
    c.janky = r.u64();
    ok = c.duration.load(r) && ok;
    ok = ok && plausible(c) && !title.empty() && title.size() <= kMaxWindowTitleBytes;
    ok = windows_.try_emplace(std::move(title), std::move(c)).second && ok;
  }
  overflowed_ = r.u64();
  const std::uint64_t remembered = r.count(kMaxRemembered);
  for (std::uint64_t i = 0; i < remembered && !r.fail(); ++i) overflowed_titles_.insert(r.hash());
  return ok && !r.fail() && r.rejected() == rejected && overflowed_titles_.size() == remembered &&
         overflowed_ >= remembered;
}

}  // namespace jank::metrics
