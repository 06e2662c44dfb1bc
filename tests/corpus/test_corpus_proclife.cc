// Replays every capture in corpus device/proclife through detect_log_line +
// parse_process_event and checks the facts SOURCES.md lists for each file.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/logcat_events.h"
#include "parsers/logcat_line.h"
#include "parsers/text_input.h"

namespace fs = std::filesystem;
using jank::parsers::detect_log_line;
using jank::parsers::parse_process_event;
using jank::parsers::ProcessEvent;

namespace {

struct Event {
  std::string category;  // "start", "died", "kill", or the event-log tag
  ProcessEvent::Kind kind;
  int pid;
  std::string process;
};

struct Replay {
  bool found = false;
  std::map<std::string, int> count;
  std::vector<Event> events;
  int headers = 0;

  int n(const std::string& c) const {
    auto it = count.find(c);
    return it == count.end() ? 0 : it->second;
  }
  bool has(const std::string& category, int pid, std::string_view process) const {
    for (const Event& e : events) {
      if (e.category == category && e.pid == pid && e.process == process) return true;
    }
    return false;
  }
};

Replay replay(const std::string& name) {
  Replay r;
  const fs::path path = fs::path(JANK_CORPUS_DIR) / "device" / "proclife" / name;
  std::ifstream in(path, std::ios::binary);
  if (!in) return r;
  r.found = true;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // These captures are UTF-8/ASCII; decode anyway so a UTF-16 file would work.
  const std::string text = jank::parsers::decode_to_utf8(bytes);
  std::string_view rest(text);
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    auto l = detect_log_line(line);
    if (!l) continue;
    ++r.headers;
    auto e = parse_process_event(l->tag, l->message);
    if (!e) continue;
    std::string category(l->tag);
    if (category.rfind("am_", 0) != 0) {
      if (l->message.rfind("Start proc", 0) == 0) {
        category = "start";
      } else if (l->message.rfind("Killing", 0) == 0) {
        category = "kill";
      } else {
        category = "died";
      }
    }
    r.count[category]++;
    r.events.push_back({category, e->kind, e->pid, std::string(e->process)});
  }
  return r;
}

bool corpus_present() {
  if (fs::is_directory(fs::path(JANK_CORPUS_DIR) / "device" / "proclife")) return true;
  WARN("corpus not found at " << JANK_CORPUS_DIR << "/device/proclife; skipping");
  SUCCEED();
  return false;
}

}  // namespace

TEST_CASE("proclife: Android 6 emulator, CRLF", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("cordova_android6_emulator_threadtime_crlf_start_died.txt");
  REQUIRE(r.found);
  CHECK(r.n("start") == 1);
  CHECK(r.n("died") == 1);
  CHECK(r.has("start", 17790, "com.ionicframework.pling694359"));
  CHECK(r.has("died", 17790, "com.ionicframework.pling694359"));
}

TEST_CASE("proclife: Waydroid Android 11 WebViewLoader", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("cranyweb_waydroid_android11_threadtime_webviewloader_died.txt");
  REQUIRE(r.found);
  CHECK(r.n("start") == 3);
  CHECK(r.n("died") == 1);
  CHECK(r.has("start", 392, "com.android.systemui"));
  CHECK(r.has("start", 487, "WebViewLoader-x86"));
  CHECK(r.has("start", 512, "WebViewLoader-x86_64"));
  CHECK(r.has("died", 487, "WebViewLoader-x86"));
}

TEST_CASE("proclife: Pixel death burst with procstate suffix", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("eggonlea_samsung_exynos_threadtime_died_procstate.txt");
  REQUIRE(r.found);
  CHECK(r.n("died") == 11);
  CHECK(r.n("start") == 0);
  CHECK(r.has("died", 3269, "com.shannon.rcsservice:shannonrcsservice"));
  CHECK(r.has("died", 3249, ".ShannonImsService"));
  CHECK(r.has("died", 8146, "com.tmobile.planprovider"));
}

TEST_CASE("proclife: Android 8.0 Samsung boot starts and kills", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("fortochca_android8.0_samsung_threadtime_boot_starts.txt");
  REQUIRE(r.found);
  CHECK(r.n("start") == 16);
  CHECK(r.n("kill") == 14);
  CHECK(r.n("died") == 0);
  CHECK(r.has("start", 4112, "com.android.messaging"));
  CHECK(r.has("start", 4310, "com.google.process.gapps"));
  CHECK(r.has("kill", 3543, "com.android.externalstorage"));
}

TEST_CASE("proclife: Android 13 event log with -v uid (boot)", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("healer_android13_eventlog_uid_format_boot_starts.txt");
  REQUIRE(r.found);
  CHECK(r.n("am_proc_start") == 47);
  CHECK(r.n("am_proc_died") == 5);
  CHECK(r.has("am_proc_start", 2420, "com.android.systemui"));
  CHECK(r.has("am_proc_start", 2625, "WebViewLoader-armeabi-v7a"));
  CHECK(r.has("am_proc_died", 2625, "WebViewLoader-armeabi-v7a"));
  // The uid column must not be read as the pid of system_server.
  for (const Event& e : r.events) CHECK(e.pid != 1000);
}

TEST_CASE("proclife: Android 13 event log with -v uid (sleep kills)", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("healer_android13_eventlog_uid_format_sleep_kills.txt");
  REQUIRE(r.found);
  CHECK(r.n("am_kill") == 30);
  CHECK(r.n("am_proc_died") == 30);
  CHECK(r.has("am_kill", 3469, "com.android.providers.calendar"));
  CHECK(r.has("am_proc_died", 3469, "com.android.providers.calendar"));
  CHECK(r.has("am_kill", 3866, "starmini.com"));
}

TEST_CASE("proclife: Android 13 system log with -v uid", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("healer_android13_systemlog_uid_format_start_kill.txt");
  REQUIRE(r.found);
  CHECK(r.n("start") == 1);
  CHECK(r.n("kill") == 1);
  CHECK(r.n("died") == 0);
  CHECK(r.has("start", 5980, "android.process.media"));
  CHECK(r.has("kill", 5980, "android.process.media"));
}

TEST_CASE("proclife: LineageOS boot starts with numeric uids", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("microg_lineageos_threadtime_boot_starts.txt");
  REQUIRE(r.found);
  CHECK(r.n("start") == 11);
  CHECK(r.has("start", 5873, "com.android.imsserviceentitlement"));
  CHECK(r.has("start", 5915, "com.android.sdm.plugins.sprintdm"));
  CHECK(r.has("start", 6046, "com.android.dynsystem"));
}

TEST_CASE("proclife: Android 5.1 event log", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("yasserjemli_android5.1_mtk_eventlog_am_proc.txt");
  REQUIRE(r.found);
  CHECK(r.n("am_proc_start") == 2);
  CHECK(r.n("am_proc_died") == 4);
  CHECK(r.n("am_kill") == 2);
  CHECK(r.has("am_proc_start", 4869, "com.mediatek.mtklogger"));
  CHECK(r.has("am_proc_died", 4562, "com.google.android.marvin.talkback"));
  CHECK(r.has("am_kill", 4562, "com.google.android.marvin.talkback"));
}

TEST_CASE("proclife: Android 5.1 ANR kill and restart", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("yasserjemli_android5.1_mtk_systemlog_anr_kill_restart.txt");
  REQUIRE(r.found);
  CHECK(r.n("kill") == 1);
  CHECK(r.n("died") == 1);  // "IMountServiceListener has died!" is not counted
  CHECK(r.n("start") == 1);
  CHECK(r.has("kill", 1064, "com.android.systemui"));
  CHECK(r.has("died", 1064, "com.android.systemui"));
  CHECK(r.has("start", 8922, "com.android.systemui"));
}

TEST_CASE("proclife: Wear OS start and deaths", "[corpus][events]") {
  if (!corpus_present()) return;
  Replay r = replay("znfc_wearos_threadtime_start_died.txt");
  REQUIRE(r.found);
  CHECK(r.n("start") == 1);
  CHECK(r.n("died") == 2);
  CHECK(r.has("start", 3580, "com.bosenko.watchface.marinecommander"));
  CHECK(r.has("died", 2962, "com.mobvoi.ticwear.sidewearvoicesearch"));
  CHECK(r.has("died", 2338, "com.android.providers.calendar"));
}

TEST_CASE("proclife: every file is covered and mostly parses", "[corpus][events]") {
  if (!corpus_present()) return;
  int files = 0;
  for (const auto& entry :
       fs::directory_iterator(fs::path(JANK_CORPUS_DIR) / "device" / "proclife")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    Replay r = replay(entry.path().filename().string());
    INFO(entry.path().filename().string());
    CHECK(r.found);
    CHECK(r.headers > 0);
    CHECK_FALSE(r.events.empty());
  }
  CHECK(files == 11);
}
