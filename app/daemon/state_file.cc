#include "app/daemon/state_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/core/atomic_file.h"
#include "app/core/log.h"
#include "parsers/time_units.h"

namespace jank::app {

namespace fs = std::filesystem;

StateFile::StateFile(std::string state_dir)
    : dir_(std::move(state_dir)), path_(dir_ + "/state"), runs_path_(dir_ + "/runs") {}

bool StateFile::prepare(std::string& error) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec || !fs::is_directory(dir_)) {
    error = "cannot use state directory " + dir_ + ": " + (ec ? ec.message() : "not a directory");
    return false;
  }
  return true;
}

void StateFile::restore(SharedState& shared, std::int64_t now_ns) const {
  std::ifstream in(path_, std::ios::binary);
  std::lock_guard<std::mutex> lock(shared.mutex);
  if (in) {
    std::ostringstream text;
    text << in.rdbuf();
    std::string error;
    metrics::Store::LoadReport report;
    if (shared.store.load(text.str(), error, &report)) {
      log_info("restored state of " + std::to_string(shared.store.devices().size()) + " devices from " + path_ +
               (report.version < 2 ? " (an older format: logs resume by line count)" : ""));
      // A value that cannot be true drops its record, not the file.
      for (const auto& why : report.rejected) log_warning("state file " + path_ + ": " + why);
      for (const auto& [record, n] : report.rejected_by_record) shared.daemon.state_rejected_records[record] += n;
    } else {
      const std::string aside = path_ + ".bad-" + std::to_string(parsers::units::whole_seconds_of_ns(now_ns));
      std::error_code ec;
      fs::rename(path_, aside, ec);
      ++shared.daemon.state_load_failures;
      log_error("state file " + path_ + " is unreadable (" + error + "); moved to " + aside +
                ", counting starts afresh");
    }
  }
  restore_runs(shared, now_ns);
  for (const auto& [serial, device] : shared.store.devices()) {
    device->live.live = true;
    device->live.up = false;
    device->live.state = metrics::DeviceState::disconnected;
    device->live.down_since_ns = now_ns;
    for (auto& [name, p] : device->packages) p.last_alive_ns = now_ns;
  }
}

// Runs live in their own file, read after the store (their pins name its devices).
void StateFile::restore_runs(SharedState& shared, std::int64_t now_ns) const {
  std::ifstream in(runs_path_, std::ios::binary);
  if (!in) return;
  std::ostringstream text;
  text << in.rdbuf();
  std::string error;
  if (shared.runs.load(text.str(), error, shared.store)) {
    log_info("restored " + std::to_string(shared.runs.runs().size()) + " runs from " + runs_path_);
    return;
  }
  const std::string aside = runs_path_ + ".bad-" + std::to_string(parsers::units::whole_seconds_of_ns(now_ns));
  std::error_code ec;
  fs::rename(runs_path_, aside, ec);
  ++shared.daemon.state_load_failures;
  log_error("runs file " + runs_path_ + " is unreadable (" + error + "); moved to " + aside);
}

bool StateFile::write(SharedState& shared) const {
  std::string text, runs;
  {
    std::lock_guard<std::mutex> lock(shared.mutex);
    text = shared.store.save();
    runs = shared.runs.save();
  }
  std::string error;
  // The counters first: runs never get ahead of the counters they were
  // measured against (a run behind them only counts the difference later).
  bool ok = write_atomically(path_, text, error);
  if (ok) ok = write_atomically(runs_path_, runs, error);
  std::lock_guard<std::mutex> lock(shared.mutex);
  if (ok) {
    ++shared.daemon.checkpoints_written;
  } else {
    ++shared.daemon.checkpoint_failures;
    log_error("checkpoint failed: " + error);
  }
  return ok;
}

}  // namespace jank::app
