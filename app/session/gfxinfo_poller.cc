#include "app/session/gfxinfo_poller.h"

#include <set>

#include "ingest/protocol.h"
#include "metrics/sources/gfxinfo.h"
#include "metrics/sources/skips.h"
#include "parsers/foreground_app.h"
#include "parsers/gfxinfo.h"
#include "parsers/names.h"

namespace jank::app {
namespace {

constexpr std::size_t kWindowOutput = 4 << 20;   // dumpsys window displays|windows

}  // namespace

std::vector<std::string> packages_to_poll(const config::Config& config, const metrics::DeviceMetrics& device,
                                          const std::optional<std::string>& foreground) {
  std::set<std::string> names(config.gfxinfo_packages.begin(), config.gfxinfo_packages.end());
  names.insert(device.pinned_packages.begin(), device.pinned_packages.end());  // apps open runs measure
  if (config.gfxinfo_discover) {
    if (foreground) names.insert(*foreground);
    for (const auto& [name, p] : device.packages) {
      const metrics::AppSkipState* skips = metrics::skips_of(p);
      const metrics::AppGfxinfoState* g = metrics::gfxinfo_of(p);
      if ((skips != nullptr && skips->skip_events > 0) || (g != nullptr && (g->has_gfxinfo || g->has_hwui_profile))) {
        names.insert(name);
      }
    }
  }
  std::vector<std::string> out;
  for (const auto& n : names) {
    if (parsers::valid_package_name(n) && n.rfind("pid:", 0) != 0 && n != metrics::kOverflowPackage &&
        n != metrics::kUnknownPackage) {
      out.push_back(n);
    }
  }
  return out;
}

std::string gfxinfo_command(const config::Config& config, const std::string& package, bool framestats) {
  std::vector<std::string> args = {"dumpsys", "gfxinfo", package};
  if (framestats) args.emplace_back("framestats");
  if (config.gfxinfo_reset_after_poll) args.emplace_back("reset");
  return ingest::quote_args(args);
}

GfxinfoPoller::GfxinfoPoller(PollerContext context, std::shared_ptr<PerFramePolicy> per_frame)
    : ctx_(std::move(context)), per_frame_(std::move(per_frame)) {}

void GfxinfoPoller::start(std::chrono::milliseconds first_round) {
  ctx_.after(first_round, [this] { round(); });
}

void GfxinfoPoller::poll_soon() {
  if (in_round_) {
    again_ = true;  // this round may have begun before the request: one more
    return;
  }
  ctx_.after(std::chrono::milliseconds(0), [this] { round(); });
}

void GfxinfoPoller::round() {
  in_round_ = true;
  again_ = false;
  round_began_ns_ = ctx_.host_now();
  auto start_polls = [this] {
    ctx_.shared.with_device(ctx_.serial, [this](metrics::DeviceMetrics& d) {
      queue_ = packages_to_poll(*ctx_.config, d, d.live.foreground);
      per_frame_->update(d, ctx_.host_now());
    });
    overflow_seen_ = false;
    poll_next();
  };
  if (!ctx_.config->gfxinfo_discover) return start_polls();
  ctx_.run(std::string(ctx_.release.window_dump_command()), kWindowOutput, [this, start_polls](ingest::ShellResult r) {
    if (!r.error) {
      auto app = parsers::parse_foreground_app(r.output);
      if (app && !app->focus_on_system_window) {
        ctx_.shared.with_device(ctx_.serial, [&](metrics::DeviceMetrics& d) { d.live.foreground = app->package; });
      }
    }
    start_polls();
  });
}

void GfxinfoPoller::poll_next() {
  if (queue_.empty()) {
    ctx_.shared.with_device(ctx_.serial,
                            [this](metrics::DeviceMetrics& d) { d.live.gfxinfo_round_begun_ns = round_began_ns_; });
    versions_.run_due([this] {
      in_round_ = false;  // only now: a round asked for meanwhile must not overlap the version polls
      // The ~120-frame window overflowed somewhere: come back sooner.
      const config::Seconds wait = again_          ? config::Seconds(0)
                                   : overflow_seen_ ? ctx_.config->gfxinfo_fast_poll_interval_seconds
                                                    : ctx_.config->gfxinfo_poll_interval_seconds;
      ctx_.after(std::chrono::duration_cast<std::chrono::milliseconds>(wait), [this] { round(); });
    });
    return;
  }
  const std::string package = queue_.back();
  queue_.pop_back();
  // Without framestats HWUI prints only its aggregate, cheaply: no rows.
  const bool framestats = per_frame_->polls(package);
  ctx_.run(gfxinfo_command(*ctx_.config, package, framestats), kGfxinfoOutput,
       [this, package, framestats](ingest::ShellResult r) {
         std::string result(ingest::shell_result_name(r));
         const parsers::GfxinfoDump dump = r.error ? parsers::GfxinfoDump{} : parsers::parse_gfxinfo(r.output);
         {
           std::lock_guard<std::mutex> lock(ctx_.shared.mutex);
           auto& d = ctx_.shared.store.device(ctx_.serial);
           if (!r.error && dump.processes.empty()) {
             result = "no_process";  // not running now
           } else if (!r.error) {
             auto overflows = [&]() -> std::uint64_t {
               const auto it = d.packages.find(package);
               const auto* g = it == d.packages.end() ? nullptr : metrics::gfxinfo_of(it->second);
               return g == nullptr ? 0 : g->framestats.overflows();
             };
             const std::uint64_t before = overflows();
             ctx_.shared.store.set_host_time(ctx_.host_now());
             if (!framestats) metrics::pause_framestats(d, package);
             metrics::record_gfxinfo(ctx_.shared.store, d, dump, ctx_.config->gfxinfo_reset_after_poll);
             if (overflows() > before) overflow_seen_ = true;
           }
           ++d.live.gfxinfo_polls[result];
         }
         versions_.seen(dump);
         poll_next();  // not under the lock: the runner may answer at once
       });
}

}  // namespace jank::app
