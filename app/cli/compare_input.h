// Run results (docs/runs.md, format 1) read for `jank_exporter compare`:
// files holding a run list or one run, directories of them, and a live
// exporter's /api/runs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "metrics/run_compare.h"

namespace jank::app {

// A source that cannot be read or does not hold format-1 results; the message
// names the source and the field.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct AppVersionRef {
  std::string name;
  std::optional<std::int64_t> code;
};

// What `check`'s tiers select on besides the model (run.devices[i].model).
struct DeviceKind {
  std::optional<double> sdk;
  std::optional<double> refresh_hz;
};

// A finished run, its unsettled devices already left out.
struct LoadedRun {
  metrics::CompareRun run;
  std::string origin;  // where it was read, for messages
  std::map<std::string, std::string> tags;
  // The app's version at the start when every device agrees and none saw it
  // change; otherwise why not (for --by version).
  std::optional<AppVersionRef> version;
  std::string version_problem;
  std::vector<DeviceKind> device_kinds;  // one per run.devices, in its order
};

// Runs of `text`, a run list or one run; `origin` names it in messages.
// What is left out (unfinished runs, unsettled devices) is told in `notices`.
// Taken by value: a results text may be large and is moved, not copied.
std::vector<LoadedRun> parse_results(std::string text, const std::string& origin,
                                     std::vector<std::string>& notices);

// How long a URL source may take to answer, unless --timeout says otherwise.
inline constexpr double kDefaultFetchTimeoutSeconds = 30;

// A file, every *.json file of a directory (in name order), or an
// http://HOST:PORT[/PREFIX] URL, whose PREFIX/api/runs is fetched within
// `fetch_timeout_seconds` (connecting, sending and the whole answer).
// Each file and answer is bounded as results::check_results_limits says.
std::vector<LoadedRun> load_source(const std::string& source, std::vector<std::string>& notices,
                                   double fetch_timeout_seconds = kDefaultFetchTimeoutSeconds);

// The runs of every source in turn, of `package` only when it is not "".
std::vector<LoadedRun> load_runs(const std::vector<std::string>& sources, const std::string& package,
                                 std::vector<std::string>& notices,
                                 double fetch_timeout_seconds = kDefaultFetchTimeoutSeconds);

}  // namespace jank::app
