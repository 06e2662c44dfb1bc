// The simulator's logcat answers as each release's does (docs/devsim.md,
// "Releases"): the option each release refuses, with its message and exit
// status, and what every release accepts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "devsim/model.h"
#include "tests/devsim/quiet_device.h"
#include "devsim/shell.h"
#include "devsim/simulator.h"
#include "tests/devsim/sim_control.h"
#include "parsers/foreground_app.h"
#include "parsers/process_list.h"

using namespace jank::devsim;
using jank::devsim::test::control;

namespace {

DeviceConfig on_sdk(int sdk) { return test::quiet_device(sdk); }

}  // namespace

TEST_CASE("a -b list is one buffer name up to Android 7.0 and a list from 7.1", "[devsim][releases]") {
  ManualClock clock;
  for (const int sdk : {21, 22, 23, 24}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    const ShellResult list = run_shell(dev, "logcat -S -b main,system");
    CHECK(list.exit == 1);
    CHECK(list.err == "Unable to open log device 'main,system'\n");
    CHECK(list.out.empty());
    const ShellResult each = run_shell(dev, "logcat -S -b main -b system");
    CHECK(each.exit == 0);
    CHECK(each.out.rfind(sdk < 23 ? "        span -> size/num  main" : "size/num main", 0) == 0);
  }
  for (const int sdk : {25, 26, 30, 34}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    const ShellResult list = run_shell(dev, "logcat -S -b main,system");
    CHECK(list.exit == 0);
    CHECK(list.out == run_shell(dev, "logcat -S -b main -b system").out);
  }
}

TEST_CASE("logcat -v modifiers: none on 5.x, usec on 6.0, epoch from 7.0", "[devsim][releases]") {
  ManualClock clock;
  Device lollipop(on_sdk(22), clock);
  ShellResult r = run_shell(lollipop, "logcat -d -v threadtime -v usec -b main");
  CHECK(r.exit == 255);
  CHECK(r.err == "Invalid parameter to -v\n");
  r = run_shell(lollipop, "logcat -d -v threadtime -b main -D");
  CHECK(r.exit == 255);
  CHECK(r.err == "Unrecognized Option\n");
  CHECK(run_shell(lollipop, "logcat -d -v threadtime -b main").exit == 0);

  Device marshmallow(on_sdk(23), clock);
  r = run_shell(marshmallow, "logcat -d -v threadtime -v epoch -v usec -b main -b system -D");
  CHECK(r.exit == 1);
  CHECK(r.err == "Invalid parameter epoch to -v\n");
  CHECK(run_shell(marshmallow, "logcat -d -v threadtime -v usec -b main -b system -D").exit == 0);

  Device nougat(on_sdk(24), clock);
  CHECK(run_shell(nougat, "logcat -d -v threadtime -v epoch -v usec -b main -b system -D").exit == 0);
}

TEST_CASE("ps answers as toolbox before 8.0 and as toybox after, and the exporter's parser reads each listing",
          "[devsim][releases]") {
  ManualClock clock;
  auto names = [](const std::string& listing) {
    std::vector<std::string> out;
    for (const auto& p : jank::parsers::parse_process_list(listing).processes) out.push_back(p.name);
    return out;
  };
  const std::vector<std::string> every = {"init", "logd", "zygote64", "system_server", "com.example.feed"};
  for (const int sdk : {21, 22, 23}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    const ShellResult plain = run_shell(dev, "ps");
    CHECK(plain.exit == 0);
    CHECK(names(plain.out) == every);
    // -A is a name prefix no process has: the header alone.
    const ShellResult dash_a = run_shell(dev, "ps -A");
    CHECK(dash_a.exit == 0);
    CHECK(dash_a.out.rfind("USER ", 0) == 0);
    CHECK(std::count(dash_a.out.begin(), dash_a.out.end(), '\n') == 1);
    CHECK(names(run_shell(dev, "ps com.example").out) == std::vector<std::string>{"com.example.feed"});
  }
  for (const int sdk : {24, 25}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    CHECK(names(run_shell(dev, "ps").out) == every);
    const ShellResult dash_a = run_shell(dev, "ps -A");
    CHECK(dash_a.exit == 1);
    CHECK(dash_a.out == "bad pid '-A'\n");
  }
  for (const int sdk : {26, 30, 34}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    auto listed = names(run_shell(dev, "ps -A").out);
    REQUIRE(listed.size() >= every.size());
    listed.resize(every.size());  // traced and traced_probes follow from Android 11 on
    CHECK(listed == every);
    CHECK(names(run_shell(dev, "ps").out) == std::vector<std::string>{"ps"});  // the caller's session only
  }
}

namespace {

// Two apps: the feed in front (the first app of the list), the shop behind.
DeviceConfig two_apps(int sdk) {
  DeviceConfig c = on_sdk(sdk);
  AppConfig shop;
  shop.package = "com.example.shop";
  shop.stall_prob = 0;
  c.apps.push_back(shop);
  return c;
}

// The dump with identity hashes, binder addresses and session pids made
// constant, so that a test can hold a whole release's layout.
std::string normalized(const std::string& dump) {
  std::string out;
  for (std::size_t i = 0; i < dump.size();) {
    auto hex_run = [&](std::size_t at) {
      std::size_t e = at;
      while (e < dump.size() && std::isxdigit(static_cast<unsigned char>(dump[e])) &&
             !std::isupper(static_cast<unsigned char>(dump[e]))) {
        ++e;
      }
      return e - at;
    };
    const char c = dump[i];
    if ((c == '{' || c == '@') && hex_run(i + 1) == 7 && i + 8 < dump.size() &&
        (dump[i + 8] == ' ' || dump[i + 8] == '\n')) {
      out += c;
      out += 'H';
      i += 8;
      if (dump.compare(i, 1, " ") == 0 && out.size() > 8 && out.compare(out.size() - 9, 9, "Session{H") == 0) {
        // Session{H PID:uid}: the pid varies with the seed.
        const std::size_t colon = dump.find(':', i);
        out += " PID";
        i = colon;
      }
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

std::string focus_of(const std::string& dump) {
  const auto app = jank::parsers::parse_foreground_app(dump);
  return app ? app->package + " (" + app->source + (app->focus_on_system_window ? ", system focus" : "") + ")"
             : std::string("none");
}

}  // namespace

TEST_CASE("dumpsys window windows: the focus lines are global up to Android 9 and gone from 10",
          "[devsim][releases][window]") {
  ManualClock clock;
  {
    Device lollipop(two_apps(22), clock);
    const ShellResult r = run_shell(lollipop, "dumpsys window windows");
    CHECK(r.exit == 0);
    CHECK(r.err.empty());
    // Numbered from the bottom of the window list (WindowList index), printed from the top.
    CHECK(normalized(r.out) ==
          "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
          "  Window #4 Window{H u0 NavigationBar}:\n"
          "    mDisplayId=0 mSession=Session{H PID:u0a10031} mClient=android.os.BinderProxy@H\n"
          "    mOwnerUid=10031 mShowToOwnerOnly=false package=com.android.systemui appop=NONE\n"
          "  Window #3 Window{H u0 StatusBar}:\n"
          "    mDisplayId=0 mSession=Session{H PID:u0a10031} mClient=android.os.BinderProxy@H\n"
          "    mOwnerUid=10031 mShowToOwnerOnly=false package=com.android.systemui appop=NONE\n"
          "  Window #2 Window{H u0 com.example.feed/com.example.feed.MainActivity}:\n"
          "    mDisplayId=0 mSession=Session{H PID:u0a10100} mClient=android.os.BinderProxy@H\n"
          "    mOwnerUid=10100 mShowToOwnerOnly=true package=com.example.feed appop=NONE\n"
          "  Window #1 Window{H u0 com.example.shop/com.example.shop.MainActivity}:\n"
          "    mDisplayId=0 mSession=Session{H PID:u0a10101} mClient=android.os.BinderProxy@H\n"
          "    mOwnerUid=10101 mShowToOwnerOnly=true package=com.example.shop appop=NONE\n"
          "  Window #0 Window{H u0 com.android.systemui.ImageWallpaper}:\n"
          "    mDisplayId=0 mSession=Session{H PID:u0a10031} mClient=android.os.BinderProxy@H\n"
          "    mOwnerUid=10031 mShowToOwnerOnly=false package=com.android.systemui appop=NONE\n"
          "\n"
          "  mCurConfiguration={1.0 ?mcc?mnc en_US ldltr sw411dp w411dp h774dp 420dpi nrml long port finger "
          "-keyb/v/h -nav/h s.6}\n"
          "  mHasPermanentDpad=false\n"
          "  mCurrentFocus=Window{H u0 com.example.feed/com.example.feed.MainActivity}\n"
          "  mFocusedApp=AppWindowToken{H token=Token{H ActivityRecord{H u0 com.example.feed/.MainActivity t20}}}\n"
          "  mInTouchMode=true mLayoutSeq=100\n");
  }
  {
    Device pie(two_apps(28), clock);
    const ShellResult r = run_shell(pie, "dumpsys window windows");
    CHECK(r.exit == 0);
    CHECK(r.err.empty());
    // Numbered from the top (RootWindowContainer), the configuration the root's.
    const std::string n = normalized(r.out);
    CHECK(n.find("  Window #0 Window{H u0 NavigationBar}:\n") != std::string::npos);
    CHECK(n.find("  Window #2 Window{H u0 com.example.feed/com.example.feed.MainActivity}:\n"
                 "    mDisplayId=0 stackId=1 mSession=Session{H PID:u0a10100} mClient=android.os.BinderProxy@H\n") !=
          std::string::npos);
    CHECK(n.substr(n.find("\n\n")) ==
          "\n\n  mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h774dp 420dpi nrml long port finger "
          "-keyb/v/h -nav/h winConfig={ mBounds=Rect(0, 0 - 1080, 2400) mAppBounds=Rect(0, 0 - 1080, 2274) "
          "mWindowingMode=fullscreen mActivityType=undefined} s.6}\n"
          "  mHasPermanentDpad=false\n"
          "  mCurrentFocus=Window{H u0 com.example.feed/com.example.feed.MainActivity}\n"
          "  mFocusedApp=AppWindowToken{H token=Token{H ActivityRecord{H u0 com.example.feed/.MainActivity t20}}}\n"
          "  mInTouchMode=true\n");
  }
  for (const int sdk : {29, 33, 34}) {
    INFO("API " << sdk);
    Device dev(two_apps(sdk), clock);
    const ShellResult r = run_shell(dev, "dumpsys window windows");
    CHECK(r.exit == 0);
    CHECK(r.out.find("mCurrentFocus") == std::string::npos);
    CHECK(r.out.find("mFocusedApp") == std::string::npos);
    const std::string n = normalized(r.out);
    const std::string tail = sdk < 34 ? "  mInTouchMode=true\n" : "";
    CHECK(n.substr(n.rfind("  mHasPermanentDpad")) == "  mHasPermanentDpad=false\n  mTopFocusedDisplayId=0\n" + tail);
  }
  // What the exporter's parser makes of it: the focus up to 9, the topmost app window from 10.
  for (const int sdk : {21, 22, 23, 24, 25, 26, 27, 28}) {
    INFO("API " << sdk);
    Device dev(two_apps(sdk), clock);
    CHECK(focus_of(run_shell(dev, "dumpsys window windows").out) == "com.example.feed (mCurrentFocus)");
  }
  for (const int sdk : {29, 30, 31, 33, 34, 36}) {
    INFO("API " << sdk);
    Device dev(two_apps(sdk), clock);
    CHECK(focus_of(run_shell(dev, "dumpsys window windows").out) == "com.example.feed (Window #)");
  }
}

TEST_CASE("dumpsys window displays: no focus before Android 10, the display's focus from 10",
          "[devsim][releases][window]") {
  ManualClock clock;
  {
    Device pie(two_apps(28), clock);
    const ShellResult r = run_shell(pie, "dumpsys window displays");
    CHECK(r.exit == 0);
    CHECK(r.err.empty());
    CHECK(normalized(r.out) ==
          "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
          "  Display: mDisplayId=0\n"
          "    init=1080x2400 420dpi cur=1080x2400 app=1080x2274 rng=1080x1017-2274x2211\n"
          "    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,1080,2400))\n"
          "\n"
          "  mLayoutSeq=100\n"
          "\n"
          "  Application tokens in top down Z order:\n"
          "  mStackId=1\n"
          "    mTaskId=20\n"
          "      Activity #0 AppWindowToken{H token=Token{H ActivityRecord{H u0 com.example.feed/.MainActivity t20}}}\n"
          "  mStackId=1\n"
          "    mTaskId=21\n"
          "      Activity #0 AppWindowToken{H token=Token{H ActivityRecord{H u0 com.example.shop/.MainActivity "
          "t21}}}\n");
  }
  {
    Device q(two_apps(29), clock);
    const std::string n = normalized(run_shell(q, "dumpsys window displays").out);
    CHECK(n.substr(0, n.find("\n\n  Application")) ==
          "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
          "  Display: mDisplayId=0\n"
          "    init=1080x2400 420dpi cur=1080x2400 app=1080x2274 rng=1080x1017-2274x2211\n"
          "    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,1080,2400))\n"
          "\n"
          "  mLayoutSeq=100\n"
          "  mDeferredRotationPauseCount=0\n"
          "  mCurrentFocus=Window{H u0 com.example.feed/com.example.feed.MainActivity}\n"
          "  mFocusedApp=AppWindowToken{H token=Token{H ActivityRecord{H u0 com.example.feed/.MainActivity t20}}}");
  }
  {
    Device t(two_apps(33), clock);
    CHECK(normalized(run_shell(t, "dumpsys window displays").out) ==
          "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
          "  Display: mDisplayId=0 rootTasks=2\n"
          "    init=1080x2400 420dpi mMinSizeOfResizeableTaskDp=220 cur=1080x2400 app=1080x2274 "
          "rng=1080x1017-2274x2211\n"
          "    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,1080,2400))\n"
          "\n"
          "  mLayoutSeq=100\n"
          "  mCurrentFocus=Window{H u0 com.example.feed/com.example.feed.MainActivity}\n"
          // Android 13's ActivityRecord closes its brace before the task.
          "  mFocusedApp=ActivityRecord{H u0 com.example.feed/.MainActivity} t20}\n"
          "\n"
          "  Task display areas in top down Z order:\n"
          "    TaskDisplayArea DefaultTaskDisplayArea\n"
          "      Application tokens in top down Z order:\n"
          "      * Task{H #20 type=standard A=10100:com.example.feed U=0 visible=true mode=fullscreen sz=1}\n"
          "        * ActivityRecord{H u0 com.example.feed/.MainActivity} t20}\n"
          "      * Task{H #21 type=standard A=10101:com.example.shop U=0 visible=false mode=fullscreen sz=1}\n"
          "        * ActivityRecord{H u0 com.example.shop/.MainActivity} t21}\n");
  }
  {
    Device u(two_apps(34), clock);
    const std::string n = normalized(run_shell(u, "dumpsys window displays").out);
    CHECK(n.find("  mFocusedApp=ActivityRecord{H u0 com.example.feed/.MainActivity t20}\n") != std::string::npos);
  }
  for (const int sdk : {21, 22, 23, 24, 25, 26, 27, 28}) {
    INFO("API " << sdk);
    Device dev(two_apps(sdk), clock);
    const ShellResult r = run_shell(dev, "dumpsys window displays");
    CHECK(r.out.find("mCurrentFocus") == std::string::npos);
    CHECK(r.out.find("mFocusedApp") == std::string::npos);
    CHECK(focus_of(r.out) == "none");
  }
  for (const int sdk : {29, 30, 31, 32, 33, 34, 35, 36}) {
    INFO("API " << sdk);
    Device dev(two_apps(sdk), clock);
    CHECK(focus_of(run_shell(dev, "dumpsys window displays").out) == "com.example.feed (mCurrentFocus)");
  }
}

TEST_CASE("dumpsys window follows the app in front: another app, none, a dead one", "[devsim][releases][window]") {
  ManualClock clock;
  for (const int sdk : {22, 28, 29, 34}) {
    INFO("API " << sdk);
    Device dev(two_apps(sdk), clock);
    const std::string what = sdk < 29 ? "dumpsys window windows" : "dumpsys window displays";
    REQUIRE(dev.set_foreground("com.example.shop"));
    CHECK(focus_of(run_shell(dev, what).out) == "com.example.shop (mCurrentFocus)");
    CHECK_FALSE(dev.set_foreground("com.example.none"));
    REQUIRE(dev.set_foreground(std::nullopt));
    std::string n = normalized(run_shell(dev, what).out);
    CHECK(n.find("  mCurrentFocus=null\n  mFocusedApp=null\n") != std::string::npos);
    // Nothing in front: the parser falls back on the topmost app window, still listed (windows) or none (displays).
    CHECK(focus_of(run_shell(dev, what).out) == (sdk < 29 ? "com.example.feed (Window #, system focus)" : "none"));
    // The app in front died: its window went with it, nothing has focus until it is back.
    REQUIRE(dev.set_foreground("com.example.feed"));
    REQUIRE(dev.crash_app("com.example.feed"));
    n = normalized(run_shell(dev, what).out);
    CHECK(n.find("  mCurrentFocus=null\n  mFocusedApp=null\n") != std::string::npos);
    CHECK(n.find("com.example.feed/com.example.feed.MainActivity") == std::string::npos);
    clock.advance_ms(2000);
    CHECK(focus_of(run_shell(dev, what).out) == "com.example.feed (mCurrentFocus)");
  }
  Device dev(two_apps(33), clock);
  const ShellResult bad = run_shell(dev, "dumpsys window frobnicate");
  CHECK(bad.exit == 0);
  CHECK(bad.out == "Bad window command, or no windows match: frobnicate\nUse -h for help.\n");
  // A name is a filter on the window titles.
  const std::string shop = normalized(run_shell(dev, "dumpsys window com.example.shop").out);
  // From 8.0 the windows printed are numbered from 0.
  CHECK(shop.find("  Window #0 Window{H u0 com.example.shop/com.example.shop.MainActivity}:\n") != std::string::npos);
  CHECK(shop.find("NavigationBar") == std::string::npos);
  CHECK(run_shell(dev, "dumpsys").out.find("\n  window\n") != std::string::npos);
}

TEST_CASE("logcat -S on Android 5.x prints its own head: span, no Total column, rows led by a duration",
          "[devsim][releases]") {
  ManualClock clock;
  Device dev(on_sdk(21), clock);
  dev.log(LogId::main, 'I', 1, 1, 0, "t", "hello");  // 9 bytes: priority, tag and message with their NULs
  clock.advance_ns(1'234'567'890);
  const auto& system = dev.logs().stats(LogId::system);
  const std::string sys_total = std::to_string(system.written_bytes) + "/" + std::to_string(system.written);
  const std::string sys_now =
      std::to_string(system.used) + "/" + std::to_string(dev.logs().entry_count(LogMask{1} << 3));
  REQUIRE(system.written > 0);  // the apps' Start proc lines
  const ShellResult r = run_shell(dev, "logcat -S -b main -b radio -b system");
  CHECK(r.exit == 0);
  CHECK(r.err.empty());
  // Cells 19 columns apart; the empty radio buffer has no Now cell and keeps its place.
  // logd started 2 s after a boot an hour ago; the oldest entry is 1.23 s old.
  CHECK(r.out ==
        "        span -> size/num  main               radio              system\n"
        "Total   0:59:59.234567890 9/1                0/0                " + sys_total + "\n"
        "Now     0:00:01.234567890 9/1                                   " + sys_now + "\n");
  // An empty selection: the age of an entry that does not exist is 0.
  REQUIRE(run_shell(dev, "logcat -c -b main -b system").exit == 0);
  CHECK(run_shell(dev, "logcat -S -b main").out ==
        "        span -> size/num  main\n"
        "Total   0:59:59.234567890 9/1\n"
        "Now     0:00:00.000000000\n");
  // 6.0 and later: the size/num head.
  Device marshmallow(on_sdk(23), clock);
  CHECK(run_shell(marshmallow, "logcat -S -b main").out.rfind("size/num main", 0) == 0);
}

TEST_CASE("id: toolbox before 6.0 ignores its arguments, toybox from 6.0 knows -u", "[devsim][releases]") {
  ManualClock clock;
  const std::string groups =
      "groups=1003(graphics),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),3001(net_bt_admin),"
      "3002(net_bt),3003(inet),3006(net_bw_stats)";
  for (const int sdk : {21, 22}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    for (const char* cmd : {"id", "id -u", "id -g -n"}) {
      const ShellResult r = run_shell(dev, cmd);
      CHECK(r.exit == 0);
      CHECK(r.err.empty());
      CHECK(r.out == "uid=2000(shell) gid=2000(shell) " + groups + " context=u:r:shell:s0\n");
    }
    DeviceConfig rooted = on_sdk(sdk);
    rooted.root_build = true;
    Device root(rooted, clock);
    CHECK(run_shell(root, "id -u").out == "uid=0(root) gid=0(root) " + groups + " context=u:r:su:s0\n");
  }
  for (const int sdk : {23, 29, 34}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    CHECK(run_shell(dev, "id -u").out == "2000\n");
    CHECK(run_shell(dev, "id -un").out == "shell\n");
    CHECK(run_shell(dev, "id").out.rfind("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),", 0) == 0);
    DeviceConfig rooted = on_sdk(sdk);
    rooted.root_build = true;
    Device root(rooted, clock);
    CHECK(run_shell(root, "id -u").out == "0\n");
  }
}

TEST_CASE("pidof does not exist on 5.x: mksh answers not found, status 127", "[devsim][releases]") {
  ManualClock clock;
  for (const int sdk : {21, 22}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    const ShellResult r = run_shell(dev, "pidof logd");
    CHECK(r.exit == 127);
    CHECK(r.out.empty());
    CHECK(r.err == "/system/bin/sh: pidof: not found\n");
    // The preamble goes on past it (the statistics follow).
    const ShellResult pre = run_shell(dev, "pidof logd; logcat -S -b main -b system");
    CHECK(pre.exit == 0);
    CHECK(pre.out.rfind("        span -> size/num", 0) == 0);
  }
  Device marshmallow(on_sdk(23), clock);
  const ShellResult r = run_shell(marshmallow, "pidof logd");
  CHECK(r.exit == 0);
  CHECK(r.out == std::to_string(marshmallow.logd_pid()) + "\n");
}

namespace {

const std::string kTrace = "/data/misc/perfetto-traces/jank_exporter.pftrace";
const std::string kArm =
    "printf %s 'buffers { size_kb: 1024 } data_sources { config { name: \"linux.ftrace\" } } "
    "unique_session_name: \"jank_exporter\" trigger_config { trigger_mode: STOP_TRACING trigger_timeout_ms: 60000 "
    "triggers { name: \"jank_exporter\" stop_delay_ms: 1000 } }' | perfetto --background --txt -c - -o " +
    kTrace;

}  // namespace

TEST_CASE("Perfetto on Android 10 needs persist.traced.enable=1, from 11 it is set", "[devsim][releases]") {
  ManualClock clock;
  Device q(on_sdk(29), clock);
  CHECK(run_shell(q, "getprop persist.traced.enable").out == "\n");
  CHECK(run_shell(q, "pidof traced").exit == 1);
  // No trace directory: the client cannot create its output file (Android 10's log format: no time, colours).
  ShellResult r = run_shell(q, kArm);
  CHECK(r.exit == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "\x1b[90mperfetto_cmd.cc:863     \x1b[0m \x1b[31mFailed to open " + kTrace +
                     ". If you get permission denied in /data/misc/perfetto-traces, the file might have been created "
                     "by another user, try deleting it first. (errno: 2, No such file or directory)\x1b[0m\n");
  CHECK(run_shell(q, "pidof perfetto").exit == 1);
  r = run_shell(q, "trigger_perfetto jank_exporter");  // no service to connect to
  CHECK(r.exit == 1);
  CHECK(r.out.empty());
  CHECK(r.err.empty());

  // The shell may set it: init makes the directory and starts traced.
  r = run_shell(q, "setprop persist.traced.enable 1");
  CHECK(r.exit == 0);
  CHECK(r.err.empty());
  CHECK(run_shell(q, "getprop persist.traced.enable").out == "1\n");
  CHECK(run_shell(q, "pidof traced").exit == 0);
  r = run_shell(q, kArm);
  CHECK(r.exit == 0);
  CHECK(r.err.empty());
  const std::string pid = r.out.substr(0, r.out.size() - 1);
  CHECK(run_shell(q, "pidof perfetto").out == pid + "\n");
  CHECK(run_shell(q, "trigger_perfetto jank_exporter").exit == 0);
  // It survives a reboot (persist.*); 0 stops traced, and its clients with it.
  q.reboot(0);
  CHECK(run_shell(q, "pidof traced").exit == 0);
  REQUIRE(run_shell(q, kArm).exit == 0);
  REQUIRE(run_shell(q, "setprop persist.traced.enable 0").exit == 0);
  CHECK(run_shell(q, "pidof traced").exit == 1);
  CHECK(run_shell(q, "pidof perfetto").exit == 1);

  for (const int sdk : {30, 34}) {
    INFO("API " << sdk);
    Device dev(on_sdk(sdk), clock);
    CHECK(run_shell(dev, "getprop persist.traced.enable").out == "1\n");
    CHECK(run_shell(dev, "pidof traced").exit == 0);
    r = run_shell(dev, kArm);
    CHECK(r.exit == 0);
    CHECK(r.err.empty());
  }
}

TEST_CASE("no shell v2 before Android 7.0: adbd announces no features, and a control sets the app in front",
          "[devsim][releases]") {
  boost::asio::io_context io;
  ManualClock clock;
  SimOptions o;
  o.devices = 4;
  o.sdk = {22, 23, 24, 30};
  o.packages = {"com.example.feed", "com.example.shop"};
  o.log_rate = 0;
  Simulator sim(io, o, clock);
  sim.start();
  const auto& d = sim.devices();
  const std::string props = "device::ro.product.name=janksim;ro.product.model=JankSim ";
  CHECK_FALSE(d[0]->options().shell_v2);
  CHECK(d[0]->banner() == props + "0;ro.product.device=janksim0;");
  CHECK_FALSE(d[1]->options().shell_v2);
  CHECK(d[1]->banner() == props + "1;ro.product.device=janksim1;");
  CHECK(d[2]->options().shell_v2);
  CHECK(d[2]->banner() == props + "2;ro.product.device=janksim2;features=shell_v2,cmd");
  CHECK(d[3]->options().shell_v2);
  CHECK(d[3]->banner() == props + "3;ro.product.device=janksim3;features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,"
                                  "apex,abb,fixed_push_symlink_timestamp,abb_exec,remount_shell,sendrecv_v2,"
                                  "sendrecv_v2_brotli");

  CHECK(control(io, sim, "foreground sim3 com.example.shop") == "OK");
  CHECK(focus_of(run_shell(d[3]->model(), "dumpsys window displays").out) == "com.example.shop (mCurrentFocus)");
  CHECK(control(io, sim, "foreground * none") == "OK");
  CHECK(run_shell(d[3]->model(), "dumpsys window displays").out.find("  mCurrentFocus=null\n") != std::string::npos);
  CHECK(run_shell(d[0]->model(), "dumpsys window windows").out.find("  mCurrentFocus=null\n") != std::string::npos);
  CHECK(control(io, sim, "foreground sim3 com.example.nope") == "ERR unknown package com.example.nope");
  CHECK(control(io, sim, "foreground sim3") == "ERR usage: foreground DEV PKG|none");
  sim.stop();
  io.poll();

  // --no-shell-v2 takes it away from any release.
  boost::asio::io_context io2;
  o.devices = 1;
  o.sdk = {30};
  o.shell_v2 = false;
  Simulator legacy(io2, o, clock);
  legacy.start();
  CHECK_FALSE(legacy.devices()[0]->options().shell_v2);
  CHECK(legacy.devices()[0]->banner().find("features=cmd,stat_v2,") != std::string::npos);
  legacy.stop();
  io2.poll();
}

TEST_CASE("a failing device answers every script with an error until told otherwise", "[devsim][releases]") {
  ManualClock clock;
  Device dev(on_sdk(34), clock);
  dev.set_failing(true);
  ShellResult r = run_shell(dev, "getprop");
  CHECK(r.out.empty());
  CHECK(r.err == "/system/bin/sh: getprop: can't execute: I/O error\n");
  CHECK(r.exit == 126);
  r = run_shell(dev, "echo x; logcat -S -b main");
  CHECK(r.err == "/system/bin/sh: echo: can't execute: I/O error\n");
  CHECK(r.exit == 126);
  dev.set_failing(false);
  r = run_shell(dev, "echo x");
  CHECK(r.out == "x\n");
  CHECK(r.exit == 0);
}
