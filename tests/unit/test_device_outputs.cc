// Device-output parsers on the project's own fixtures, written from the
// layouts of each Android release (values are made up; only the layout
// matters). Real captures are checked in tests/corpus/test_corpus_device.cc.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

#include "parsers/display_info.h"
#include "tests/support/crlf.h"
#include "parsers/foreground_app.h"
#include "parsers/package_info.h"
#include "parsers/process_list.h"
#include "parsers/properties.h"
#include "parsers/text_input.h"

using namespace jank::parsers;

namespace {

// UTF-16LE with BOM, as a Windows shell redirect saves it (ASCII input only).
std::string to_utf16le_bom(std::string_view s) {
  std::string out = "\xFF\xFE";
  for (char c : s) {
    out.push_back(c);
    out.push_back('\0');
  }
  return out;
}

std::string random_bytes(std::mt19937& rng, std::size_t n, std::string_view alphabet) {
  std::string s(n, ' ');
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  for (auto& c : s) c = alphabet[pick(rng)];
  return s;
}

// ---- display fixtures -------------------------------------------------------

// Android 13/14 layout: two display devices (built-in first, then an
// external one at a different rate), DisplayManager ids ≠ SurfaceFlinger ids.
constexpr std::string_view kDisplay14 = R"(DISPLAY MANAGER (dumpsys display)
  mSafeMode=false

Display Devices: size=2
  DisplayDeviceInfo{"Built-in Screen": uniqueId="local:1", 1080 x 2400, modeId 2, renderFrameRate 60.0, defaultModeId 1, supportedModes [{id=1, width=1080, height=2400, fps=60.000004, alternativeRefreshRates=[120.00001], supportedHdrTypes=[]}, {id=2, width=1080, height=2400, fps=120.00001, alternativeRefreshRates=[60.000004], supportedHdrTypes=[]}], state ON}
    mAdapter=LocalDisplayAdapter
    mActiveModeId=2
    mDefaultModeId=1
    mSfDisplayModes=
      DisplayMode{id=0, width=1080, height=2400, xDpi=400.0, yDpi=400.0, refreshRate=60.000004, group=0}
      DisplayMode{id=1, width=1080, height=2400, xDpi=400.0, yDpi=400.0, refreshRate=120.00001, group=0}
    mActiveSfDisplayMode=DisplayMode{id=1, width=1080, height=2400, xDpi=400.0, yDpi=400.0, refreshRate=120.00001, group=0}
    mActiveRenderFrameRate=60.0
    mSupportedModes=
      DisplayModeRecord{mMode={id=1, width=1080, height=2400, fps=60.000004, alternativeRefreshRates=[120.00001], supportedHdrTypes=[]}}
      DisplayModeRecord{mMode={id=2, width=1080, height=2400, fps=120.00001, alternativeRefreshRates=[60.000004], supportedHdrTypes=[]}}
    mRefreshRateChangeable=true
  DisplayDeviceInfo{"HDMI Screen": uniqueId="local:2", 1920 x 1080, modeId 7, defaultModeId 7, supportedModes [{id=7, width=1920, height=1080, fps=30.0}], state ON}
    mActiveModeId=7
    mActiveSfDisplayMode=DisplayMode{id=5, width=1920, height=1080, refreshRate=30.0, group=0}
    mSupportedModes=
      DisplayModeRecord{mMode={id=7, width=1920, height=1080, fps=30.0, alternativeRefreshRates=[]}}

LogicalDisplayMapper:
  Logical Displays: size=2
  Display 0:
    mBaseDisplayInfo=DisplayInfo{"Built-in Screen", displayId 0, real 1080 x 2400, mode 260.0, defaultMode 1, modes [{id=1, width=1080, height=2400, fps=60.000004}, {id=2, width=1080, height=2400, fps=120.00001}], state ON}
  Display 2:
    mBaseDisplayInfo=DisplayInfo{"HDMI Screen", displayId 2, real 1920 x 1080, mode 7, defaultMode 7, modes [{id=7, width=1920, height=1080, fps=30.0}], state ON}
)";

// Android 6-9 layout: only DisplayInfo and DisplayDeviceInfo lines, screen off.
constexpr std::string_view kDisplay9 = R"(Display Devices: size=1
  DisplayDeviceInfo{"Built-in Screen": uniqueId="local:0", 1440 x 2560, modeId 1, defaultModeId 1, supportedModes [{id=1, width=1440, height=2560, fps=59.000004}], colorMode 0, state OFF}
    mAdapter=LocalDisplayAdapter
Logical Displays: size=1
  Display 0:
    mBaseDisplayInfo=DisplayInfo{"Built-in Screen, displayId 0", uniqueId "local:0", app 1440 x 2560, real 1440 x 2560, mode 1, defaultMode 1, modes [{id=1, width=1440, height=2560, fps=59.000004}], state OFF}
)";

// Android 5 layout: rates printed inline as "60.0 fps".
constexpr std::string_view kDisplay5 = R"(Display Devices: size=1
  DisplayDeviceInfo{"Built-in Screen": uniqueId="local:0", 720 x 1280, 60.0 fps, supportedRefreshRates [60.0], density 320, 320.0 x 320.0 dpi, appVsyncOff 0, presDeadline 17666667, touch INTERNAL, rotation 0, type BUILT_IN, state ON}
    mPhys=PhysicalDisplayInfo{720 x 1280, 60.0 fps, density 2.0, 320.0 x 320.0 dpi, secure true, appVsyncOffset 0, bufferDeadline 17666667}
)";

// Android 15 DisplayMode fields.
constexpr std::string_view kDisplay15 = R"(    mActiveModeId=1
    mSfDisplayModes=
      DisplayMode{id=0, width=1080, height=2340, peakRefreshRate=120.00001, vsyncRate=120.00001, appVsyncOffsetNanos=0, group=0}
      DisplayMode{id=1, width=1080, height=2340, peakRefreshRate=60.000004, vsyncRate=60.000004, appVsyncOffsetNanos=0, group=0}
    mActiveSfDisplayMode=DisplayMode{id=0, width=1080, height=2340, peakRefreshRate=120.00001, vsyncRate=120.00001, appVsyncOffsetNanos=0, group=0}
    renderFrameRate 40.000004
)";

// ---- SurfaceFlinger fixtures ------------------------------------------------

constexpr std::string_view kSf9 = R"(Build configuration: [sf PRESENT_TIME_OFFSET=0]
Sync configuration: [using: EGL_ANDROID_native_fence_sync]
DispSync configuration: app phase 1000000 ns, sf phase 1000000 ns, present offset 0 ns (refresh 11111111 ns)
Visible layers (count = 3)
+ DisplayDevice: Built-in Screen
   type=0, hwcId=0, layerStack=0, (1080x2160), powerMode=2, activeConfig=0
h/w composer state:
  refresh-rate              : 90.000001 fps
res: 1080x2160 dpi: 400.00x400.00 fps: 90 vsync period: 11111111
)";

constexpr std::string_view kSf14 = R"(---- TIME: 2024-01-01 00:00:00.000 ----
Scheduler:
ScreenOff: 0d00:00:10.000
120.00 Hz: 0d00:10:00.000
60.00 Hz: 0d00:05:00.000
         present offset:         0 ns	        VSYNC period:   8333333 ns

Displays (2 entries)
Display 4619827259835644674
    connectionType=External
    powerMode=On
    activeMode=30.00 Hz (30.00 Hz)
    displayModes=
        {id=0, hwcId=0, resolution=1920x1080, refreshRate=30.00 Hz, dpi=96.00x96.00, group=0}
Display 4619827259835644672
    connectionType=Internal
    powerMode=On
    activeMode=120.00 Hz (60.00 Hz)
    displayModes=
        {id=0, hwcId=0, resolution=1080x2400, refreshRate=60.00 Hz, dpi=400.00x400.00, group=0}
        {id=1, hwcId=1, resolution=1080x2400, refreshRate=120.00 Hz, dpi=400.00x400.00, group=0}
    displayManagerPolicy={defaultModeId=0, allowGroupSwitching=false, primaryRanges={physical=[0.00 Hz, inf Hz], render=[0.00 Hz, 120.00 Hz]}}

Display 4619827259835644672 (physical, "Built-in")
   Composition Display State:
  refresh-rate              : 120.00 Hz
)";

// `dumpsys SurfaceFlinger --displays` on Android 13 (no "Displays" header).
constexpr std::string_view kSfDisplays13 = R"(Display 1 (external, "HDMI")
   powerMode=On
   activeModeId=3
   displayModes=
      {id=3, hwcId=0, resolution=1920x1080, refreshRate=50.00 Hz, dpi=96.00x96.00, group=-1}
Display 0 (internal, primary, "Primary display")
   powerMode=Off
   activeModeId=1
   displayModes=
      {id=0, hwcId=0, resolution=720x1600, refreshRate=60.00 Hz, dpi=268.00x268.00, group=-1}
      {id=1, hwcId=1, resolution=720x1600, refreshRate=90.00 Hz, dpi=268.00x268.00, group=-1}
   displayManagerPolicy={defaultModeId=0, allowGroupSwitching=false, primaryRange=[0.00 Hz, 90.00 Hz]}
)";

}  // namespace

// ---- [display] --------------------------------------------------------------

TEST_CASE("display: Android 14 dump picks the first (built-in) device", "[display]") {
  const RefreshInfo info = parse_display_info(kDisplay14);
  REQUIRE(info.active.has_value());
  CHECK(info.active->hz == 120.00001);
  CHECK(info.active->source == "mActiveSfDisplayMode");
  CHECK(info.active->mode_id == 2);  // DisplayManager numbering
  CHECK_FALSE(info.active->period_ns.has_value());
  CHECK(info.render_hz == 60.0);
  CHECK(info.modes_source == "mSupportedModes");
  REQUIRE(info.modes.size() == 2);
  CHECK(info.modes[0].id == 1);
  CHECK(info.modes[0].width == 1080);
  CHECK(info.modes[0].height == 2400);
  CHECK(info.modes[0].hz == 60.000004);
  CHECK(info.modes[1].hz == 120.00001);
  CHECK(info.peak_hz == 120.00001);
  CHECK(parse_display_refresh_rate(kDisplay14)->hz == 120.00001);
}

TEST_CASE("display: mActiveModeId is used when the SF mode is absent", "[display]") {
  std::string text(kDisplay14);
  // Drop the first device's mActiveSfDisplayMode line.
  const auto p = text.find("    mActiveSfDisplayMode=DisplayMode{id=1");
  text.erase(p, text.find('\n', p) + 1 - p);
  const auto r = parse_display_refresh_rate(text);
  REQUIRE(r.has_value());
  CHECK(r->hz == 120.00001);
  CHECK(r->source == "mActiveModeId");
  CHECK(r->mode_id == 2);
}

TEST_CASE("display: Android 14 DisplayInfo glues mode id and render rate", "[display]") {
  // Only the DisplayInfo lines: "mode 260.0" is mode 2 rendering at 60.0.
  const std::string_view text = kDisplay14.substr(kDisplay14.find("LogicalDisplayMapper:"));
  const RefreshInfo info = parse_display_info(text);
  REQUIRE(info.active.has_value());
  CHECK(info.active->hz == 120.00001);
  CHECK(info.active->source == "DisplayInfo");
  CHECK(info.active->mode_id == 2);
  CHECK(info.render_hz == 60.0);
  CHECK(info.modes.size() == 2);  // displayId 2's list is ignored
}

TEST_CASE("display: Android 9 screen-off dump", "[display]") {
  const RefreshInfo info = parse_display_info(kDisplay9);
  REQUIRE(info.active.has_value());
  CHECK(info.active->hz == 59.000004);
  CHECK(info.active->source == "DisplayDeviceInfo");
  CHECK(info.active->mode_id == 1);
  CHECK_FALSE(info.render_hz.has_value());
}

TEST_CASE("display: Android 5 inline fps", "[display]") {
  const auto r = parse_display_refresh_rate(kDisplay5);
  REQUIRE(r.has_value());
  CHECK(r->hz == 60.0);
  CHECK(r->source == "DisplayDeviceInfo");
  CHECK_FALSE(r->mode_id.has_value());
}

TEST_CASE("display: Android 15 peakRefreshRate, renderFrameRate is never the panel rate", "[display]") {
  const RefreshInfo info = parse_display_info(kDisplay15);
  REQUIRE(info.active.has_value());
  CHECK(info.active->hz == 120.00001);
  CHECK(info.active->mode_id == 1);
  CHECK(info.render_hz == 40.000004);
  CHECK(info.modes_source == "mSfDisplayModes");
  REQUIRE(info.modes.size() == 2);
  CHECK(info.modes[1].hz == 60.000004);
}

TEST_CASE("display: key prefixes and out-of-range rates are not rates", "[display]") {
  CHECK_FALSE(parse_display_refresh_rate("    mRefreshRateChangeable=true\n    mRefreshRateZoneId=60\n").has_value());
  CHECK_FALSE(parse_display_refresh_rate(
                  "    mActiveSfDisplayMode=DisplayMode{id=0, width=1, height=1, refreshRate=1500.0, group=0}\n")
                  .has_value());
  CHECK_FALSE(parse_display_refresh_rate(
                  "    mActiveSfDisplayMode=DisplayMode{id=0, width=1, height=1, refreshRate=0.5, group=0}\n")
                  .has_value());
  CHECK_FALSE(parse_display_refresh_rate("      DisplayModeRecord{mMode={id=1, fps=inf}}\n").has_value());
  // Two modes and no active marker: unknown.
  CHECK_FALSE(parse_display_refresh_rate("mSupportedModesByDisplay: 0 -> [{id=1, fps=60.0}, {id=2, fps=90.0}]\n")
                  .has_value());
  CHECK_FALSE(parse_display_refresh_rate("").has_value());
}

TEST_CASE("display: CRLF and UTF-16LE captures give the same answer", "[display]") {
  const auto plain = parse_display_info(kDisplay14);
  for (const std::string& text : {jank::test::crlf(kDisplay14), decode_to_utf8(to_utf16le_bom(jank::test::crlf(kDisplay14)))}) {
    const auto info = parse_display_info(text);
    REQUIRE(info.active.has_value());
    CHECK(info.active->hz == plain.active->hz);
    CHECK(info.modes.size() == plain.modes.size());
    CHECK(info.render_hz == plain.render_hz);
  }
}

TEST_CASE("display: SurfaceFlinger Android 9 DispSync period first, vendor lines ignored", "[display]") {
  const RefreshInfo info = parse_surfaceflinger_info(kSf9);
  REQUIRE(info.active.has_value());
  CHECK(info.active->hz == 1e9 / 11111111.0);
  CHECK(info.active->source == "DispSync refresh");
  CHECK(info.active->period_ns == 11111111);
  CHECK(info.modes.empty());
}

TEST_CASE("display: SurfaceFlinger fallbacks in priority order", "[display]") {
  // Without the DispSync line, the HWC refresh-rate line, then the vendor line.
  std::string text(kSf9);
  text.erase(text.find("DispSync"), text.find('\n', text.find("DispSync")) + 1 - text.find("DispSync"));
  auto r = parse_surfaceflinger_refresh_rate(text);
  REQUIRE(r.has_value());
  CHECK(r->hz == 90.000001);
  CHECK(r->source == "refresh-rate");
  r = parse_surfaceflinger_refresh_rate("res: 1920x720 dpi: 320.84x320.84 fps: 60 vsync period: 16666666\n");
  REQUIRE(r.has_value());
  CHECK(r->source == "vendor vsync period");
  CHECK(r->period_ns == 16666666);
  // Android 11 DispSync dump.
  r = parse_surfaceflinger_refresh_rate("mPeriod: 16666666 ns (60.000 fps)\n");
  REQUIRE(r.has_value());
  CHECK(r->source == "mPeriod");
  // Android 12 "Current mode".
  r = parse_surfaceflinger_refresh_rate("Current mode: {id=0, hwcId=0, fps=90.00, width=1080, height=2400 group=-1}\n");
  REQUIRE(r.has_value());
  CHECK(r->hz == 90.0);
  CHECK(r->source == "Current mode");
  // "60.00fps" refresh-rate form.
  r = parse_surfaceflinger_refresh_rate("  refresh-rate              : 60.00fps\n");
  REQUIRE(r.has_value());
  CHECK(r->hz == 60.0);
}

TEST_CASE("display: SurfaceFlinger Android 14 prefers VSYNC period and the internal display", "[display]") {
  const RefreshInfo info = parse_surfaceflinger_info(kSf14);
  REQUIRE(info.active.has_value());
  CHECK(info.active->hz == 1e9 / 8333333.0);
  CHECK(info.active->source == "VSYNC period");
  CHECK(info.active->period_ns == 8333333);
  CHECK(info.render_hz == 60.0);  // "(60.00 Hz)" of the internal display
  REQUIRE(info.modes.size() == 2);
  CHECK(info.modes[1].width == 1080);
  CHECK(info.modes[1].height == 2400);
  CHECK(info.peak_hz == 120.0);

  // Without the period line the internal display's activeMode is used, not
  // the external one listed first.
  std::string text(kSf14);
  const auto p = text.find("         present offset");
  text.erase(p, text.find('\n', p) + 1 - p);
  const auto r = parse_surfaceflinger_refresh_rate(text);
  REQUIRE(r.has_value());
  CHECK(r->hz == 120.0);
  CHECK(r->source == "activeMode");
}

TEST_CASE("display: SurfaceFlinger --displays picks the primary display", "[display]") {
  const RefreshInfo info = parse_surfaceflinger_info(kSfDisplays13);
  REQUIRE(info.active.has_value());
  CHECK(info.active->hz == 90.0);
  CHECK(info.active->source == "activeModeId");
  CHECK(info.active->mode_id == 1);
  CHECK(info.modes.size() == 2);
}

TEST_CASE("display: SurfaceFlinger time-in-mode lines only decide when one rate was used", "[display]") {
  auto r = parse_surfaceflinger_refresh_rate("ScreenOff: 0d00:01:25.633\n60fps: 0d00:00:49.908\n");
  REQUIRE(r.has_value());
  CHECK(r->hz == 60.0);
  CHECK(r->source == "mode time");
  CHECK_FALSE(parse_surfaceflinger_refresh_rate("120.00 Hz: 0d00:00:01.000\n60.00 Hz: 0d00:00:02.000\n").has_value());
  // VSYNC padding varies; a period of 0 or a rate above 1000 Hz is rejected.
  r = parse_surfaceflinger_refresh_rate("present offset: 0 ns\tVSYNC period:16666666 ns\n");
  REQUIRE(r.has_value());
  CHECK(r->period_ns == 16666666);
  CHECK_FALSE(parse_surfaceflinger_refresh_rate("VSYNC period:  0 ns\n").has_value());
  CHECK_FALSE(parse_surfaceflinger_refresh_rate("VSYNC period:  999 ns\n").has_value());
  CHECK_FALSE(parse_surfaceflinger_refresh_rate("VSYNC period:  -5 ns\n").has_value());
}

TEST_CASE("display: SurfaceFlinger CRLF and UTF-16LE", "[display]") {
  for (const std::string& text : {jank::test::crlf(kSf14), decode_to_utf8(to_utf16le_bom(jank::test::crlf(kSf14)))}) {
    const auto info = parse_surfaceflinger_info(text);
    REQUIRE(info.active.has_value());
    CHECK(info.active->period_ns == 8333333);
    CHECK(info.modes.size() == 2);
  }
}

// ---- [ps] -------------------------------------------------------------------

TEST_CASE("ps: toybox ps -A with overflowing columns and kernel threads", "[ps]") {
  const ProcessList list = parse_process_list(
      "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME                       \n"
      "root             1     0 10000000  9000 do_epoll_wait       0 S init\n"
      "root             2     0       0      0 kthreadd            0 S [kthreadd]\n"
      "webview_zygote_long 3001  500 1000 100 do_sys_poll 0 S webview_zygote\n"
      "system         900   500 20000000 300000 binder_wait_for_work 0 S system_server   \n"
      "u0_a55        4242   500 15000000 99000 0                   0 R com.example.app:remote\n");
  CHECK(list.header_lines == 1);
  CHECK(list.malformed_lines == 0);
  REQUIRE(list.processes.size() == 5);
  CHECK(list.processes[0].pid == 1);
  CHECK(list.processes[0].ppid == 0);
  CHECK(list.processes[0].user == "root");
  CHECK(list.processes[0].name == "init");
  CHECK_FALSE(list.processes[0].kernel_thread);
  CHECK(list.processes[1].name == "[kthreadd]");
  CHECK(list.processes[1].kernel_thread);
  CHECK(list.processes[2].user == "webview_zygote_long");
  CHECK(list.processes[2].pid == 3001);
  CHECK(list.processes[3].name == "system_server");  // trailing spaces dropped
  CHECK(list.processes[4].name == "com.example.app:remote");
}

TEST_CASE("ps: toolbox ps and ps -P with the unlabelled state column", "[ps]") {
  const ProcessList plain = parse_process_list(
      "USER     PID   PPID  VSIZE  RSS     WCHAN    PC         NAME\n"
      "root      1     0     1000   500   ffffffff 00000000 S /init\n"
      "root      2     0     0      0       kthreadd 0000000000 S kthreadd\n");
  REQUIRE(plain.processes.size() == 2);
  CHECK(plain.processes[0].name == "/init");
  CHECK(plain.processes[1].name == "kthreadd");

  const ProcessList pcy = parse_process_list(
      "USER     PID   PPID  VSIZE  RSS    PCY  WCHAN    PC        NAME\n"
      "root      112   2     0      0     fg  ffffffff 00000000 S mtk charger_hv_\n"
      "u0_a12    1392  300   9000   4000  bg  ffffffff 00000000 S com.example.ime\n"
      "[ps: 0.101s elapsed]\n");
  REQUIRE(pcy.processes.size() == 2);
  CHECK(pcy.processes[0].pid == 112);
  CHECK(pcy.processes[0].ppid == 2);
  CHECK(pcy.processes[0].name == "mtk charger_hv_");
  CHECK(pcy.processes[1].user == "u0_a12");
  CHECK(pcy.malformed_lines == 1);
}

TEST_CASE("ps: prompts, no header, short rows, CRLF and UTF-16LE", "[ps]") {
  const std::string text =
      "A3A:/ $ ps\n"
      "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n"
      "shell        21989 32761    4952   2532 sigsuspend   b2f1d778 S sh\n"
      "shell        x1992 21989    5568   3016 0            b4396448 R ps\n"
      "shell        21993\n";
  for (const std::string& t : {text, jank::test::crlf(text), decode_to_utf8(to_utf16le_bom(jank::test::crlf(text)))}) {
    const ProcessList list = parse_process_list(t);
    REQUIRE(list.processes.size() == 1);
    CHECK(list.processes[0].name == "sh");
    CHECK(list.malformed_lines == 3);
  }
  CHECK(parse_process_list("1 init\n2 kthreadd\n").processes.empty());
  // A header without PPID/USER (ps -o PID,NAME).
  const ProcessList o = parse_process_list("  PID NAME\n    1 init\n  832 system_server\n");
  REQUIRE(o.processes.size() == 2);
  CHECK(o.processes[1].pid == 832);
  CHECK(o.processes[1].ppid == -1);
  CHECK(o.processes[1].user.empty());
}

// ---- [getprop] --------------------------------------------------------------

TEST_CASE("getprop: plain lines, prompt, multi-line values, malformed lines", "[getprop]") {
  const Properties p = parse_properties(
      "device:/ # getprop\n"
      "[Build.BRAND]: [MTK]\n"
      "[debug.choreographer.skipwarning]: [5]\n"
      "[persist.sys.boot.reason.history]: [reboot,ota,1700000000\n"
      "reboot,userrequested,1699999999\n"
      "cold,1699999000]\n"
      "[persist.vendor.pq.mode]: [0\n"
      "]\n"
      "]persist.broken]: [no closing bracket\n"
      "[ro.build.fingerprint]: [acme/phone/phone:14/AB1.2/1:user/release-keys]\n"
      "[ro.build.type]: [userdebug]\n"
      "[ro.build.version.release]: [15]\n"
      "[ro.build.version.sdk]: [35]\n"
      "[ro.debuggable]: [1]\n"
      "[ro.product.manufacturer]: [Acme]\n"
      "[ro.product.model]: [Phone X [5G] ünïcode]\n"
      "[ro.empty]: []\n");
  CHECK(p.command_echo);
  CHECK(p.malformed_lines == 1);
  CHECK(p.values.size() == 12);
  CHECK(p.values.at("persist.sys.boot.reason.history") ==
        "reboot,ota,1700000000\nreboot,userrequested,1699999999\ncold,1699999000");
  CHECK(p.values.at("persist.vendor.pq.mode") == "0\n");
  CHECK(p.values.at("ro.empty").empty());
  const DeviceFacts f = device_facts(p);
  CHECK(f.model == std::string("Phone X [5G] ünïcode"));
  CHECK(f.manufacturer == std::string("Acme"));
  CHECK(f.sdk == 35);
  CHECK(f.release == std::string("15"));  // the fingerprint's "14" is not used
  CHECK(f.fingerprint == std::string("acme/phone/phone:14/AB1.2/1:user/release-keys"));
  CHECK(f.choreographer_skipwarning == 5);
  CHECK(f.debuggable == true);
  CHECK(f.build_type == std::string("userdebug"));
}

TEST_CASE("getprop: absent and unparsable facts stay empty", "[getprop]") {
  const Properties p = parse_properties("[ro.build.version.sdk]: [S]\n[ro.debuggable]: [maybe]\n");
  const DeviceFacts f = device_facts(p);
  CHECK_FALSE(f.sdk.has_value());
  CHECK_FALSE(f.debuggable.has_value());
  CHECK_FALSE(f.model.has_value());
  CHECK_FALSE(f.choreographer_skipwarning.has_value());
  CHECK(device_facts(parse_properties("[ro.debuggable]: [0]\n")).debuggable == false);
}

TEST_CASE("getprop: an unterminated value is dropped, the next property survives", "[getprop]") {
  const Properties p = parse_properties(
      "getprop\n"
      "[a.open]: [first part\n"
      "[b.next]: [ok]\n"
      "[c.open]: [never closed\n"
      "tail\n");
  CHECK(p.command_echo);
  CHECK(p.values.size() == 1);
  CHECK(p.values.at("b.next") == "ok");
  CHECK(p.malformed_lines == 2);
  // A later echo is malformed, only the first line may be a command.
  CHECK(parse_properties("[a]: [1]\ngetprop\n").malformed_lines == 1);
}

TEST_CASE("getprop: CRLF and UTF-16LE captures", "[getprop]") {
  const std::string text = "getprop\n[ro.product.model]: [SM-X]\n[persist.h]: [a\nb]\n[ro.build.version.sdk]: [36]\n";
  for (const std::string& t : {jank::test::crlf(text), decode_to_utf8(to_utf16le_bom(jank::test::crlf(text)))}) {
    const Properties p = parse_properties(t);
    CHECK(p.command_echo);
    CHECK(p.malformed_lines == 0);
    CHECK(p.values.at("ro.product.model") == "SM-X");
    CHECK(p.values.at("persist.h") == "a\nb");
    CHECK(device_facts(p).sdk == 36);
  }
}

// ---- [focus] ----------------------------------------------------------------

TEST_CASE("focus: mCurrentFocus wins over a disagreeing mFocusedApp", "[focus]") {
  const auto app = parse_foreground_app(
      "  mCurrentFocus=Window{41b37570 u0 com.acme.launcher/com.acme.launcher.Home}\n"
      "  mFocusedApp=AppWindowToken{422df168 token=Token{422def98 ActivityRecord{422dee38 u0 com.acme.player/.Play t14}}}\n");
  REQUIRE(app.has_value());
  CHECK(app->package == "com.acme.launcher");
  CHECK(app->activity == "com.acme.launcher.Home");
  CHECK(app->user == 0);
  CHECK(app->source == "mCurrentFocus");
  CHECK_FALSE(app->focus_on_system_window);
  CHECK_FALSE(app->pid.has_value());
}

TEST_CASE("focus: per-display focus lines, null and system windows", "[focus]") {
  const auto app = parse_foreground_app(
      "  mCurrentFocus=null\n"
      "  mCurrentFocus=Window{1651cd4 u0 StatusBar}\n"
      "  mCurrentFocus=Window{5e9b13b u10 com.acme.chat/com.acme.chat.Main}\n");
  REQUIRE(app.has_value());
  CHECK(app->package == "com.acme.chat");
  CHECK(app->user == 10);
  CHECK_FALSE(app->focus_on_system_window);

  // Shade over the app (Android 13, screen off): the resumed app is reported
  // and flagged; the stray brace after the component is tolerated.
  const auto shade = parse_foreground_app(
      "  ResumedActivity: ActivityRecord{1f72345 u0 com.acme.camera/.Launcher} t12}\n"
      "  mCurrentFocus=Window{1651cd4 u0 NotificationShade}\n"
      "  mFocusedApp=ActivityRecord{1f72345 u0 com.acme.camera/.Launcher} t12}\n");
  REQUIRE(shade.has_value());
  CHECK(shade->package == "com.acme.camera");
  CHECK(shade->activity == "com.acme.camera.Launcher");
  CHECK(shade->source == "ResumedActivity");
  CHECK(shade->focus_on_system_window);

  // Only system focus and nothing else: no app.
  CHECK_FALSE(parse_foreground_app("  mCurrentFocus=Window{1651cd4 u0 NotificationShade}\n").has_value());
  CHECK_FALSE(parse_foreground_app("  mCurrentFocus=null\n  mFocusedApp=null\n").has_value());
}

TEST_CASE("focus: vivo type suffix and package-prefixed hashes", "[focus]") {
  const auto app = parse_foreground_app(
      "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
      "  Window #0 Window{com.android.systemui:6d67f78 u0 StatusBar type=2000 }:\n"
      "  Window #1 Window{com.acme.ime:f8bf73d u0 InputMethod type=2011 }:\n"
      "  Window #2 Window{dc9225c u999 com.acme.clone/com.acme.clone.Main type=1 }:\n"
      "  Window #3 Window{af77275 u0 com.acme.home/.Launcher type=1 }:\n");
  REQUIRE(app.has_value());
  CHECK(app->package == "com.acme.clone");
  CHECK(app->user == 999);
  CHECK(app->source == "Window #");
  const auto focus = parse_foreground_app("  mCurrentFocus=Window{dc9225c u0 com.acme.a/com.acme.a.Main type=1 }\n");
  REQUIRE(focus.has_value());
  CHECK(focus->activity == "com.acme.a.Main");
}

TEST_CASE("focus: activity dumps", "[focus]") {
  auto app = parse_foreground_app(
      "Display #0 (activities from top to bottom):\n"
      "    topResumedActivity=ActivityRecord{723ebbb u0 com.acme.term/.app.TermActivity t1082}\n"
      "  ResumedActivity: ActivityRecord{111 u0 com.acme.other/.X t1}\n");
  REQUIRE(app.has_value());
  CHECK(app->package == "com.acme.term");
  CHECK(app->activity == "com.acme.term.app.TermActivity");
  CHECK(app->source == "topResumedActivity");

  app = parse_foreground_app(
      "    mResumedActivity: null\n"
      "    mResumedActivity: ActivityRecord{53d1401 u0 com.acme.car/.activity.MainActivity t75}\n");
  REQUIRE(app.has_value());
  CHECK(app->package == "com.acme.car");
  CHECK(app->source == "mResumedActivity");

  // dumpsys activity top: the resumed ACTIVITY with its pid.
  app = parse_foreground_app(
      "TASK com.acme.pip id=3 userId=0\n"
      "  ACTIVITY com.acme.pip/.PipActivity 1a2b3c pid=1111\n"
      "    Local Activity 77 State:\n"
      "      mResumed=false mStopped=true mFinished=false\n"
      "TASK null id=2 userId=0\n"
      "  ACTIVITY com.acme.launcher/.lineage.Launcher 9a38704 pid=2268\n"
      "    Local Activity 9813b75 State:\n"
      "      mResumed=true mStopped=false mFinished=false\n");
  REQUIRE(app.has_value());
  CHECK(app->package == "com.acme.launcher");
  CHECK(app->pid == 2268);
  CHECK(app->source == "ACTIVITY");
  app = parse_foreground_app("  ACTIVITY com.acme.x/.Y 1 pid=(not running)\n");
  REQUIRE(app.has_value());
  CHECK_FALSE(app->pid.has_value());
}

TEST_CASE("focus: 80-column console wrapping", "[focus]") {
  // The console cut the line after 80 characters.
  const std::string line =
      "  mCurrentFocus=Window{e615992 u0 com.acme.photos/com.acme.photos.home.HomeActivity}";
  const std::string wrapped = line.substr(0, 80) + "\n" + line.substr(80) + "\n  mFocusedApp=null\n";
  const auto app = parse_foreground_app(wrapped);
  REQUIRE(app.has_value());
  CHECK(app->package == "com.acme.photos");
  CHECK(app->activity == "com.acme.photos.home.HomeActivity");
  const auto crlf = parse_foreground_app(jank::test::crlf(wrapped));
  REQUIRE(crlf.has_value());
  CHECK(crlf->activity == "com.acme.photos.home.HomeActivity");
}

TEST_CASE("focus: error outputs and invalid packages give nothing", "[focus]") {
  CHECK_FALSE(parse_foreground_app("Unknown command: com.acme\nBad activity command, or no activities match: com.acme\n"
                                   "Use -h for help.\n")
                  .has_value());
  CHECK_FALSE(parse_foreground_app("Can't find service: window\n").has_value());
  CHECK_FALSE(parse_foreground_app("  mCurrentFocus=Window{1 u0 com.acme;rm -rf/x.Y}\n").has_value());
  CHECK_FALSE(parse_foreground_app("  mCurrentFocus=Window{1 u0 /x.Y}\n").has_value());
  CHECK_FALSE(parse_foreground_app("").has_value());
}

TEST_CASE("focus: UTF-16LE CRLF window dump", "[focus]") {
  const std::string text =
      "  Window #0 Window{1 u0 StatusBar type=2000 }:\r\n  Window #1 Window{2 u0 com.acme.a/.Main type=1 }:\r\n";
  const auto app = parse_foreground_app(decode_to_utf8(to_utf16le_bom(text)));
  REQUIRE(app.has_value());
  CHECK(app->package == "com.acme.a");
  CHECK(app->activity == "com.acme.a.Main");
}

// ---- [package] --------------------------------------------------------------

namespace {

constexpr std::string_view kPackage = R"(Activity Resolver Table:
  Non-Data Actions:
      android.intent.action.MAIN:
        4a3b2c1 com.acme.tool/.Main filter 5d6e7f8
Packages:
  Package [com.acme.tool] (d8c71fd):
    userId=10234
    pkg=Package{b1b1b1 com.acme.tool}
    versionCode=42 minSdk=26 targetSdk=34
    minExtensionVersions=[]
    versionName=4.2-beta+build.7
    installerPackageName=com.android.vending
    timeStamp=2024-05-01 10:00:00
    firstInstallTime=2024-04-01 09:00:00
    lastUpdateTime=2024-05-01 10:00:01
    User 0: ceDataInode=1 installed=true hidden=false suspended=false stopped=false
      firstInstallTime=2024-04-01 09:00:00
    User 10: ceDataInode=0 installed=false hidden=false suspended=false stopped=true

Hidden system packages:
  Package [com.acme.tool] (e691a5):
    versionCode=1 minSdk=26 targetSdk=30
    versionName=1.0
    User 0: ceDataInode=1 installed=true

Queries:
  system apps queryable: false
    User 0:
    User 99:
)";

}  // namespace

TEST_CASE("package: the active block, not the hidden system copy", "[package]") {
  const auto info = parse_package_info(kPackage);
  REQUIRE(info.has_value());
  CHECK(info->package == "com.acme.tool");
  CHECK(info->version_code == 42);
  CHECK(info->version_name == std::string("4.2-beta+build.7"));
  CHECK(info->min_sdk == 26);
  CHECK(info->target_sdk == 34);
  CHECK(info->installer == std::string("com.android.vending"));
  CHECK(info->first_install_time == std::string("2024-04-01 09:00:00"));
  CHECK(info->last_update_time == std::string("2024-05-01 10:00:01"));
  CHECK_FALSE(info->hidden_system_package);
  REQUIRE(info->users.size() == 2);  // the Queries section's "User N:" lines are not the package's
  CHECK(info->users[0].user == 0);
  CHECK(info->users[0].installed == true);
  CHECK(info->users[1].user == 10);
  CHECK(info->users[1].installed == false);
  // Named lookup; an unknown name gives nothing.
  CHECK(parse_package_info(kPackage, "com.acme.tool")->version_code == 42);
  CHECK_FALSE(parse_package_info(kPackage, "com.acme.absent").has_value());
}

TEST_CASE("package: a hidden block alone is used and flagged", "[package]") {
  const std::string_view hidden_only = kPackage.substr(kPackage.find("Hidden system packages:"));
  const auto info = parse_package_info(hidden_only);
  REQUIRE(info.has_value());
  CHECK(info->version_code == 1);
  CHECK(info->target_sdk == 30);
  CHECK(info->hidden_system_package);
}

TEST_CASE("package: old one-line layout, errors and garbage", "[package]") {
  const auto old = parse_package_info(
      "Packages:\n"
      "  Package [com.acme.old] (4a4a4a):\n"
      "    versionCode=7 targetSdk=23\n"
      "    versionName=null\n");
  REQUIRE(old.has_value());
  CHECK(old->version_code == 7);
  CHECK_FALSE(old->min_sdk.has_value());
  CHECK(old->target_sdk == 23);
  CHECK(old->version_name == std::string("null"));
  CHECK_FALSE(parse_package_info("Unable to find package: com.acme.none\n").has_value());
  CHECK_FALSE(parse_package_info("").has_value());
  CHECK_FALSE(parse_package_info("  Package [bad name!] (1):\n    versionCode=1\n").has_value());
  const auto bad = parse_package_info("  Package [com.acme.x] (1):\n    versionCode=12abc minSdk=-\n");
  REQUIRE(bad.has_value());
  CHECK_FALSE(bad->version_code.has_value());
  CHECK_FALSE(bad->min_sdk.has_value());
}

TEST_CASE("package: CRLF and UTF-16LE captures", "[package]") {
  for (const std::string& t : {jank::test::crlf(kPackage), decode_to_utf8(to_utf16le_bom(jank::test::crlf(kPackage)))}) {
    const auto info = parse_package_info(t);
    REQUIRE(info.has_value());
    CHECK(info->version_code == 42);
    CHECK(info->version_name == std::string("4.2-beta+build.7"));
    CHECK(info->users.size() == 2);
  }
}

// ---- robustness (all five) --------------------------------------------------

TEST_CASE("device parsers: random and adversarial input never crash", "[display][ps][getprop][focus][package]") {
  std::mt19937 rng(20240601);
  const std::string_view alphabet = "[]{}=:/. ,\n\r\t0123456789abcdefuxHzfpsWindow#ActivityRecordmodeid-";
  const std::string fixtures[] = {std::string(kDisplay14), std::string(kSf14), std::string(kPackage)};
  for (int i = 0; i < 300; ++i) {
    std::string s = random_bytes(rng, 1 + static_cast<std::size_t>(i) * 7, alphabet);
    if (i % 3 == 0) {
      // Cut a real layout at a random point and splice garbage in.
      const std::string& f = fixtures[static_cast<std::size_t>(i / 3) % 3];
      std::size_t cut = static_cast<std::size_t>(i) * 131 % f.size();
      s = f.substr(0, cut) + s + f.substr(cut);
    }
    (void)parse_display_info(s);
    (void)parse_surfaceflinger_info(s);
    (void)parse_process_list(s);
    (void)device_facts(parse_properties(s));
    (void)parse_foreground_app(s);
    (void)parse_package_info(s);
  }
  // Pathological shapes: unterminated braces and brackets, huge numbers.
  const std::string big(100000, '[');
  CHECK(parse_properties(big).values.empty());
  CHECK_FALSE(parse_display_refresh_rate("mActiveSfDisplayMode=DisplayMode{id=99999999999999999999, refreshRate=60\n")
                  .has_value());
  CHECK_FALSE(parse_surfaceflinger_refresh_rate("VSYNC period: 99999999999999999999999 ns\n").has_value());
  CHECK_FALSE(parse_foreground_app(std::string(80, 'x') + "\n" + "mCurrentFocus=Window{" + std::string(79, 'a')).has_value());
  CHECK(parse_process_list("USER PID PPID NAME\nroot 99999999999 1 x\n").processes.empty());
}
