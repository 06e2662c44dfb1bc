#include <catch2/catch.hpp>

#include "app/device_probes.h"

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

TEST_CASE("the refresh rate is measured or the configured default flagged as a fallback", "[app][probes]") {
  jank::metrics::Store store;
  auto& d = store.device("s");
  jank::parsers::RefreshRate rate;
  rate.hz = 120;
  jank::app::record_refresh(d, rate, 60);
  CHECK(d.refresh_hz == 120);
  CHECK_FALSE(d.refresh_is_fallback);
  jank::app::record_refresh(d, std::nullopt, 90);
  CHECK(d.refresh_hz == 90);
  CHECK(d.refresh_is_fallback);
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

TEST_CASE("every process is listed with the ps each release has", "[probes]") {
  using jank::app::process_list_command;
  CHECK(process_list_command(21) == "ps");  // toolbox: -A is a name filter (5.x, 6.0)
  CHECK(process_list_command(23) == "ps");
  CHECK(process_list_command(25) == "ps");  // toolbox: -A is a bad pid (7.x)
  CHECK(process_list_command(26) == "ps -A");  // toybox: plain ps lists the caller's session only
  CHECK(process_list_command(36) == "ps -A");
  CHECK(process_list_command(std::nullopt) == "ps -A");
}
