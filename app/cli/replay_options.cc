#include "app/cli/replay_options.h"

#include <string_view>

#include "app/cli/cli_parse.h"
#include "parsers/text_scan.h"
#include "parsers/time_units.h"

namespace jank::app {
namespace {

using parsers::scan::parse_into;

constexpr const char* kUsage =
    "Usage: jank_exporter replay [OPTIONS] FILE... | -\n"
    "\n"
    "Runs recorded inputs through jank_exporter's parsers and metrics and prints\n"
    "the Prometheus exposition the daemon would serve for them. Each input's kind\n"
    "is detected: a logcat capture (any `logcat -v` layout, Android Studio or\n"
    "`flutter run` output; UTF-8 or UTF-16LE), a `dumpsys gfxinfo [framestats]`\n"
    "output, `dumpsys SurfaceFlinger --list` or `--latency LAYER` output (one or\n"
    "several polls in a row; its refresh period sets the refresh rate), or\n"
    "`dumpsys power` output (the screen state), or `dumpsys SurfaceFlinger\n"
    "--frametimeline -all` output (one or several polls: frames by jank type),\n"
    "or `dumpsys SurfaceFlinger --timestats -dump` output (one or several),\n"
    "or an Android bug report (`adb bugreport`: the zip or its text), every\n"
    "usable section of it, the others named on standard error.\n"
    "All inputs belong to one device,\n"
    "in the order given; polls of a layer are counted once each frame, as live.\n";

constexpr const char* kFooter =
    "A `dumpsys thermalservice` output gives the thermal status and temperatures\n"
    "(of the last one given).\n"
    "\n"
    "Processes are labelled by name when the input names them (process start\n"
    "lines, Android Studio layouts, gfxinfo headers), otherwise package=\"pid:N\".\n"
    "\n"
    "Exit status: 0 success, 64 bad usage, 66 an input could not be read,\n"
    "78 the configuration file is not valid.";

// The values as given, checked once all are parsed.
struct Given {
  std::string serial, refresh, window, layer, config, threads, year;
};

void check(const CLI::App& app, const Given& g, ReplayOptions& o) {
  auto given = [&](const char* name) { return app.get_option(name)->count() > 0; };
  if (given("--serial")) {
    if (g.serial.empty()) throw UsageError{"--serial needs a name"};
    o.serial = g.serial;
  }
  if (given("--refresh-rate")) {
    if (!parse_into(g.refresh, o.refresh_hz) || !(o.refresh_hz > 0 && o.refresh_hz <= 1000))
      throw UsageError{"--refresh-rate needs a rate in Hz between 0 and 1000"};
    o.refresh_given = true;
  }
  if (given("--window-seconds")) {
    std::int64_t seconds = 0;
    if (!parse_into(g.window, seconds) || seconds <= 0 || seconds > parsers::units::kSecondsPerDay)
      throw UsageError{"--window-seconds needs a whole number of seconds from 1 to 86400"};
    o.sm_window = std::chrono::seconds(seconds);
  }
  if (given("--layer")) {
    if (g.layer.empty()) throw UsageError{"--layer needs the layer's exact name"};
    o.layer = g.layer;
  }
  if (given("--config")) {
    if (g.config.empty()) throw UsageError{"--config needs a configuration file"};
    o.config = g.config;
  }
  if (given("--threads") && (!parse_into(g.threads, o.threads) || o.threads < 1 || o.threads > 64))
    throw UsageError{"--threads needs a number from 1 to 64"};
  if (given("--year") && (!parse_into(g.year, o.year) || o.year < 1970 || o.year > 9999))
    throw UsageError{"--year needs a year from 1970 to 9999"};
  if (o.files.empty()) throw UsageError{"no input: give one or more FILEs, or - for standard input"};
}

}  // namespace

int current_utc_year() {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<int>(parsers::units::utc_date_of_ns(parsers::units::to_ns(now)).year);
}

std::optional<int> parse_replay_options(const std::vector<std::string>& args, ReplayOptions& o, std::ostream& out,
                                        std::ostream& err) {
  const auto app = make_command("jank_exporter replay", kUsage, kFooter);
  Given g;
  app->add_option("FILE", o.files, "a capture or dumpsys output; - for standard input")->option_text("...");
  app->add_option("--serial", g.serial, "serial label of the device (default: replay)")->option_text("NAME");
  app->add_option("--refresh-rate", g.refresh,
                  "refresh rate when no input measures it (default: 60);\n"
                  "framestats rows without FrameInterval and gfxinfo's\n"
                  "refresh-aware slow frames are judged by it, else by the\n"
                  "period the --latency inputs print most often, decided\n"
                  "before any input is read (never by input order)")
      ->option_text("HZ");
  app->add_option("--window-seconds", g.window,
                  "window of the SM and worst-skip gauges, ending at the\n"
                  "newest timestamp of the input (default: 60); SM\n"
                  "divides by the part of it the input covers, from its\n"
                  "oldest timestamp on (android_choreographer_sm_span_seconds)")
      ->option_text("S");
  app->add_option("--year", g.year, "year for timestamps printed without one (default: this year)")
      ->option_text("YYYY");
  app->add_option("--layer", g.layer,
                  "layer of --latency captures that do not name it; a\n"
                  "command line (... --latency NAME) kept in a capture\n"
                  "names the polls after it")
      ->option_text("NAME");
  app->add_option("--threads", g.threads, "threads scanning large files (default: one per core)")->option_text("N");
  app->add_option("--config", g.config,
                  "count the log_patterns of this configuration file (its\n"
                  "other keys are checked, not used)")
      ->option_text("FILE");
  if (auto status = parse_command(*app, args, out, err)) return status;
  try {
    check(*app, g, o);
  } catch (const UsageError& e) {
    return usage_error(*app, err, e.message);
  }
  return std::nullopt;
}

}  // namespace jank::app
