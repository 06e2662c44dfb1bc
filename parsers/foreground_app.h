// The foreground app from `dumpsys window windows|displays` and `dumpsys
// activity activities|top` (Android 4.x-15). Pure function over decoded
// UTF-8 text (CRLF tolerated); error outputs ("Unknown command", "Can't find
// service") simply yield nullopt.
//
// Resolution, first match wins:
//  1. the first mCurrentFocus naming an app window. Multi-display dumps print
//     one focus line per display; "null" and system windows (NotificationShade,
//     StatusBar, "Window{… u0 X}" without a "pkg/Activity") never name an app;
//  2. topResumedActivity= > ResumedActivity: > mResumedActivity: > mFocusedApp=
//     (first non-null of each), then `dumpsys activity top`'s
//     "ACTIVITY pkg/.Act hash pid=N" (the one followed by mResumed=true, else
//     the first);
//  3. fallbacks for dumps without any of those: the topmost application
//     window of a "Window #N Window{… pkg/Act …}:" list, then the first task's
//     realActivity=.
// When mCurrentFocus lines exist but none names an app (screen off, shade
// pulled down), the app found by 2/3 is returned with focus_on_system_window.
// Consoles that hard-wrap at 80 columns split long values; a key line of
// exactly 80 characters whose braces are not closed is joined with the next.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jank::parsers {

struct ForegroundApp {
  std::string package;                  // validated [A-Za-z0-9._:-]+
  std::string activity;                 // fully qualified class ("com.termux.app.TermuxActivity"); empty if absent
  std::optional<std::int32_t> pid;      // only `dumpsys activity top` prints it
  std::optional<std::int32_t> user;     // the "u0"/"u999" of the record
  std::string source;                   // "mCurrentFocus", "topResumedActivity", "ResumedActivity",
                                        // "mResumedActivity", "mFocusedApp", "ACTIVITY", "Window #", "realActivity"
  bool focus_on_system_window = false;  // mCurrentFocus was null or a system window
};

std::optional<ForegroundApp> parse_foreground_app(std::string_view dumpsys);

}  // namespace jank::parsers
