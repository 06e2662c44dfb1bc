// App versions for one device session (android_app_info): `dumpsys package
// <pkg>` for each app the gfxinfo poller finds running, when first found in
// the session, again when one of its processes restarts (a new pid: a
// reinstall restarts the app) and otherwise every
// packages.version_poll_interval_seconds. The gfxinfo poller runs the due
// ones after its round, one command at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "app/session/session_io.h"
#include "parsers/gfxinfo.h"
#include "parsers/package_info.h"
#include "parsers/time_units.h"

namespace jank::app {

// When a package's version is due: a pure rule over what gfxinfo polls saw.
class VersionSchedule {
 public:
  // A failed command is retried this much sooner than the interval allows.
  static constexpr std::int64_t kRetryNs = parsers::units::to_ns(std::chrono::seconds(60));

  explicit VersionSchedule(std::int64_t interval_ns, std::size_t capacity = 1024)
      : interval_ns_(interval_ns), capacity_(capacity) {}

  // A gfxinfo poll found `process` running as `pid`. A pid other than the
  // one seen before for that process is a restart. Packages beyond the
  // capacity are not followed.
  void seen(std::string_view process, std::int32_t pid);
  // Base packages due at `now_ns`, by name: never asked in this session, a
  // process of theirs restarted since they were asked, or their time came.
  std::vector<std::string> due(std::int64_t now_ns) const;
  // The package was asked at `now_ns`: next in one interval, or with a
  // failed command (no answer) in min(interval, kRetryNs).
  void asked(std::string_view package, std::int64_t now_ns, bool answered);
  std::size_t size() const { return packages_.size(); }

 private:
  struct Entry {
    bool asked = false;     // in this session
    bool restarted = false;  // a process of it restarted since it was asked
    std::int64_t next_ns = 0;
    std::map<std::string, std::int32_t, std::less<>> pids;  // process name → pid last seen
  };
  std::int64_t interval_ns_;
  std::size_t capacity_;
  std::map<std::string, Entry, std::less<>> packages_;
};

// The poll's result label: the command's ("ok", "timeout", "error",
// "truncated") or, for an answer without a version, "not_found" (Unable to
// find package) or "unrecognised".
std::string_view package_poll_result(const ingest::ShellResult& r, const std::optional<parsers::PackageInfo>& info);
// The command: only the lines the version needs cross the wire (a whole
// dump of a large app is hundreds of KiB). `package` must be a valid name.
std::string package_command(const std::string& package);

class VersionPoller {
 public:
  explicit VersionPoller(PollerContext& context);
  // The processes a gfxinfo dump found running.
  void seen(const parsers::GfxinfoDump& dump);
  // Asks every due package, one at a time, then runs `done`.
  void run_due(std::function<void()> done);

 private:
  void next();

  PollerContext& ctx_;
  VersionSchedule schedule_;
  std::vector<std::string> queue_;
  std::function<void()> done_;
};

}  // namespace jank::app
