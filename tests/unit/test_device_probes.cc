#include <catch2/catch.hpp>

#include "app/session/device_probes.h"

using jank::app::kAndroidDefaultSkipwarning;
using jank::app::plan_skipwarning;

TEST_CASE("skip-warning plan: set when it differs, zygote restarted only when asked and not done before",
          "[app][probes]") {
  struct Row {
    std::optional<int> current;
    bool restart_zygote;
    int threshold;
    bool set_property;
    bool restart;
  };
  const Row rows[] = {
      {std::nullopt, false, kAndroidDefaultSkipwarning, true, false},  // never set: apps keep 30 frames
      {std::nullopt, true, kAndroidDefaultSkipwarning, true, true},    // 30 until zygote has restarted
      {30, false, kAndroidDefaultSkipwarning, true, false},            // Android's default, not ours
      {1, false, kAndroidDefaultSkipwarning, false, false},            // set by us before, zygote never restarted
      {1, true, 1, false, false},  // set and zygote restarted by an earlier run: never again
  };
  for (const auto& r : rows) {
    CAPTURE(r.current.value_or(-1), r.restart_zygote);
    const auto plan = plan_skipwarning(r.current, 1, r.restart_zygote);
    CHECK(plan.threshold_frames == r.threshold);
    CHECK(plan.set_property == r.set_property);
    CHECK(plan.restart_zygote == r.restart);
  }
}

TEST_CASE("device facts land in the device's info, each value capped at 256 bytes", "[app][probes]") {
  jank::metrics::Store store;
  auto& d = store.device("s");
  jank::parsers::DeviceFacts facts;
  facts.model = "Pixel 7";
  facts.sdk = 34;
  facts.fingerprint = std::string(300, 'f');
  jank::app::record_facts(d, facts);
  CHECK(d.live.info.at("model") == "Pixel 7");
  CHECK(d.live.info.at("sdk") == "34");
  CHECK(d.live.info.at("fingerprint").size() == 256);
  CHECK_FALSE(d.live.info.contains("manufacturer"));  // not said: not invented
}

TEST_CASE("a process listing keeps user processes and is ignored when too short to trust", "[app][probes]") {
  const std::string ps =
      "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n"
      "root             1     0 10937576 14648 do_epoll_wait       0 S init\n"
      "root             2     0       0      0 kthreadd            0 S [kthreadd]\n"
      "u0_a123       4321   612 15000000 90000 do_epoll_wait      0 S com.example.app\n";
  const auto running = jank::app::running_processes(ps);
  REQUIRE(running);
  CHECK(*running == jank::metrics::ProcessListing{{1, "init"}, {4321, "com.example.app"}});
  // Android 7's `ps -A` lists only the shell's own processes.
  const std::string pre_o =
      "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\n"
      "shell        21989 32761    4952   2532 sigsuspend   b2f1d778 S sh\n"
      "shell        21992 21989    5568   3016 0            b4396448 R ps\n";
  CHECK_FALSE(jank::app::running_processes(pre_o));
}

TEST_CASE("each release is asked with the commands it has", "[probes][releases]") {
  using jank::app::android_release;
  auto ps = [](std::optional<int> sdk) { return android_release(sdk).process_list_command(); };
  CHECK(ps(21) == "ps");  // toolbox: -A is a name filter (5.x, 6.0)
  CHECK(ps(23) == "ps");
  CHECK(ps(25) == "ps");  // toolbox: -A is a bad pid (7.x)
  CHECK(ps(26) == "ps -A");  // toybox: plain ps lists the caller's session only
  CHECK(ps(36) == "ps -A");
  CHECK(ps(std::nullopt) == "ps -A");
  auto window = [](std::optional<int> sdk) { return android_release(sdk).window_dump_command(); };
  CHECK(window(21) == "dumpsys window windows");  // focus is global before 10
  CHECK(window(28) == "dumpsys window windows");
  CHECK(window(29) == "dumpsys window displays");  // per display from 10
  CHECK(window(std::nullopt) == "dumpsys window displays");
  CHECK_FALSE(android_release(23).epoch_stamps());  // 6.0: usec, no epoch
  CHECK(android_release(24).epoch_stamps());
  CHECK(android_release(29).traced_needs_property());
  CHECK_FALSE(android_release(28).traced_needs_property());
  CHECK_FALSE(android_release(30).traced_needs_property());
  CHECK_FALSE(android_release(std::nullopt).traced_needs_property());
}

TEST_CASE("Android 5.x is unsupported with its reason and 6.0 on are followed", "[probes][releases]") {
  using jank::app::android_release;
  CHECK_THAT(android_release(21).unsupported_reason(), Catch::Contains("no -D dividers"));
  CHECK_THAT(android_release(22).unsupported_reason(), Catch::Contains("per-buffer line totals"));
  for (const int sdk : {23, 24, 25, 29, 36}) CHECK(android_release(sdk).unsupported_reason().empty());
  CHECK(android_release(std::nullopt).unsupported_reason().empty());
  CHECK(jank::app::release_text(android_release(22), "5.1.1") == "Android 5.1.1 (API 22)");
  CHECK(jank::app::release_text(android_release(std::nullopt), "") == "Android (API unknown)");
}

TEST_CASE("root is read from toybox and toolbox id alike", "[probes][releases]") {
  using jank::app::answers_root;
  CHECK(answers_root("0\n"));
  CHECK(answers_root("0\r\n"));  // the legacy shell's PTY
  CHECK(answers_root("uid=0(root) gid=0(root) groups=1003(graphics)\r\n"));  // toolbox id, 5.x
  CHECK_FALSE(answers_root("2000\n"));
  CHECK_FALSE(answers_root("uid=2000(shell) gid=2000(shell) groups=1004(input)\n"));
  CHECK_FALSE(answers_root("uid=0"));
  CHECK_FALSE(answers_root("00\n"));
  CHECK_FALSE(answers_root(""));
}
