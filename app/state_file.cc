#include "app/state_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/log.h"

namespace jank::app {
namespace {

namespace fs = std::filesystem;

// Closes on every path out, so a failed step cannot leak the descriptor.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now: close() can report a write the kernel failed to flush.
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

std::string failed(const std::string& what, const std::string& path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

}  // namespace

bool write_atomically(const std::string& path, std::string_view text, std::string& error) {
  const std::string tmp = path + ".tmp";
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640));
  if (fd.get() < 0) {
    error = failed("create", tmp);
    return false;
  }
  auto give_up = [&](const std::string& message) {
    error = message;
    ::unlink(tmp.c_str());
    return false;
  };
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return give_up(failed("write", tmp));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) return give_up(failed("flush", tmp));
  if (!fd.close()) return give_up(failed("close", tmp));
  if (::rename(tmp.c_str(), path.c_str()) != 0) return give_up(failed("replace", path));
  const std::string dir = fs::path(path).parent_path().string();
  Fd dfd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd.get() >= 0) ::fsync(dfd.get());  // the rename is durable once the directory is
  return true;
}

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
      const std::string aside = path_ + ".bad-" + std::to_string(now_ns / 1'000'000'000);
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
  const std::string aside = runs_path_ + ".bad-" + std::to_string(now_ns / 1'000'000'000);
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
