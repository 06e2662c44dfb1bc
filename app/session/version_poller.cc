#include "app/session/version_poller.h"

#include <algorithm>

#include "app/core/shared_state.h"
#include "ingest/protocol.h"
#include "metrics/sources/versions.h"
#include "parsers/names.h"
#include "parsers/time_units.h"

namespace jank::app {
namespace {

// The grep leaves a few lines per package block; a dump without it can be
// hundreds of KiB, and either stays far under this.
constexpr std::size_t kPackageOutput = 256 << 10;

}  // namespace

void VersionSchedule::seen(std::string_view process, std::int32_t pid) {
  const std::string_view base = metrics::base_package(process);
  if (base.empty() || pid <= 0) return;
  auto it = packages_.find(base);
  if (it == packages_.end()) {
    if (packages_.size() >= capacity_) return;
    it = packages_.emplace(std::string(base), Entry{}).first;
  }
  Entry& e = it->second;
  auto p = e.pids.find(process);
  if (p == e.pids.end()) {
    e.pids.emplace(std::string(process), pid);
  } else if (p->second != pid) {
    p->second = pid;
    e.restarted = true;
  }
}

std::vector<std::string> VersionSchedule::due(std::int64_t now_ns) const {
  std::vector<std::string> out;
  for (const auto& [name, e] : packages_) {
    if (!e.asked || e.restarted || now_ns >= e.next_ns) out.push_back(name);
  }
  return out;
}

void VersionSchedule::asked(std::string_view package, std::int64_t now_ns, bool answered) {
  const auto it = packages_.find(metrics::base_package(package));
  if (it == packages_.end()) return;
  Entry& e = it->second;
  e.asked = true;
  e.restarted = false;
  e.next_ns = now_ns + (answered ? interval_ns_ : std::min(interval_ns_, kRetryNs));
}

std::string_view package_poll_result(const ingest::ShellResult& r, const std::optional<parsers::PackageInfo>& info) {
  if (r.error) return ingest::shell_result_name(r);
  if (!info || (!info->version_code && !info->version_name)) {
    return r.output.find("Unable to find package") != std::string::npos ? "not_found" : "unrecognised";
  }
  return ingest::shell_result_name(r);
}

std::string package_command(const std::string& package) {
  // Fixed strings (-F): "Package [" is no regular expression. The header
  // lines keep the parser's block structure: the package's own block, the
  // hidden system copy's section, and the not-installed answer.
  return ingest::quote_args({"dumpsys", "package", package}) +
         " | grep -F -e 'Package [' -e 'Hidden system packages:' -e versionCode= -e versionName= "
         "-e 'Unable to find package'";
}

VersionPoller::VersionPoller(PollerContext& context)
    : ctx_(context),
      schedule_(parsers::units::to_ns(context.config->packages_version_poll_interval_seconds)) {}

void VersionPoller::seen(const parsers::GfxinfoDump& dump) {
  for (const auto& p : dump.processes) {
    // Only names safe in a shell command ever reach one, and only app
    // packages (dotted; never a "pid:N" label).
    const std::string_view base = metrics::base_package(p.package);
    if (parsers::valid_package_name(p.package) && base.find('.') != std::string_view::npos &&
        !p.package.starts_with("pid:")) {
      schedule_.seen(p.package, p.pid);
    }
  }
}

void VersionPoller::run_due(std::function<void()> done) {
  done_ = std::move(done);
  queue_ = schedule_.due(ctx_.host_now());
  std::reverse(queue_.begin(), queue_.end());  // asked in name order
  next();
}

void VersionPoller::next() {
  if (queue_.empty()) {
    // Moved out first: done_ may start the next round, which sets it again.
    auto done = std::move(done_);
    done_ = nullptr;
    if (done) done();
    return;
  }
  const std::string package = queue_.back();
  queue_.pop_back();
  if (!parsers::valid_package_name(package)) {
    schedule_.asked(package, ctx_.host_now(), true);
    return next();
  }
  ctx_.run(package_command(package), kPackageOutput, [this, package](ingest::ShellResult r) {
    std::optional<parsers::PackageInfo> info;
    if (!r.error) info = parsers::parse_package_info(r.output, package);
    const std::string_view result = package_poll_result(r, info);
    schedule_.asked(package, ctx_.host_now(), !r.error);
    {
      std::lock_guard<std::mutex> lock(ctx_.shared.mutex);
      auto& d = ctx_.shared.store.device(ctx_.serial);
      ++d.live.package_polls[std::string(result)];
      if (result == "not_found") metrics::forget_app_version(d, package);  // uninstalled
      if (info && (info->version_code || info->version_name)) {
        metrics::record_app_version(ctx_.shared.store, d, package,
                                    metrics::AppVersion{info->version_name.value_or(""), info->version_code});
      }
    }
    next();  // not under the lock: the runner may answer at once
  });
}

}  // namespace jank::app
