// What the exporter asks of each Android release, decided once per session
// from ro.build.version.sdk: every per-release command choice is made here
// (docs/ingest.md, "Android releases", cites the AOSP source of each).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jank::app {

struct AndroidRelease {
  // nullopt when getprop did not say: taken as a current release.
  std::optional<int> sdk;

  bool at_least(int api) const { return !sdk || *sdk >= api; }
  // Why the log stream cannot be followed exactly on this release; empty when it can.
  std::string unsupported_reason() const;
  // logcat's -v epoch (7.0 on); before, threadtime stamps are local MM-DD times.
  bool epoch_stamps() const { return at_least(24); }
  // toybox `ps` (8.0 on) needs -A to list every process; toolbox `ps` (until
  // 7.1) lists them all plainly and reads -A as a name filter (5.x, 6.0: the
  // header alone) or a bad pid (7.x).
  std::string_view process_list_command() const { return at_least(26) ? "ps -A" : "ps"; }
  // Focus is printed per display from Android 10; before, only the window
  // list's global mCurrentFocus/mFocusedApp name it.
  std::string_view window_dump_command() const {
    return at_least(29) ? "dumpsys window displays" : "dumpsys window windows";
  }
  // Android 10 starts traced (and makes /data/misc/perfetto-traces) only when
  // persist.traced.enable=1, which only Pixels set; from 11 it always runs.
  bool traced_needs_property() const { return sdk && *sdk == 29; }
};

// The release of a device whose getprop said `sdk`.
inline AndroidRelease android_release(std::optional<int> sdk) { return AndroidRelease{sdk}; }

// "Android 6.0 (API 23)", or "Android (API unknown)".
std::string release_text(const AndroidRelease& release, std::string_view version);

}  // namespace jank::app
