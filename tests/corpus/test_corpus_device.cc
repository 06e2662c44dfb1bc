// Real device captures from ../shared/corpus/device/{display,surfaceflinger,
// ps,getprop,focus,package} against the facts listed in SOURCES.md ("##
// device/"). Expected values are transcribed from SOURCES.md into the tables
// below, never derived from the parsers. Every file of those folders must
// have a row (a new capture without one fails the coverage test).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/display_info.h"
#include "parsers/foreground_app.h"
#include "parsers/package_info.h"
#include "parsers/process_list.h"
#include "parsers/properties.h"
#include "parsers/sf_layers.h"
#include "parsers/text_input.h"

namespace fs = std::filesystem;
using namespace jank::parsers;

namespace {

const fs::path kDeviceDir = fs::path(JANK_CORPUS_DIR) / "device";

bool corpus_missing() {
  if (fs::is_directory(kDeviceDir)) return false;
  WARN("corpus directory " << kDeviceDir << " not found: skipped");
  return true;
}

std::string load(std::string_view folder, std::string_view name) {
  const fs::path p = kDeviceDir / folder / name;
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return decode_to_utf8(bytes);
}

constexpr double kNone = -1;  // "not present in the file"

// ---- display/ and surfaceflinger/ -------------------------------------------

struct ModeFact {
  std::int32_t id;
  double hz;
};

struct RateFacts {
  std::string_view file;
  double active_hz;                 // kNone: the file names no active rate
  std::string_view source;          // which line the rate must come from
  std::int64_t period_ns;           // -1: rate not derived from a period
  std::int32_t mode_id;             // -1: no active mode id printed
  double render_hz;                 // kNone: not printed
  std::vector<ModeFact> modes;      // supported modes of the display, printed order
};

// dumpsys display. Rates exactly as printed (SOURCES.md "active: … @ X Hz").
const std::vector<RateFacts>& display_files() {
  static const std::vector<RateFacts> files = {
      // mode 2 → 1440x3168 @ 120.00001; modes id1..id4.
      {"airtest796_oneplus8pro_android10_mbasedisplayinfo_4modes_excerpt.txt", 120.00001, "DisplayInfo", -1, 2,
       kNone, {{1, 60.000004}, {2, 120.00001}, {3, 60.000004}, {4, 120.00001}}},
      // mActiveModeId=1 → 57.999996; SF mode 57.999996; one mode; no renderFrameRate.
      {"healer_android13_mtk_tablet_58hz_dumpsys_display.txt", 57.999996, "mActiveSfDisplayMode", -1, 1, kNone,
       {{1, 57.999996}}},
      // mActiveModeId=3 → 90.0; renderFrameRate 90.0; 7 modes.
      {"pipa_android14_xiaomipad6_7modes_active90hz_dumpsys_display.txt", 90.0, "mActiveSfDisplayMode", -1, 3, 90.0,
       {{1, 120.00001}, {2, 144.00002}, {3, 90.0}, {4, 60.000004}, {5, 50.0}, {6, 48.000004}, {7, 30.000002}}},
      // one mode fps=60.02573; renderFrameRate 30.012865 must not be the panel rate.
      {"rpi5_raspberryvanilla190_android15_render30_vs_60hz_excerpt.txt", 60.02573, "single mode", -1, 1, 30.012865,
       {{1, 60.02573}}},
      // 5 SF modes, no active mode in the file.
      {"s23_rootmygalaxy419_android15plus_sfdisplaymodes_excerpt.txt", kNone, "", -1, -1, kNone,
       {{2, 60.000004}, {3, 48.000004}, {4, 30.000002}, {5, 24.000002}, {6, 10.0}}},
  };
  return files;
}

// dumpsys SurfaceFlinger. Period lines give 1e9/period exactly.
const std::vector<RateFacts>& sf_files() {
  static const std::vector<RateFacts> files = {
      {"flutter11484_emulator2017_old_dispsync_excerpt.txt", 1e9 / 16666666.0, "DispSync refresh", 16666666, -1,
       kNone, {}},
      {"haval_android9_carheadunit_5displays_dumpsys_sf.txt", 1e9 / 16666666.0, "DispSync refresh", 16666666, -1,
       kNone, {}},
      // VSYNC period 17241379 ns → 58.00 Hz; activeModeId=0, one 58.00 Hz mode.
      {"healer_android13_58hz_dumpsys_surfaceflinger.txt", 1e9 / 17241379.0, "VSYNC period", 17241379, 0, kNone,
       {{0, 58.0}}},
      // --displays: activeModeId=0 → 58.00 Hz.
      {"healer_android13_58hz_sf_displays.txt", 58.0, "activeModeId", -1, 0, kNone, {{0, 58.0}}},
      // activeMode=120.00 Hz (120.00 Hz) with powerMode=Off.
      {"oplus_android14_sf_displays_active120_slice.txt", 120.0, "activeMode", -1, -1, 120.0,
       {{0, 120.0}, {1, 60.0}, {2, 90.0}, {3, 120.0}}},
      // activeMode=60.00 Hz although the policy pins 120 Hz.
      {"oplus_android14_sf_displays_active60_policy120_slice.txt", 60.0, "activeMode", -1, -1, 60.0,
       {{0, 120.0}, {1, 60.0}, {2, 90.0}, {3, 120.0}}},
      {"oplus_android14_sf_head_to_vsync_120hz_slice.txt", 1e9 / 8333333.0, "VSYNC period", 8333333, -1, kNone, {}},
      {"oplus_android14_sf_head_to_vsync_60hz_slice.txt", 1e9 / 16666666.0, "VSYNC period", 16666666, -1, kNone,
       {}},
      // --list excerpt: no refresh information.
      {"solox303_android15_sf_list_requestedlayerstate_excerpt.txt", kNone, "", -1, -1, kNone, {}},
      // only "60.00fps: 0d00:00:49.908" (besides ScreenOff) → 60 Hz.
      {"treble2338_cats22_gsi_sf_scheduler_excerpt.txt", 60.0, "mode time", -1, -1, kNone, {}},
      {"utzcoz_aosp10_emulator_dumpsys_sf.txt", 1e9 / 16666666.0, "VSYNC period", 16666666, -1, kNone, {}},
      {"utzcoz_aosp11_emulator_dumpsys_sf.txt", 1e9 / 16666666.0, "VSYNC period", 16666666, -1, kNone, {}},
      // activeMode={id=0, … refreshRate=60.00fps …}; 1 mode.
      {"utzcoz_aosp12_emulator_dumpsys_sf.txt", 1e9 / 16666666.0, "VSYNC period", 16666666, 0, kNone, {{0, 60.0}}},
      // activeMode=60.00 Hz (60.00 Hz); 1 mode.
      {"utzcoz_aosp14_emulator_dumpsys_sf.txt", 1e9 / 16666666.0, "VSYNC period", 16666666, -1, 60.0, {{0, 60.0}}},
      {"utzcoz_aosp9_emulator_dumpsys_sf.txt", 1e9 / 16666666.0, "DispSync refresh", 16666666, -1, kNone, {}},
  };
  return files;
}

void check_rate(const RefreshInfo& info, const RateFacts& f) {
  INFO(f.file);
  if (f.active_hz == kNone) {
    CHECK_FALSE(info.active.has_value());
  } else {
    REQUIRE(info.active.has_value());
    CHECK(info.active->hz == f.active_hz);  // exact: the printed value or 1e9/period
    CHECK(info.active->source == f.source);
    if (f.period_ns >= 0) CHECK(info.active->period_ns == f.period_ns);
    else CHECK_FALSE(info.active->period_ns.has_value());
    if (f.mode_id >= 0) CHECK(info.active->mode_id == f.mode_id);
    else CHECK_FALSE(info.active->mode_id.has_value());
  }
  if (f.render_hz == kNone) CHECK_FALSE(info.render_hz.has_value());
  else CHECK(info.render_hz == f.render_hz);
  REQUIRE(info.modes.size() == f.modes.size());
  double peak = 0;
  for (std::size_t i = 0; i < f.modes.size(); ++i) {
    CHECK(info.modes[i].id == f.modes[i].id);
    CHECK(info.modes[i].hz == f.modes[i].hz);
    peak = std::max(peak, f.modes[i].hz);
  }
  if (!f.modes.empty()) CHECK(info.peak_hz == peak);
}

// ---- ps/ --------------------------------------------------------------------

struct PsExample {
  std::int32_t pid;
  std::string_view name;
};
struct PsFacts {
  std::string_view file;
  std::size_t processes;
  std::vector<PsExample> examples;
};

const std::vector<PsFacts>& ps_files() {
  static const std::vector<PsFacts> files = {
      {"appiumadb395_alcatel5052y_plain_ps_shell_only_excerpt.txt", 2, {{21989, "sh"}, {21992, "ps"}}},
      {"healer_android13_ps_A.txt", 343,
       {{1, "init"}, {832, "system_server"}, {2420, "com.android.systemui"}, {428, "zygote64"}, {429, "zygote"},
        {474, "surfaceflinger"}}},
      {"redroid88_android11_container_ps_A_wchan_overflow_excerpt.txt", 14,
       {{1, "init"}, {8, "init"}, {60, "android.hardware.audio.service"}}},
      {"stf806_nexus6p_android8.1_plain_ps_self_only_excerpt.txt", 1, {{28030, "ps"}}},
      {"vscodecordova304_2017_toolbox_ps_64bit_pc_excerpt.txt", 17, {{1, "/init"}, {2, "kthreadd"}, {24, "ksoftirqd/3"}}},
      {"yasserjemli_android5.1_mtk_toolbox_ps_P.txt", 201,
       {{1, "/init"}, {731, "system_server"}, {1392, "com.google.android.inputmethod.latin"}}},
  };
  return files;
}

// ---- getprop/ ---------------------------------------------------------------

struct PropFacts {
  std::string_view file;
  std::size_t properties;
  std::int32_t sdk;
  std::string_view release;
  std::string_view model;
  std::string_view fingerprint;
  std::uint64_t malformed;  // SOURCES.md: the one malformed line of the haval capture
  bool command_echo;        // first line is a prompt or an echoed `getprop`
};

const std::vector<PropFacts>& prop_files() {
  static const std::vector<PropFacts> files = {
      {"fiio_m17_android10_getprop_with_prompt.txt", 812, 29, "10", "FiiO M17",
       "qti/sdm660_64/sdm660_64:10/QKQ1/eng.FiiO.20220611.123806:user/release-keys", 0, true},
      {"haval_android9_gwm_carheadunit_getprop.txt", 988, 28, "9", "msmnile_gvmq for arm64",
       "qti/gwm/gwm:9/PQ1A.190105.004/bean12291953:user/test-keys", 1, false},
      {"healer_android13_bugreport_getprop_multiline_value.txt", 1186, 33, "13", "tb8168p1_64_bsp_k510",
       "AXXS/vnd_tb8168p1_64_bsp_k510/tb8168p1_64_bsp_k510:13/TQ3A.230805.001.S2/mp5V424:userdebug/release-keys", 0,
       false},
      {"honor_bkl_android8.0_emui_getprop.txt", 891, 26, "8.0.0", "BKL-L09",
       "HONOR/BKL-L09/HWBKL:8.0.0/HUAWEIBKL-L09/130(C432):user/release-keys", 0, false},
      {"huawei_g700_android4.4_getprop.txt", 429, 19, "4.4.2", "G700-U20",
       "Xiaomi/2013023/HM2013023:4.4.2/HM2013023/7.2.9:user/release-keys", 0, false},
      {"moto_edge20_android13_getprop.txt", 863, 33, "13", "motorola edge 20",
       "motorola/berlin_global/berlin:13/T1RGS33.135-109-9-1/cd9ba-7b59ee:user/release-keys", 0, false},
      {"oneplus_n10_android11_getprop.txt", 1120, 30, "11", "BE2028",
       "OnePlus/OnePlusN10TMO/OnePlusN10TMO:11/RKQ1.201217.002/2307051826:user/release-keys", 0, false},
      {"pipa_android14_xiaomipad6_hyperos_getprop.txt", 1178, 34, "14", "23043RP34G",
       "Xiaomi/pipa_eea/pipa:14/UKQ1.240624.001/OS2.0.12.0.UMZEUXM:user/release-keys", 0, false},
      {"pixel8pro_android16_getprop.txt", 812, 36, "16", "Pixel 8 Pro",
       "google/husky/husky:16/CP1A.260305.018/14887507:user/release-keys", 0, false},
      {"poco_peridot_android15_fingerprint14_getprop.txt", 1067, 35, "15", "24069PC21I",
       "POCO/peridot_global/peridot:14/UKQ1.240624.001/OS2.0.100.0.VNPMIXM:user/release-keys", 0, false},
      {"redmi_lime_android12_getprop.txt", 794, 31, "12", "M2010J19SI",
       "Redmi/lime_in/lime:12/SKQ1.211202.001/V14.0.2.0.SJQINXM:user/release-keys", 0, false},
      {"redmi_note14_android15_getprop_with_echo.txt", 2007, 35, "15", "24094RAD4G",
       "Redmi/citrine_global/citrine:15/AP3A.240905.015.A2/OS2.0.211.0.VOQMIXM:user/release-keys", 0, true},
      {"samsung_j4core_android8.1_getprop.txt", 736, 27, "8.1.0", "SM-J410G",
       "samsung/j4corelteub/j4corelte:8.1.0/M1AJB/J410GUBS1ATD2:user/release-keys", 0, false},
      {"samsung_s25_android16_getprop_utf16le_crlf.txt", 1582, 36, "16", "SM-S936B",
       "samsung/pa2qxeea/pa2q:16/BP4A.251205.006/S936BXXUACZF1_OXMACZF1:user/release-keys", 0, false},
  };
  return files;
}

// ---- focus/ -----------------------------------------------------------------

struct FocusFacts {
  std::string_view file;
  std::string_view package;   // "" → no foreground app
  std::string_view activity;  // fully qualified
  std::string_view source;
  std::int32_t pid;           // -1: not printed
  bool system_focus;          // mCurrentFocus named no app (shade, null)
};

const std::vector<FocusFacts>& focus_files() {
  static const std::vector<FocusFacts> files = {
      {"adbenhanced4_2018_google_photos_mcurrentfocus_excerpt.txt", "com.google.android.apps.photos",
       "com.google.android.apps.photos.home.HomeActivity", "mCurrentFocus", -1, false},
      {"appiumadb797_android12_flip4_three_displays_excerpt.txt", "jp.naver.line.android",
       "jp.naver.line.android.activity.main.MainActivity", "mCurrentFocus", -1, false},
      // Top task's realActivity (no resumed line in the kept part).
      {"brevent54_samsung2017_activity_activities_console_wrapped80_excerpt.txt", "me.piebridge.brevent",
       "me.piebridge.brevent.ui.BreventActivity", "realActivity", -1, false},
      {"connglli61_lineageos_activity_top_excerpt.txt", "com.android.launcher3",
       "com.android.launcher3.lineage.LineageLauncher", "ACTIVITY", 2268, false},
      {"haval_android9_carheadunit_activity_activities.txt", "com.beantechs.vehiclecenter",
       "com.beantechs.vehiclecenter.activity.MainActivity", "ResumedActivity", -1, false},
      // Screen off: the shade has focus; last resumed = the camera.
      {"healer_android13_activity_activities_screen_off.txt", "com.mediatek.camera",
       "com.mediatek.camera.CameraLauncher", "ResumedActivity", -1, true},
      {"healer_android13_window_displays_notificationshade.txt", "com.mediatek.camera",
       "com.mediatek.camera.CameraLauncher", "mFocusedApp", -1, true},
      {"lodrean_dumpsys_activity_pkg_bad_command.txt", "", "", "", -1, false},
      {"miui_android8or9_window_windows_mcurrentfocus.txt", "com.xiaomi.account",
       "com.xiaomi.account.ui.LoginActivity", "mCurrentFocus", -1, false},
      {"pipa_android14_xiaomipad6_activity_activities.txt", "com.termux", "com.termux.app.TermuxActivity",
       "mCurrentFocus", -1, false},
      {"pixel_emulator_activity_activities_topresumed.txt", "com.google.android.apps.nexuslauncher",
       "com.google.android.apps.nexuslauncher.NexusLauncherActivity", "mCurrentFocus", -1, false},
      // No mCurrentFocus/mFocusedApp: the topmost app window (Window #8) is used.
      {"pixel_emulator_window_windows_no_mcurrentfocus.txt", "com.google.android.apps.nexuslauncher",
       "com.google.android.apps.nexuslauncher.NexusLauncherActivity", "Window #", -1, false},
      {"uiautomator2_200_android4x_carheadunit_window_windows_excerpt.txt", "com.incall.apps.launcher",
       "com.incall.apps.launcher.Launcher", "mCurrentFocus", -1, false},
      {"uiautomator2_952_android13or14_window_windows_bili_excerpt.txt", "tv.danmaku.bili",
       "tv.danmaku.bili.MainActivityV2", "Window #", -1, false},
      {"vivo_android14plus_window_windows_typesuffix_utf16le_crlf.txt", "com.kryptoloot.app",
       "com.example.MainActivity", "Window #", -1, false},
  };
  return files;
}

// ---- package/ ---------------------------------------------------------------

struct UserFact {
  std::int32_t user;
  bool installed;
};
struct PackageFacts {
  std::string_view file;
  std::string_view package;       // "" → "Unable to find package"
  std::int64_t version_code;
  std::string_view version_name;
  std::int32_t min_sdk, target_sdk;
  std::vector<UserFact> users;    // empty: not stated by SOURCES.md
  std::string_view installer;     // "" → not stated
};

const std::vector<PackageFacts>& package_files() {
  static const std::vector<PackageFacts> files = {
      {"architit_samsung_3users_dumpsys_package.txt", "com.architit.radriloniuma", 15, "00.15.00-V10-Hybrid", 26, 28,
       {{0, true}, {10, false}, {150, false}}, ""},
      {"astrohark_dumpsys_package.txt", "com.astrohark.app", 17, "17.0", 24, 35, {}, "null"},
      {"cockpitui_automotive_user10_dumpsys_package_utf16le_crlf.txt", "com.wheelchair.cockpit", 1, "1.0", 33, 35,
       {{0, false}, {10, true}}, ""},
      {"healer_android13_dumpsys_package_webview_block.txt", "com.android.webview", 699809501, "134.0.6998.95", 26,
       35, {}, ""},
      {"lodrean_dumpsys_package_unable_to_find.txt", "", 0, "", 0, 0, {}, ""},
      {"manet_dumpsys_package_pkmproject.txt", "com.example.pkmproject", 1, "1.0.0", 24, 36,
       {{0, true}, {999, false}}, "com.whatsapp"},
      {"roshanos_hidden_system_package_utf16le_crlf.txt", "com.tabletcontrol.companion", 3, "3.0", 30, 34, {}, ""},
  };
  return files;
}

template <typename Facts>
std::set<std::string> names_of(const std::vector<Facts>& facts) {
  std::set<std::string> out;
  for (const auto& f : facts) out.emplace(f.file);
  return out;
}

std::set<std::string> files_in(std::string_view folder) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(kDeviceDir / folder))
    if (e.is_regular_file()) out.insert(e.path().filename().string());
  return out;
}

}  // namespace

TEST_CASE("device corpus: every file of the six folders has a facts row", "[corpus][device]") {
  if (corpus_missing()) return;
  CHECK(files_in("display") == names_of(display_files()));
  CHECK(files_in("surfaceflinger") == names_of(sf_files()));
  CHECK(files_in("ps") == names_of(ps_files()));
  CHECK(files_in("getprop") == names_of(prop_files()));
  CHECK(files_in("focus") == names_of(focus_files()));
  CHECK(files_in("package") == names_of(package_files()));
}

TEST_CASE("device corpus: dumpsys display refresh rate and modes", "[corpus][device][display]") {
  if (corpus_missing()) return;
  for (const auto& f : display_files()) check_rate(parse_display_info(load("display", f.file)), f);
}

TEST_CASE("device corpus: dumpsys SurfaceFlinger refresh rate and modes", "[corpus][device][display]") {
  if (corpus_missing()) return;
  for (const auto& f : sf_files()) check_rate(parse_surfaceflinger_info(load("surfaceflinger", f.file)), f);
}

TEST_CASE("device corpus: ps listings", "[corpus][device][ps]") {
  if (corpus_missing()) return;
  for (const auto& f : ps_files()) {
    INFO(f.file);
    const ProcessList list = parse_process_list(load("ps", f.file));
    CHECK(list.processes.size() == f.processes);
    CHECK(list.header_lines == 1);
    CHECK(list.malformed_lines == 0);
    std::set<std::int32_t> pids;
    for (const auto& p : list.processes) pids.insert(p.pid);
    CHECK(pids.size() == list.processes.size());  // all pids unique in every capture
    for (const auto& ex : f.examples) {
      INFO("pid " << ex.pid);
      bool found = false;
      for (const auto& p : list.processes)
        if (p.pid == ex.pid) {
          found = true;
          CHECK(p.name == ex.name);
        }
      CHECK(found);
    }
  }
}

TEST_CASE("device corpus: ps details stated by SOURCES.md", "[corpus][device][ps]") {
  if (corpus_missing()) return;
  SECTION("healer ps -A: systemui is u0_a86, 8 rows with u0_a* users, 232 kernel threads, last row is ps") {
    const ProcessList list = parse_process_list(load("ps", "healer_android13_ps_A.txt"));
    std::size_t app_users = 0, kernel = 0;
    for (const auto& p : list.processes) {
      if (p.user.starts_with("u0_a")) ++app_users;
      if (p.kernel_thread) ++kernel;
      if (p.pid == 2420) CHECK(p.user == "u0_a86");
      if (p.pid == 2649) CHECK(p.user == "webview_zygote");  // USER overflowing its column
    }
    CHECK(app_users == 8);
    CHECK(kernel == 232);
    REQUIRE_FALSE(list.processes.empty());
    CHECK(list.processes.back().name == "ps");
  }
  SECTION("toolbox ps -P: the name with a space") {
    const ProcessList list = parse_process_list(load("ps", "yasserjemli_android5.1_mtk_toolbox_ps_P.txt"));
    bool found = false;
    for (const auto& p : list.processes)
      if (p.name == "mtk charger_hv_") found = true;
    CHECK(found);
  }
}

TEST_CASE("device corpus: getprop listings and device facts", "[corpus][device][getprop]") {
  if (corpus_missing()) return;
  for (const auto& f : prop_files()) {
    INFO(f.file);
    const Properties props = parse_properties(load("getprop", f.file));
    CHECK(props.values.size() == f.properties);
    CHECK(props.malformed_lines == f.malformed);
    CHECK(props.command_echo == f.command_echo);
    const DeviceFacts facts = device_facts(props);
    CHECK(facts.sdk == f.sdk);
    CHECK(facts.release == std::string(f.release));
    CHECK(facts.model == std::string(f.model));
    CHECK(facts.fingerprint == std::string(f.fingerprint));
  }
}

TEST_CASE("device corpus: getprop traps stated by SOURCES.md", "[corpus][device][getprop]") {
  if (corpus_missing()) return;
  SECTION("fiio: system fingerprint differs from ro.build.fingerprint") {
    const Properties p = parse_properties(load("getprop", "fiio_m17_android10_getprop_with_prompt.txt"));
    CHECK(p.values.at("ro.system.build.fingerprint") == "qti/M17/sdm660_64:10/QKQ1/FiiO06111238:user/release-keys");
    CHECK(p.values.at("persist.sys.boot.reason.history").find('\n') != std::string::npos);
  }
  SECTION("haval: truncated at the top, first key is persist.data.df.agg.dl_size") {
    const Properties p = parse_properties(load("getprop", "haval_android9_gwm_carheadunit_getprop.txt"));
    CHECK(p.values.count("persist.data.df.agg.dl_size") == 1);
    CHECK(p.values.count("persist.vendor.gwm.cfg.bean_file_version") == 0);  // the malformed line
  }
  SECTION("healer: two multi-line values and the non-standard Build.BRAND key") {
    const Properties p = parse_properties(load("getprop", "healer_android13_bugreport_getprop_multiline_value.txt"));
    CHECK(p.values.at("Build.BRAND") == "MTK");
    CHECK(p.values.at("persist.sys.boot.reason.history") == "reboot,factory_reset,1765260157\ncold,powerkey,1765260109");
    CHECK(p.values.at("persist.vendor.sys.pq.modeindex") == "0\n");
    CHECK(p.values.at("ro.vendor.build.fingerprint").find(":12/SP1A.210812.016/") != std::string::npos);
  }
  SECTION("huawei g700: manufacturer Xiaomi (ported ROM)") {
    const DeviceFacts f = device_facts(parse_properties(load("getprop", "huawei_g700_android4.4_getprop.txt")));
    CHECK(f.manufacturer == std::string("Xiaomi"));
  }
  SECTION("moto edge 20: vendor fingerprint says 11") {
    const Properties p = parse_properties(load("getprop", "moto_edge20_android13_getprop.txt"));
    CHECK(p.values.at("ro.vendor.build.fingerprint").find("berlin:11/") != std::string::npos);
  }
}

TEST_CASE("device corpus: foreground app", "[corpus][device][focus]") {
  if (corpus_missing()) return;
  for (const auto& f : focus_files()) {
    INFO(f.file);
    const auto app = parse_foreground_app(load("focus", f.file));
    if (f.package.empty()) {
      CHECK_FALSE(app.has_value());
      continue;
    }
    REQUIRE(app.has_value());
    CHECK(app->package == f.package);
    CHECK(app->activity == f.activity);
    CHECK(app->source == f.source);
    if (f.pid >= 0) CHECK(app->pid == f.pid);
    else CHECK_FALSE(app->pid.has_value());
    CHECK(app->focus_on_system_window == f.system_focus);
  }
}

TEST_CASE("device corpus: dumpsys package", "[corpus][device][package]") {
  if (corpus_missing()) return;
  for (const auto& f : package_files()) {
    INFO(f.file);
    const std::string text = load("package", f.file);
    const auto info = parse_package_info(text);
    if (f.package.empty()) {
      CHECK_FALSE(info.has_value());
      continue;
    }
    REQUIRE(info.has_value());
    CHECK(info->package == f.package);
    CHECK(info->version_code == f.version_code);
    CHECK(info->version_name == std::string(f.version_name));
    CHECK(info->min_sdk == f.min_sdk);
    CHECK(info->target_sdk == f.target_sdk);
    CHECK_FALSE(info->hidden_system_package);
    if (!f.installer.empty()) CHECK(info->installer == std::string(f.installer));
    if (!f.users.empty()) {
      REQUIRE(info->users.size() == f.users.size());
      for (std::size_t i = 0; i < f.users.size(); ++i) {
        CHECK(info->users[i].user == f.users[i].user);
        CHECK(info->users[i].installed == f.users[i].installed);
      }
    }
    // Selecting the package by name gives the same block.
    const auto named = parse_package_info(text, f.package);
    REQUIRE(named.has_value());
    CHECK(named->version_code == info->version_code);
  }
}

TEST_CASE("device corpus: healer webview block keeps its preinstall timestamps", "[corpus][device][package]") {
  if (corpus_missing()) return;
  const auto info = parse_package_info(load("package", "healer_android13_dumpsys_package_webview_block.txt"));
  REQUIRE(info.has_value());
  REQUIRE(info->first_install_time.has_value());
  CHECK(info->first_install_time->starts_with("2009-01-01 00:00:00"));
}

TEST_CASE("device corpus: Android 15 --list wraps layer names, the app's buffer layer is found",
          "[corpus][device][surfaceflinger]") {
  if (corpus_missing()) return;
  const SfLayerList list =
      parse_sf_layer_list(load("surfaceflinger", "solox303_android15_sf_list_requestedlayerstate_excerpt.txt"));
  const std::string activity = "ctrip.android.view/ctrip.android.publicproduct.home.business.activity.CtripHomeActivity";
  REQUIRE(list.names.size() == 4);
  CHECK(list.malformed_lines == 0);
  CHECK(list.names[0] == "ff5d6b3 ActivityRecordInputSink " + activity + "#28994");
  CHECK(list.names[1].starts_with("ActivityRecord{5e6ac22 u0 " + activity + " t329 "));
  CHECK(list.names[1].ends_with("boundsRect(0, 0 - 1200, 2664)}#28983"));
  CHECK(list.names[2] == "54dfae7 " + activity + "#28989");
  CHECK(list.names[3] == activity + "#29149");
  // Only the last is the app's buffer layer; the others are containers and sinks.
  std::vector<std::string> app_layers;
  for (const auto& n : list.names) {
    if (const auto layer = classify_layer(n)) {
      CHECK(layer->package == "ctrip.android.view");
      app_layers.push_back(layer->name);
    }
  }
  CHECK(app_layers == std::vector<std::string>{activity + "#29149"});
}
