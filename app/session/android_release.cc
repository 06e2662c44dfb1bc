#include "app/session/android_release.h"

namespace jank::app {

std::string AndroidRelease::unsupported_reason() const {
  if (at_least(23)) return {};
  // 5.x logcat has neither -D (the buffer each entry came from) nor a logd
  // statistics head with per-buffer line totals (logcat.cpp:342,
  // LogStatistics.cpp:522-583 @ android-5.0.0_r1): the position in the log
  // cannot be kept, so a restart would count lines twice or lose them.
  return "logcat before Android 6.0 has no -D dividers and no per-buffer line totals, so the log position "
         "cannot be kept exactly";
}

std::string release_text(const AndroidRelease& release, std::string_view version) {
  std::string out = "Android";
  if (!version.empty()) out += " " + std::string(version);
  return out + " (API " + (release.sdk ? std::to_string(*release.sdk) : std::string("unknown")) + ")";
}

}  // namespace jank::app
