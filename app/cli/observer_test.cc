#include "app/cli/observer_test.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/cli/cli_parse.h"
#include "app/cli/device_shell.h"
#include "app/cli/observer_phases.h"
#include "app/core/exit_codes.h"
#include "app/session/android_release.h"
#include "metrics/observer_effect.h"
#include "parsers/foreground_app.h"
#include "parsers/names.h"
#include "parsers/text_scan.h"
#include "parsers/time_units.h"
#include "parsers/utf8.h"

namespace jank::app {
namespace {

constexpr const char* kUsage =
    "Usage: jank_exporter observer-test --serial SERIAL [OPTIONS]\n"
    "\n"
    "Measures what the exporter's frame-by-frame polling costs the device's frames.\n"
    "Phases of low polling (nothing but a reading at each end) and high polling (the\n"
    "daemon's per-frame commands at full rate: SurfaceFlinger --latency and\n"
    "--frametimeline, gfxinfo framestats) alternate in pairs while the app runs its\n"
    "usual workload. Counters polling cannot fake are read at each phase's ends:\n"
    "graphicsstats (HWUI's janky frames, Android 7+) and TimeStats (SurfaceFlinger's,\n"
    "Android 12+; the first reading enables it). Each pair gives the difference of\n"
    "the app's janky share (high − low, in points); the mean difference comes with a\n"
    "paired Student t interval. Stop the daemon's per-frame polling of this device\n"
    "meanwhile (per_frame.mode: needed, no run open), or its polling counts in both.\n";

constexpr const char* kFooter =
    "Exit status: 0 no cost detected (the interval of every counter holds 0 or lies\n"
    "below it), 6 a cost detected (an interval lies above 0), 64 bad usage, 69 the\n"
    "device cannot be measured (unreachable, older than Android 7.0, no counter\n"
    "readable, fewer than two usable pairs), 78 the --config file is not valid.";

struct Options {
  std::string serial, adb, package, config_file;
  std::size_t pairs = 6;
  double phase_seconds = 30, confidence = 0.95;
  bool json = false;
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("--serial", o.serial, "the device (as `adb devices` lists it)")->option_text("SERIAL");
  app.add_option("--adb", o.adb, "the adb server (default: $ADB_SERVER_SOCKET, else\n127.0.0.1:5037)")
      ->option_text("HOST:PORT");
  app.add_option("--package", o.package, "the app to measure (default: the app in front)")->option_text("PKG");
  app.add_option("--pairs", o.pairs, "pairs of phases, 2-100 (default 6)")->option_text("N");
  app.add_option("--phase-seconds", o.phase_seconds, "each phase's length, 1-3600 (default 30)")->option_text("S");
  app.add_option("--confidence", o.confidence, "of the intervals, 0.5-0.999 (default 0.95); with\ntwo counters each gets half the error rate (Bonferroni)")
      ->option_text("C");
  app.add_option("--config", o.config_file, "the daemon's configuration: its polling intervals\n(default: the built-in ones)")
      ->option_text("FILE");
  app.add_flag("--json", o.json, "print JSON instead of a table");
}

void check_options(const CLI::App& app, const Options& o) {
  if (app.get_option("--serial")->count() == 0 || o.serial.empty()) throw UsageError{"--serial SERIAL is required"};
  if (o.pairs < 2 || o.pairs > 100) throw UsageError{"--pairs must be 2 to 100"};
  if (!(o.phase_seconds >= 1 && o.phase_seconds <= 3600)) throw UsageError{"--phase-seconds must be 1 to 3600"};
  if (!(o.confidence >= 0.5 && o.confidence <= 0.999)) throw UsageError{"--confidence must be 0.5 to 0.999"};
  if (!o.package.empty() && !parsers::valid_package_name(o.package)) {
    throw UsageError{"--package is not an Android package name"};
  }
  if (!o.adb.empty() && !ingest::parse_endpoint(o.adb)) throw UsageError{"--adb: not HOST:PORT: " + o.adb};
}

struct Counter {
  std::string_view name;
  metrics::PhaseCounts ObserverPhase::*counts;
  bool (*available)(int sdk);  // the releases that keep it
};
constexpr Counter kCounters[] = {{"graphicsstats", &ObserverPhase::graphicsstats, has_graphicsstats},
                                 {"timestats", &ObserverPhase::timestats, has_timestats}};

std::string signed_points(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", v);
  return buf;
}

int report(const Options& o, const ObserverPlan& plan, const std::vector<ObserverPhase>& phases, std::ostream& out) {
  const auto used = static_cast<std::size_t>(
      std::count_if(std::begin(kCounters), std::end(kCounters), [&](const Counter& c) { return c.available(plan.sdk); }));
  const double each = 1 - (1 - o.confidence) / static_cast<double>(std::max<std::size_t>(1, used));
  nlohmann::ordered_json j;
  j["serial"] = o.serial;
  j["package"] = plan.package;
  j["sdk"] = plan.sdk;
  j["pairs"] = plan.pairs;
  j["phase_seconds"] = o.phase_seconds;
  j["confidence"] = o.confidence;
  double high_seconds = 0;
  std::map<std::string, std::uint64_t> high_commands;
  nlohmann::ordered_json phase_list = nlohmann::ordered_json::array();
  for (const auto& p : phases) {
    nlohmann::ordered_json ph = {{"kind", p.high ? "high" : "low"}, {"seconds", p.seconds}};
    ph["commands"] = p.commands;
    ph["failed_commands"] = p.failed_commands;
    for (const Counter& c : kCounters) {
      const auto& n = p.*c.counts;
      ph[std::string(c.name)] = {{"valid", n.valid}, {"frames", n.frames}, {"janky_frames", n.janky}};
    }
    phase_list.push_back(std::move(ph));
    if (!p.high) continue;
    high_seconds += p.seconds;
    for (const auto& [kind, n] : p.commands) high_commands[kind] += n;
  }
  j["phases"] = std::move(phase_list);
  nlohmann::ordered_json rates = nlohmann::ordered_json::object();
  for (const auto& [kind, n] : high_commands) rates[kind] = high_seconds > 0 ? static_cast<double>(n) / high_seconds : 0;
  j["high_commands_per_second"] = rates;
  bool cost = false, any = false;
  nlohmann::ordered_json results = nlohmann::ordered_json::object();
  std::string table;
  for (const Counter& c : kCounters) {
    if (!c.available(plan.sdk)) continue;
    // Pairs in the order run: each pair's low and high phase, whichever came first.
    std::vector<metrics::ObserverPair> pairs;
    for (std::size_t i = 0; i + 1 < phases.size(); i += 2) {
      const auto& a = phases[i];
      const auto& b = phases[i + 1];
      pairs.push_back(a.high ? metrics::ObserverPair{b.*c.counts, a.*c.counts} : metrics::ObserverPair{a.*c.counts, b.*c.counts});
    }
    const metrics::ObserverEffect e = metrics::observer_effect(pairs, each);
    any = any || e.verdict != metrics::ObserverVerdict::too_few_pairs;
    cost = cost || e.verdict == metrics::ObserverVerdict::cost;
    results[std::string(c.name)] = {{"pairs", e.pairs},           {"pairs_dropped", e.pairs_dropped},
                                    {"low_janky_percent", e.low_percent}, {"high_janky_percent", e.high_percent},
                                    {"difference_points", e.difference}, {"ci_low_points", e.ci_low},
                                    {"ci_high_points", e.ci_high},       {"confidence", e.confidence},
                                    {"verdict", metrics::verdict_name(e.verdict)}};
    char line[256];
    std::snprintf(line, sizeof line, "%-14s %5zu %7zu %9.2f %9.2f %11s  [%s, %s] @%.4g  %s\n",
                  std::string(c.name).c_str(), e.pairs, e.pairs_dropped, e.low_percent, e.high_percent,
                  signed_points(e.difference).c_str(), signed_points(e.ci_low).c_str(),
                  signed_points(e.ci_high).c_str(), e.confidence, std::string(metrics::verdict_name(e.verdict)).c_str());
    table += line;
  }
  j["counters"] = results;
  const std::string verdict = !any ? "too_few_pairs" : cost ? "cost" : "none_detected";
  j["verdict"] = verdict;
  if (o.json) {
    // A serial given on the command line may hold bytes that are not UTF-8.
    out << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  } else {
    out << "observer-test " << parsers::terminal_text(o.serial) << " " << plan.package << " (API " << plan.sdk
        << "): " << plan.pairs << " pairs of " << o.phase_seconds << " s phases\n";
    out << "high polling, commands/s:";
    for (const auto& [kind, rate] : rates.items()) out << " " << kind << " " << std::round(rate.get<double>() * 100) / 100;
    out << "\ncounter        pairs dropped  low jank%  high jank%  difference  interval (points)  verdict\n" << table;
    out << "verdict: " << verdict << "\n";
  }
  return !any ? kExitUnavailable : cost ? kExitObserverCost : kExitOk;
}

int observer_test(const Options& o, std::ostream& out, std::ostream& err) {
  auto fail = [&](const std::string& why, int status) {
    err << "jank_exporter observer-test: " << parsers::terminal_text(why) << "\n";
    return status;
  };
  config::Config config;
  if (!o.config_file.empty()) {
    auto loaded = config::load_config_file(o.config_file);
    if (!loaded.ok()) return fail(loaded.errors.front().to_string(), kExitConfig);
    config = std::move(loaded.config);
  }
  std::optional<ingest::AdbEndpoint> endpoint;
  if (o.adb.empty()) {
    const auto choice = ingest::default_endpoint_from_environment();
    if (!choice.endpoint) return fail(choice.error, kExitUsage);
    endpoint = choice.endpoint;
  } else {
    endpoint = ingest::parse_endpoint(o.adb);  // checked with the options
  }
  DeviceShell shell(*endpoint, o.serial,
                    std::chrono::duration_cast<std::chrono::milliseconds>(config.command_timeout_seconds));
  if (!shell.connect()) return fail(shell.why(), kExitUnavailable);
  ObserverPlan plan;
  plan.pairs = o.pairs;
  plan.phase = std::chrono::round<std::chrono::milliseconds>(parsers::units::Seconds(o.phase_seconds));
  const auto sdk = shell.run("getprop ro.build.version.sdk", 64);
  int sdk_value = 0;
  if (sdk.error || !parsers::scan::parse_into(parsers::scan::trim_ascii_space(sdk.output), sdk_value)) {
    return fail("cannot read the device's API level: " + ingest::failure_text(sdk), kExitUnavailable);
  }
  plan.sdk = sdk_value;
  plan.package = o.package;
  if (plan.package.empty()) {
    const auto window = shell.run(std::string(android_release(sdk_value).window_dump_command()), 4 << 20);
    const auto front = window.error ? std::nullopt : parsers::parse_foreground_app(window.output);
    if (!front) return fail("no app in front: name one with --package", kExitUnavailable);
    plan.package = front->package;
  }
  ObserverPhases phases(shell, config, plan, [] { return ObserverPhases::Clock::now(); },
                        [](ObserverPhases::Clock::time_point t) { std::this_thread::sleep_until(t); });
  const std::string why = phases.run([&](const ObserverPhase& p) {
    if (o.json) return;
    err << "phase " << (p.high ? "high" : "low ") << " " << std::round(p.seconds * 10) / 10 << " s: graphicsstats "
        << p.graphicsstats.janky << "/" << p.graphicsstats.frames << " janky, timestats " << p.timestats.janky << "/"
        << p.timestats.frames << "\n";
  });
  if (!why.empty()) return fail(why, kExitUnavailable);
  return report(o, plan, phases.phases(), out);
}

}  // namespace

int run_observer_test(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const auto app = make_command("jank_exporter observer-test", kUsage, kFooter);
  Options o;
  add_options(*app, o);
  if (auto status = parse_command(*app, args, out, err)) return *status;
  try {
    check_options(*app, o);
    return observer_test(o, out, err);
  } catch (const UsageError& e) {
    return usage_error(*app, err, e.message);
  }
}

}  // namespace jank::app
