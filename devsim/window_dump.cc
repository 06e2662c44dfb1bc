// `dumpsys window windows|displays` of a simulated device, after AOSP's
// WindowManagerService dump: the window list with the focus lines that
// releases before Android 10 print globally (dumpWindowsNoHeaderLocked), and
// DisplayContent.dump, which prints a display's focus from Android 10 on.
// Only the lines below are printed (a real dump has many more per window and
// per display); docs/devsim.md ("Releases", "Window dump") cites the source
// of each.
#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "devsim/appendf.h"
#include "devsim/model.h"

namespace jank::devsim {
namespace {

// System.identityHashCode as toString prints it (hex, no leading zeros):
// stable per object here, 7 digits.
std::uint32_t identity(std::string_view what, std::uint64_t salt) {
  std::uint64_t h = 1469598103934665603ull ^ (salt * 0x9e3779b97f4a7c15ull);
  for (const char c : what) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  h ^= h >> 31;
  return static_cast<std::uint32_t>(h & 0x0fffffffu) | 0x1000000u;
}

std::string hex(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "%x", v);
  return b;
}

// Salts for the objects of an app process (new with each process).
std::uint64_t salt(std::int32_t pid, int what) {
  return static_cast<std::uint64_t>(pid) * 8 + static_cast<std::uint64_t>(what);
}

constexpr int kWidth = 1080, kHeight = 2400, kDpi = 420, kAppHeight = 2274;
constexpr std::int32_t kSystemUiUid = 10031;  // com.android.systemui's uid here
constexpr int kAppStackId = 1;                // the fullscreen stack of 6.0-10

// One window of the list, top to bottom.
struct DumpWindow {
  std::string title;
  std::string package;
  std::uint32_t hash = 0;
  std::int32_t pid = 0, uid = 0;
  int task = 0;  // an app's task (0: a system window)
};

}  // namespace

std::string Device::dumpsys_window(const std::vector<std::string>& args) const {
  const int sdk = cfg_.sdk;
  const AppState* focus = focused_app();
  const std::uint64_t boot = reboots_ * 7919 + cfg_.seed;
  auto task_of = [&](const AppState& a) { return 20 + static_cast<int>(&a - apps_.data()); };
  // ActivityRecord.toString: "ActivityRecord{hash u0 pkg/.Act tN}" (6.0-12,
  // 14+; Android 13 closes the brace before the task: see docs/devsim.md).
  auto activity_record = [&](const AppState& a) {
    const std::string act = "ActivityRecord{" + hex(identity(a.cfg.package, salt(a.pid, 1))) + " u0 " +
                            a.cfg.package + "/.MainActivity";
    const std::string t = " t" + std::to_string(task_of(a)) + "}";
    return sdk == 33 ? act + "}" + t : act + t;
  };
  // Up to Android 10 the focused app is an AppWindowToken holding the
  // activity's Token: "AppWindowToken{h token=Token{h ActivityRecord{…}}}".
  auto focused_app_text = [&]() -> std::string {
    if (!focus) return "null";
    if (sdk >= 30) return activity_record(*focus);
    return "AppWindowToken{" + hex(identity(focus->cfg.package, salt(focus->pid, 2))) + " token=Token{" +
           hex(identity(focus->cfg.package, salt(focus->pid, 3))) + " " + activity_record(*focus) + "}}";
  };

  // The window list, top to bottom: the bars, the app in front, the apps
  // behind (their stopped activities keep their windows), the wallpaper.
  std::vector<DumpWindow> windows;
  const std::int32_t sysui_pid = system_server_pid_ + 31;
  auto system_window = [&](const char* title) {
    windows.push_back({title, "com.android.systemui", identity(title, boot), sysui_pid, kSystemUiUid, 0});
  };
  system_window(sdk >= 31 ? "NavigationBar0" : "NavigationBar");
  if (sdk >= 30) system_window("NotificationShade");
  system_window("StatusBar");
  auto app_window = [&](const AppState& a) {
    const std::string title = a.cfg.package + "/" + a.cfg.package + ".MainActivity";
    windows.push_back({title, a.cfg.package, identity(title, salt(a.pid, 4)), a.pid, a.uid, task_of(a)});
  };
  const std::size_t focus_at = windows.size();
  if (focus) app_window(*focus);
  for (const auto& a : apps_) {
    if (a.pid != 0 && &a != focus) app_window(a);
  }
  system_window(sdk >= 34 ? "com.android.systemui.wallpapers.ImageWallpaper" : "com.android.systemui.ImageWallpaper");
  auto window_text = [](const DumpWindow& w) { return "Window{" + hex(w.hash) + " u0 " + w.title + "}"; };
  const std::string current_focus = focus ? window_text(windows[focus_at]) : "null";

  const std::string config =
      sdk < 26 ? "{1.0 ?mcc?mnc en_US ldltr sw411dp w411dp h774dp 420dpi nrml long port finger -keyb/v/h -nav/h s.6}"
               : "{1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h774dp 420dpi nrml long port finger -keyb/v/h -nav/h "
                 "winConfig={ mBounds=Rect(0, 0 - 1080, 2400) mAppBounds=Rect(0, 0 - 1080, 2274) "
                 "mWindowingMode=fullscreen mActivityType=undefined} s.6}";
  const int layout_seq = 100 + static_cast<int>(reboots_) * 3;

  // `name`: only the windows whose title holds it (WindowManagerService.dumpWindows).
  auto dump_windows = [&](const std::string& name) {
    std::string out = "WINDOW MANAGER WINDOWS (dumpsys window windows)\n";
    std::size_t printed = 0;
    for (std::size_t i = 0; i < windows.size(); ++i) {
      const DumpWindow& w = windows[i];
      if (w.title.find(name) == std::string::npos) continue;
      // Up to 7.1 each display's WindowList is printed from its top, each
      // window numbered by its index from the bottom; from 8.0 the root
      // container numbers the windows it prints from the top.
      const std::size_t number = sdk >= 26 ? printed++ : windows.size() - 1 - i;
      appendf(out, "  Window #%zu %s:\n", number, window_text(w).c_str());
      out += "    mDisplayId=0";
      if (w.task && sdk >= 31) appendf(out, " rootTaskId=%d", w.task);
      else if (w.task && sdk >= 23) appendf(out, " stackId=%d", kAppStackId);
      appendf(out, " mSession=Session{%x %d:u0a%d} mClient=android.os.BinderProxy@%x\n",
              identity(w.package, salt(w.pid, 5)), w.pid, w.uid,
              identity(w.title, salt(w.pid, 6)));
      appendf(out, "    mOwnerUid=%d %s=%s package=%s appop=NONE\n", w.uid,
              sdk >= 30 ? "showForAllUsers" : "mShowToOwnerOnly",
              (sdk >= 30) == (w.task == 0) ? "true" : "false", w.package.c_str());
    }
    out += "\n";
    if (sdk < 26) {
      // 5.0-7.1: mCurConfiguration, then the global focus.
      out += "  mCurConfiguration=" + config + "\n  mHasPermanentDpad=false\n";
      out += "  mCurrentFocus=" + current_focus + "\n  mFocusedApp=" + focused_app_text() + "\n";
      appendf(out, "  mInTouchMode=true mLayoutSeq=%d\n", layout_seq);
    } else if (sdk < 29) {
      // 8.0-9: the configuration is the root container's.
      out += "  mGlobalConfiguration=" + config + "\n  mHasPermanentDpad=false\n";
      out += "  mCurrentFocus=" + current_focus + "\n  mFocusedApp=" + focused_app_text() + "\n";
      out += "  mInTouchMode=true\n";
    } else {
      // 10+: focus is per display (dumpsys window displays); only the top focused display's id here.
      out += "  mGlobalConfiguration=" + config + "\n  mHasPermanentDpad=false\n  mTopFocusedDisplayId=0\n";
      if (sdk < 34) out += "  mInTouchMode=true\n";
    }
    return out;
  };

  auto dump_displays = [&]() {
    std::string out = "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n";
    std::vector<const AppState*> tasks;  // top down
    if (focus) tasks.push_back(focus);
    for (const auto& a : apps_) {
      if (a.pid != 0 && &a != focus) tasks.push_back(&a);
    }
    if (sdk >= 30) {
      appendf(out, "  Display: mDisplayId=0 %s=%zu\n", sdk >= 31 ? "rootTasks" : "stacks", tasks.size());
      appendf(out, "    init=%dx%d %ddpi mMinSizeOfResizeableTaskDp=220 cur=%dx%d app=%dx%d rng=1080x1017-2274x2211\n",
              kWidth, kHeight, kDpi, kWidth, kHeight, kWidth, kAppHeight);
    } else {
      out += "  Display: mDisplayId=0\n";
      appendf(out, "    init=%dx%d %ddpi cur=%dx%d app=%dx%d rng=1080x1017-2274x2211\n", kWidth, kHeight, kDpi, kWidth,
              kHeight, kWidth, kAppHeight);
    }
    if (sdk < 26) {
      out += "    deferred=false layoutNeeded=false\n";
    } else {
      appendf(out, "    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,%d,%d))\n", kWidth,
              kHeight);
    }
    if (sdk >= 28) appendf(out, "\n  mLayoutSeq=%d\n", layout_seq);
    if (sdk == 29) out += "  mDeferredRotationPauseCount=0\n";
    if (sdk >= 29) {
      // Android 10 moved focus into DisplayContent: each display prints its own.
      out += "  mCurrentFocus=" + current_focus + "\n  mFocusedApp=" + focused_app_text() + "\n";
    }
    out += "\n";
    if (sdk < 23) {
      // 5.x: each stack, then the app tokens from the bottom up.
      out += "  mStacks[1]1\n  mStacks[0]0\n\n  Application tokens in bottom up Z order:\n";
      int n = 0;
      for (auto it = tasks.rbegin(); it != tasks.rend(); ++it, ++n) {
        appendf(out, "  App #%d AppWindowToken{%x token=Token{%x %s}}:\n", n,
                identity((*it)->cfg.package, salt((*it)->pid, 2)), identity((*it)->cfg.package, salt((*it)->pid, 3)),
                activity_record(**it).c_str());
      }
      if (n == 0) out += "    None\n";
      return out;
    }
    const char* indent = sdk >= 30 ? "      " : "  ";
    if (sdk >= 30) out += "  Task display areas in top down Z order:\n    TaskDisplayArea DefaultTaskDisplayArea\n";
    appendf(out, "%sApplication tokens in top down Z order:\n", indent);
    for (const AppState* a : tasks) {
      if (sdk >= 30) {
        appendf(out, "      * Task{%x #%d type=standard A=%d:%s U=0 visible=%s mode=fullscreen sz=1}\n",
                identity(a->cfg.package, static_cast<std::uint64_t>(task_of(*a))), task_of(*a), a->uid,
                a->cfg.package.c_str(), a == focus ? "true" : "false");
        appendf(out, "        * %s\n", activity_record(*a).c_str());
      } else {
        appendf(out, "  mStackId=%d\n    mTaskId=%d\n", kAppStackId, task_of(*a));
        appendf(out, "      Activity #0 AppWindowToken{%x token=Token{%x %s}}\n",
                identity(a->cfg.package, salt(a->pid, 2)), identity(a->cfg.package, salt(a->pid, 3)),
                activity_record(*a).c_str());
      }
    }
    return out;
  };

  // WindowManagerService.dump: a command, or the name of windows to dump.
  if (args.empty()) return "\n" + dump_displays() + "\n" + dump_windows("");
  const std::string& cmd = args[0];
  if (cmd == "windows" || cmd == "w" || cmd == "all") return dump_windows("");
  if (cmd == "displays" || cmd == "d") return dump_displays();
  const bool any = std::any_of(windows.begin(), windows.end(), [&](const DumpWindow& w) {
    return w.title.find(cmd) != std::string::npos;
  });
  if (any) return dump_windows(cmd);
  return "Bad window command, or no windows match: " + cmd + "\nUse -h for help.\n";
}

}  // namespace jank::devsim
