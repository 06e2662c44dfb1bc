// What measuring costs the simulated device's frames (the `command-cost`
// control; docs/devsim.md, "The observer's cost"). Off by default: a
// command then changes nothing the apps draw.
//
// - `dumpsys gfxinfo PKG` runs in the app's process on its RenderThread,
//   which the app's frames need to draw: the dump holds it for the app cost,
//   and a frame that starts meanwhile draws its RenderThread half after it.
// - `dumpsys SurfaceFlinger …` runs on (or locks out) SurfaceFlinger's main
//   thread, which composes: a dump of c ns holds up the compositions that
//   would have started in it. A composition's own work is taken as a quarter
//   of the period T, so ⌊(c − ¾T)/T⌋ + 1 compositions miss and present a
//   period late with SurfaceFlinger CPU jank; the next ones made take them.
// The AOSP sources behind both are in docs/devsim.md.
#include <algorithm>

#include "devsim/json.h"
#include "devsim/model.h"

namespace jank::devsim {
namespace {

// Compositions owed at once at most: a cost of seconds holds up no more than
// this many (a bound, whatever the control asks).
constexpr std::uint64_t kMaxOwedMisses = 1000;

}  // namespace

void Device::set_command_cost(std::optional<std::int64_t> app_ns, std::optional<std::int64_t> sf_ns) {
  advance();
  if (app_ns) cost_app_ns_ = std::max<std::int64_t>(0, *app_ns);
  if (sf_ns) cost_sf_ns_ = std::max<std::int64_t>(0, *sf_ns);
}

void Device::gfxinfo_dumped(AppState& a) {
  if (cost_app_ns_ <= 0) return;
  command_work_ns_ += cost_app_ns_;
  a.render_busy_until = std::max(a.render_busy_until, now_mono()) + cost_app_ns_;
}

void Device::surfaceflinger_dumped() {
  command_work_ns_ += cost_sf_ns_;
  const std::int64_t iv = interval_ns();
  const std::int64_t own = iv / 4;  // a composition's own work
  if (cost_sf_ns_ <= 0 || iv <= 0 || cost_sf_ns_ + own <= iv) return;
  const auto misses = static_cast<std::uint64_t>((cost_sf_ns_ + own - iv) / iv) + 1;
  sf_owed_misses_ = std::min(kMaxOwedMisses, sf_owed_misses_ + misses);
}

std::int64_t Device::render_wait(const AppState& a, std::int64_t t, std::int64_t own) const {
  if (a.render_busy_until <= t) return 0;
  // The main thread's half runs as ever; the RenderThread's half waits.
  const std::int64_t done = std::max(t + own, a.render_busy_until + own / 2);
  return done - (t + own);
}

Json Device::observer_truth() const {
  return {{"app_cost_ms", fixed(static_cast<double>(cost_app_ns_) / 1e6, 3)},
          {"sf_cost_ms", fixed(static_cast<double>(cost_sf_ns_) / 1e6, 3)},
          {"sf_missed_compositions", sf_observer_misses_},
          {"command_work_ms", fixed(static_cast<double>(command_work_ns_) / 1e6, 3)}};
}

}  // namespace jank::devsim
