// Alerts delivered end to end: a real Prometheus (Debian's 2.42) scrapes the
// real jank_exporter following simulated phones through the real adb server,
// evaluates the shipped alerting rules and sends to a real Alertmanager
// (Debian's 0.25) running the shipped example configuration, which posts to a
// webhook receiver inside the test.
//
// Time is compressed: the rules are the shipped file with every duration (the
// `for:` of each alert, its ranges and offsets) divided by kScale, nothing
// else changed, because the shipped `for: 5m` and `[10m]` ranges do not fit a
// test's minutes; Prometheus scrapes and evaluates every second. The
// Alertmanager configuration is the shipped file with only its receiver URL
// and its group_wait/group_interval/repeat_interval replaced.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <re2/re2.h>

#include "tests/daemon/exporter_process.h"
#include "tests/ops/alertmanager_process.h"
#include "tests/ops/prometheus_process.h"

using namespace jank::daemon_test;
using jank::ops_test::Alertmanager;
using jank::ops_test::Clock;
using jank::ops_test::http_body;
using jank::ops_test::Prometheus;
using jank::ops_test::PrometheusSetup;
using jank::ops_test::WebhookReceiver;

namespace {

const std::string kSource = JANK_SOURCE_DIR;
const std::string kAlertRules = kSource + "/config/prometheus/jank_exporter.alerts.yml";
const std::string kAlertmanagerConfig = kSource + "/config/alertmanager/jank_exporter.yml";
constexpr int kScale = 20;           // shipped durations / kScale: 5m → 15s, 2m → 6s, 10m → 30s, 1h → 3m
constexpr double kInterval = 1.0;    // Prometheus scrape and evaluation interval, seconds
const std::string kApp = "com.example.feed";  // the simulator's first app: in front, watched by SurfaceFlinger polls

double seconds_of(const std::string& number, const std::string& unit) {
  const double n = std::stod(number);
  return unit == "h" ? n * 3600 : unit == "m" ? n * 60 : n;
}

// The shipped alerting rules with every duration divided by kScale (at least
// 1 s); `for_seconds` receives each alert's scaled `for` (0 when it has none).
std::string scaled_rules(const std::string& dir, std::map<std::string, double>& for_seconds) {
  const std::string text = read_file(kAlertRules);
  // RE2, not std::regex: g++ 12's <regex> trips -Wmaybe-uninitialized under the sanitizer build.
  static const RE2 duration(R"((for: |\[|offset )(\d+)([smh])\b)");
  std::string out;
  std::size_t replaced = 0, pos = 0;
  re2::StringPiece m[4];  // whole, prefix, number, unit
  while (duration.Match(text, pos, text.size(), RE2::UNANCHORED, m, 4)) {
    const auto at = static_cast<std::size_t>(m[0].data() - text.data());
    const double s = std::max(1.0, seconds_of(std::string(m[2]), std::string(m[3])) / kScale);
    out += text.substr(pos, at - pos) + std::string(m[1]) + std::to_string(static_cast<int>(s)) + "s";
    pos = at + m[0].size();
    ++replaced;
  }
  out += text.substr(pos);
  REQUIRE(replaced >= 20);
  std::string alert;
  std::istringstream in(out);
  static const RE2 alert_line(R"(^\s*- alert: (\w+))"), for_line(R"(^\s*for: (\d+)s)");
  for (std::string line; std::getline(in, line);) {
    std::string name, seconds;
    if (RE2::PartialMatch(line, alert_line, &name)) for_seconds[alert = name] = 0;
    if (RE2::PartialMatch(line, for_line, &seconds)) for_seconds[alert] = std::stod(seconds);
  }
  const std::string path = dir + "/jank_exporter.alerts.yml";
  std::ofstream(path) << out;
  return path;
}

// The shipped Alertmanager configuration with the test's receiver and timings.
std::string alertmanager_config(const std::string& url, const std::string& group_wait,
                                const std::string& group_interval) {
  std::string text = read_file(kAlertmanagerConfig);
  auto replace_value = [&](const std::string& key, const std::string& value) {
    const RE2 line("(\\n\\s*(?:- )?" + key + ": )\\S+");
    re2::StringPiece found[2];
    REQUIRE(line.Match(text, 0, text.size(), RE2::UNANCHORED, found, 2));
    const auto at = static_cast<std::size_t>(found[0].data() - text.data());
    const std::string head(found[1]);
    text = text.substr(0, at) + head + value + text.substr(at + found[0].size());
    const std::size_t after = at + head.size() + value.size();
    REQUIRE_FALSE(line.Match(text, after, text.size(), RE2::UNANCHORED, nullptr, 0));  // the key once
  };
  replace_value("url", url);
  replace_value("group_wait", group_wait);
  replace_value("group_interval", group_interval);
  replace_value("repeat_interval", "1h");
  return text;
}

// One webhook notification as the test reads it.
struct Alert {
  std::string name, status, serial, instance;
};
struct Notification {
  Clock::time_point at;
  std::string status;                 // "firing" or "resolved" (the group's)
  std::string group_serial, group_instance;
  std::vector<Alert> alerts;
};

std::vector<Notification> notifications(const WebhookReceiver& hook) {
  std::vector<Notification> out;
  for (const auto& p : hook.posts()) {
    Notification n{p.at, p.json["status"].str, p.json["groupLabels"]["serial"].str,
                   p.json["groupLabels"]["instance"].str, {}};
    for (const Json& a : p.json["alerts"].arr) {
      n.alerts.push_back({a["labels"]["alertname"].str, a["status"].str, a["labels"]["serial"].str,
                          a["labels"]["instance"].str});
    }
    out.push_back(std::move(n));
  }
  return out;
}

// When `alert` of `serial` first arrived with `status`, or nullopt.
std::optional<Clock::time_point> delivered(const WebhookReceiver& hook, const std::string& alert,
                                           const std::string& serial, const std::string& status = "firing") {
  for (const auto& n : notifications(hook)) {
    for (const auto& a : n.alerts) {
      if (a.name == alert && a.serial == serial && a.status == status) return n.at;
    }
  }
  return std::nullopt;
}

std::string describe(const WebhookReceiver& hook) {
  std::ostringstream out;
  const auto posts = hook.posts();
  const auto t0 = posts.empty() ? Clock::now() : posts.front().at;
  for (const auto& n : notifications(hook)) {
    out << "+" << std::chrono::duration<double>(n.at - t0).count() << "s " << n.status << " [" << n.group_instance
        << " " << n.group_serial << "]:";
    for (const auto& a : n.alerts) out << " " << a.name << "/" << a.serial << "/" << a.status;
    out << "\n";
  }
  return out.str();
}

// A counter of `serial` summed over its series as the exporter serves it now.
double served_sum(const Exporter& ex, const std::string& name, const std::string& serial) {
  double sum = 0;
  for (const auto& [key, value] : ex.samples()) {
    if (key.rfind(name + "{", 0) == 0 && key.find("serial=\"" + serial + "\"") != std::string::npos) sum += value;
  }
  return sum;
}

bool ok(const std::string& reply) { return reply.rfind("OK", 0) == 0; }

double seconds_since(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// A stall of `frames` that Choreographer logs (it logs from 30 skipped frames)
// before Prometheus first scrapes: the app's skipped-frame series then exists
// with a baseline when the spike's rate is compared with the hour before.
void seed_skipped_frames(DevSim& sim, const std::string& dev, const Exporter& ex, const std::string& serial) {
  REQUIRE(ok(sim.control("skip " + dev + " " + kApp + " 30")));
  REQUIRE(wait_until([&] { return ex.value(series("android_choreographer_skipped_frames_total", serial, kApp)) >= 30; },
                     30000ms, 250ms));
}

// A phone of the test: its simulator, name there, exporter and serial.
struct Phone {
  DevSim* sim;
  std::string dev;
  const Exporter* ex;
  std::string serial;
};

// A burst of four hard hitches on every phone at once (each a BigJank: 40
// frames long after normal frames), then a frozen frame: returns when the
// exporters serve three BigJanks more on each. `first_served`: when the first
// phone's exporter served the burst's first skipped frames (the spike's start
// as Prometheus can see it).
void big_jank_burst(const std::vector<Phone>& phones, Clock::time_point* first_served = nullptr) {
  std::vector<double> before;
  for (const auto& p : phones) before.push_back(served_sum(*p.ex, "android_layer_perfdog_big_jank_total", p.serial));
  const auto& p0 = phones.front();
  const double skipped = p0.ex->value(series("android_choreographer_skipped_frames_total", p0.serial, kApp));
  for (int i = 0; i < 4; ++i) {
    const auto next = Clock::now() + 1200ms;  // 0.67 s of stall, then half a second of normal frames
    for (const auto& p : phones) REQUIRE(ok(p.sim->control("skip " + p.dev + " " + kApp + " 40")));
    if (i == 0 && first_served) {
      REQUIRE(wait_until([&] {
        return p0.ex->value(series("android_choreographer_skipped_frames_total", p0.serial, kApp)) > skipped;
      }, 5000ms, 20ms));
      *first_served = Clock::now();
    }
    std::this_thread::sleep_until(next);
  }
  for (const auto& p : phones) REQUIRE(ok(p.sim->control("freeze " + p.dev + " " + kApp + " 1")));
  for (std::size_t i = 0; i < phones.size(); ++i) {
    const auto& p = phones[i];
    REQUIRE(wait_until([&] { return served_sum(*p.ex, "android_layer_perfdog_big_jank_total", p.serial) >= before[i] + 3; },
                       20000ms, 200ms));
  }
}

// Keeps the app stalling without a break (a 30-frame stall every 0.4 s: SM
// near 0, about 60 skipped frames a second) until `done` or the deadline.
template <typename Done>
void sustained_stall(const Phone& p, Done&& done, ms deadline) {
  const auto end = Clock::now() + deadline;
  while (!done() && Clock::now() < end) {
    REQUIRE(ok(p.sim->control("skip " + p.dev + " " + kApp + " 30")));
    std::this_thread::sleep_for(400ms);
  }
}

}  // namespace

TEST_CASE("a jank spike on a simulated phone is delivered through a real Alertmanager within its for and resolves; "
          "idle, dark and smooth phones deliver nothing") {
  TempDir dir("jank-alerts");
  std::map<std::string, double> for_s;
  const std::string rules = scaled_rules(dir.path(), for_s);
  REQUIRE(for_s.at("AndroidSmLow") == 15);
  REQUIRE(for_s.at("AndroidJankSpike") == 6);
  REQUIRE(for_s.at("AndroidBigJankBurst") == 0);

  AdbServer adb;
  // No stall of their own: jank comes only from the script.
  DevSim sim({"--devices", "4", "--stall-prob", "0"});
  for (const auto& d : sim.devices()) adb.emulator(d.port);
  for (const auto& d : sim.devices()) REQUIRE(adb.wait_state(emulator_serial(d), "device", 10000ms));
  const auto& devs = sim.devices();
  const std::string spiking = emulator_serial(devs[0]);
  // The quiet ones: every app on a static screen (draws nothing), the screen
  // off, and a phone drawing smoothly.
  for (const std::string pkg : {"com.example.feed", "com.example.shop", "com.example.chat"}) {
    REQUIRE(ok(sim.control("idle " + devs[1].name + " " + pkg + " on")));
  }
  REQUIRE(ok(sim.control("screen " + devs[2].name + " off")));
  const std::set<std::string> quiet = {emulator_serial(devs[1]), emulator_serial(devs[2]), emulator_serial(devs[3])};

  TempDir state;
  Exporter ex({adb.port()}, state.path());
  seed_skipped_frames(sim, devs[0].name, ex, spiking);

  WebhookReceiver hook;
  REQUIRE(hook.port() != 0);
  const double group_wait = 1;
  Alertmanager am(alertmanager_config(hook.url(), "1s", "1s"));
  INFO(am.log());
  REQUIRE(am.ready());
  Prometheus prom(PrometheusSetup{{ex.port()}, {rules}, {}, am.port(), "1s", {}, 0, false, "", {}});
  INFO(prom.log());
  REQUIRE(prom.ready());

  // The quiet window: 20 s of scrapes and evaluations (longer than the
  // spike's rules need for their hour-before baseline, 15 s back, and than
  // the scaled `for` of every device alert) with nothing delivered at all.
  REQUIRE(prom.scraped(20, 1, 60000ms));
  INFO(describe(hook));
  CHECK(hook.posts().empty());

  // The spike: a BigJank burst and a frozen frame, then the app stalls
  // without a break until low SM and the jank spike have been delivered.
  const Phone phone{&sim, devs[0].name, &ex, spiking};
  Clock::time_point spike_served;
  big_jank_burst({phone}, &spike_served);
  const auto big_jank_served = Clock::now();
  sustained_stall(phone, [&] {
    return delivered(hook, "AndroidSmLow", spiking) && delivered(hook, "AndroidJankSpike", spiking);
  }, 60000ms);
  const auto spike_end = Clock::now();
  INFO(describe(hook));

  // Each delivered within its `for` plus two scrape and evaluation intervals
  // (and the route's group_wait), counted from when the exporter served the
  // frames that cross the threshold: the burst's first skipped frames for the
  // rates (both are over their thresholds from there on), the third BigJank
  // for the burst.
  const auto big_jank_at = delivered(hook, "AndroidBigJankBurst", spiking);
  const auto sm_at = delivered(hook, "AndroidSmLow", spiking);
  const auto spike_at = delivered(hook, "AndroidJankSpike", spiking);
  REQUIRE(big_jank_at);
  REQUIRE(sm_at);
  REQUIRE(spike_at);
  const double slack = 2 * (kInterval + kInterval) + group_wait;
  const double big_jank_delay = seconds_since(big_jank_served, *big_jank_at);
  const double sm_delay = seconds_since(spike_served, *sm_at);
  const double spike_delay = seconds_since(spike_served, *spike_at);
  WARN("delivered after the exporter served the spike: AndroidBigJankBurst " << big_jank_delay
       << " s (for 0), AndroidSmLow " << sm_delay << " s (for " << for_s["AndroidSmLow"]
       << " s), AndroidJankSpike " << spike_delay << " s (for " << for_s["AndroidJankSpike"] << " s)");
  CHECK(big_jank_delay <= for_s["AndroidBigJankBurst"] + slack);
  CHECK(sm_delay <= for_s["AndroidSmLow"] + slack);
  CHECK(spike_delay <= for_s["AndroidJankSpike"] + slack);
  // Not before its `for` either: the pending period is honoured (the
  // condition cannot hold before the exporter served the frames).
  CHECK(sm_delay >= for_s["AndroidSmLow"]);
  CHECK(spike_delay >= for_s["AndroidJankSpike"]);

  // The spike over, every alert of the phone resolves and the webhook is told
  // so (the group "resolved": none of its alerts firing any more). BigJank's
  // scaled 30 s range is the longest to drain.
  REQUIRE(wait_until([&] {
    const auto all = notifications(hook);
    return !all.empty() && all.back().group_serial == spiking && all.back().status == "resolved";
  }, 90000ms, 500ms));
  INFO(describe(hook));
  for (const std::string alert : {"AndroidBigJankBurst", "AndroidSmLow", "AndroidJankSpike"}) {
    INFO(alert);
    const auto resolved = delivered(hook, alert, spiking, "resolved");
    REQUIRE(resolved);
    CHECK(*resolved > spike_end);
  }
  WARN("resolved after the spike ended: " << seconds_since(spike_end, notifications(hook).back().at) << " s");

  const auto all = notifications(hook);
  bool several = false;
  for (const auto& n : all) {
    // One group per phone: each notification holds the alerts of one serial.
    CHECK(n.group_serial == spiking);
    std::set<std::string> firing;
    for (const auto& a : n.alerts) {
      CHECK(a.serial == n.group_serial);
      CHECK(quiet.count(a.serial) == 0);
      if (a.status == "firing") firing.insert(a.name);
    }
    several = several || firing.size() >= 2;
  }
  CHECK(several);  // several alerts of the phone in one notification
}

TEST_CASE("a real Alertmanager with the example route groups a phone's alerts in one notification and holds back "
          "the alerts of a host whose exporter is down") {
  TempDir dir("jank-alerts");
  std::map<std::string, double> for_s;
  const std::string rules = scaled_rules(dir.path(), for_s);
  REQUIRE(for_s.at("JankExporterDown") == 6);

  // Two hosts, each its adb server, a phone and an exporter.
  AdbServer adb_a, adb_b;
  DevSim sim_a({"--devices", "1", "--stall-prob", "0"}), sim_b({"--devices", "1", "--stall-prob", "0"});
  adb_a.emulator(sim_a.devices()[0].port);
  adb_b.emulator(sim_b.devices()[0].port);
  const std::string serial_a = emulator_serial(sim_a.devices()[0]), serial_b = emulator_serial(sim_b.devices()[0]);
  REQUIRE(serial_a != serial_b);
  REQUIRE(adb_a.wait_state(serial_a, "device", 10000ms));
  REQUIRE(adb_b.wait_state(serial_b, "device", 10000ms));
  TempDir state_a, state_b;
  Exporter ex_a({adb_a.port()}, state_a.path()), ex_b({adb_b.port()}, state_b.path());
  const std::string instance_a = "127.0.0.1:" + std::to_string(ex_a.port());
  const std::string dev_a = sim_a.devices()[0].name, dev_b = sim_b.devices()[0].name;
  seed_skipped_frames(sim_a, dev_a, ex_a, serial_a);
  seed_skipped_frames(sim_b, dev_b, ex_b, serial_b);

  // group_wait 18 s: longer than JankExporterDown takes to fire after the
  // kill (a failed scrape, its scaled `for` of 6 s, an evaluation: about
  // 9 s), shorter than the BigJank burst stays firing (its scaled 30 s range).
  WebhookReceiver hook;
  REQUIRE(hook.port() != 0);
  const double group_wait = 18;
  Alertmanager am(alertmanager_config(hook.url(), "18s", "2s"));
  INFO(am.log());
  REQUIRE(am.ready());
  Prometheus prom(PrometheusSetup{{ex_a.port(), ex_b.port()}, {rules}, {}, am.port(), "1s", {}, 0, false, "", {}});
  INFO(prom.log());
  REQUIRE(prom.ready());
  REQUIRE(prom.scraped(20, 2, 60000ms));
  CHECK(hook.posts().empty());

  // The same BigJank burst on both phones; host A's exporter dies as soon as
  // its phone's alert fires, while that alert waits out group_wait.
  const Phone a{&sim_a, dev_a, &ex_a, serial_a}, b{&sim_b, dev_b, &ex_b, serial_b};
  big_jank_burst({a, b});
  const auto firing = [&](const std::string& alert, const std::string& serial) {
    auto r = prom.query("ALERTS{alertname=\"" + alert + "\",alertstate=\"firing\",serial=\"" + serial + "\"}");
    return r && r->size() > 0;
  };
  REQUIRE(wait_until([&] { return firing("AndroidBigJankBurst", serial_a); }, 20000ms, 250ms));
  ex_a.kill9();
  const auto killed = Clock::now();
  // Alertmanager's view: A's phone alert has arrived (its group's wait runs
  // from here at the latest).
  auto am_alerts = [&](const std::string& serial, const std::string& state) {
    int n = 0;
    const auto list = jank::rig::parse_json(http_body(am.port(), "/api/v2/alerts"));
    for (const Json& x : list ? list->arr : std::vector<Json>{}) {
      if (x["labels"]["serial"].str == serial && x["status"]["state"].str == state &&
          (state != "suppressed" || x["status"]["inhibitedBy"].size() > 0)) {
        ++n;
      }
    }
    return n;
  };
  REQUIRE(wait_until([&] { return am_alerts(serial_a, "active") + am_alerts(serial_a, "suppressed") > 0; },
                     10000ms, 100ms));
  const auto a_at_alertmanager = Clock::now();

  // Phone B: a jank spike beside its BigJank burst, its app stalling until
  // the group's first notification (the spike rule compares with the minutes
  // before, which the burst has raised: it resolves soon after a stall ends).
  const auto b_notified = [&] {
    for (const auto& n : notifications(hook)) {
      if (n.group_serial == serial_b) return true;
    }
    return false;
  };
  sustained_stall(b, b_notified, 40000ms);
  if (!b_notified()) FAIL("B's notification never came:\n" << describe(hook) << http_body(am.port(), "/api/v2/alerts"));
  INFO(describe(hook));

  // JankExporterDown fires for A: Alertmanager holds A's phone alert back,
  // inhibited by it (same instance); B's stay active.
  REQUIRE(wait_until([&] { return am_alerts(serial_a, "suppressed") > 0; }, 30000ms, 250ms));
  CHECK(am_alerts(serial_a, "active") == 0);
  CHECK(am_alerts(serial_b, "active") >= 1);
  CHECK(am_alerts(serial_b, "suppressed") == 0);

  // B's phone: one notification for both of its alerts, after group_wait.
  const auto b_first = [&] {
    for (const auto& n : notifications(hook)) {
      if (n.group_serial == serial_b) return n;
    }
    return Notification{};
  }();
  std::set<std::string> b_firing;
  for (const auto& x : b_first.alerts) {
    CHECK(x.serial == serial_b);
    if (x.status == "firing") b_firing.insert(x.name);
  }
  CHECK(b_firing.count("AndroidBigJankBurst") == 1);
  CHECK(b_firing.count("AndroidJankSpike") == 1);

  // A's group_wait is over, plus a group_interval and a second, and A's
  // alert is still there, held back: without the inhibition it would have
  // been sent. Nothing of A's phone reached the webhook.
  const auto a_flushed = a_at_alertmanager + std::chrono::duration_cast<Clock::duration>(
                                                 std::chrono::duration<double>(group_wait + 2 + 1));
  if (Clock::now() < a_flushed) std::this_thread::sleep_until(a_flushed);
  CHECK(am_alerts(serial_a, "suppressed") > 0);
  for (const auto& n : notifications(hook)) {
    for (const auto& x : n.alerts) CHECK(x.serial != serial_a);
  }

  // The host alert itself arrives on its own, for host A.
  REQUIRE(wait_until([&] { return delivered(hook, "JankExporterDown", "").has_value(); }, 40000ms, 250ms));
  INFO(describe(hook));
  for (const auto& n : notifications(hook)) {
    for (const auto& x : n.alerts) {
      if (x.name != "JankExporterDown") continue;
      CHECK(x.instance == instance_a);
      CHECK(n.group_serial.empty());
      CHECK(n.group_instance == instance_a);
    }
  }
  WARN("JankExporterDown delivered " << seconds_since(killed, *delivered(hook, "JankExporterDown", ""))
       << " s after the kill (for " << for_s["JankExporterDown"] << " s, group_wait " << group_wait << " s)");
}
