// One log stream of a device session, on the store's side: what the stream
// found at its start (resume, reboot, logd restart, lines lost) applied with
// the cursor in one breath, every line passed on counted, the continuity check
// after a burst, and process listings held back while the stream still reads
// lines older than them. Knows nothing of sockets: the session feeds it bytes
// and runs its commands.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/session/android_release.h"
#include "app/session/session_io.h"
#include "app/core/shared_state.h"
#include "config/config.h"
#include "ingest/device_stream.h"
#include "metrics/logcat_recorder.h"
#include "parsers/logcat_cursor.h"
#include "parsers/logcat_stream.h"

namespace jank::app {

class LogSession {
 public:
  using Clock = std::function<std::int64_t()>;  // host wall time, ns

  // Starts from the device's saved cursor; counts one more stream.
  LogSession(std::shared_ptr<const config::Config> config, std::string serial, SharedState& shared, RunCommand run,
             Clock host_now, AndroidRelease release);
  ~LogSession();
  LogSession(const LogSession&) = delete;
  LogSession& operator=(const LogSession&) = delete;

  // The script that opens the stream, from where the cursor stands.
  std::string open_script() const;
  // Bytes from the stream. False (and `error()`) when the stream cannot be followed.
  bool feed(std::string_view bytes);
  const std::string& error() const;
  // A read brought log entries while the stream was following (past its
  // preamble and what the ring held at the start).
  bool delivering() const { return delivering_; }
  // A ring that printed less than its statistics promised (logd pruned in
  // between) leaves the stream undecided until that buffer logs again; the
  // session calls this after waiting long enough.
  void settle_if_undecided();
  // A process listing: applied now, or once the stream has passed what the
  // ring held at its start (older lines could name a reused pid wrongly).
  void processes_listed(metrics::ProcessListing running);

 private:
  void after_feed();  // with the store's lock held, likewise below
  void apply_plan();
  void on_line(const parsers::LogcatFollower::Line& line);
  void apply_processes(const metrics::ProcessListing& running);
  void check_continuity(parsers::LogCursor snapshot);
  void sync_unheld();

  std::shared_ptr<const config::Config> config_;
  std::string serial_;
  SharedState& shared_;
  RunCommand run_;
  Clock host_now_;
  AndroidRelease release_;
  std::unique_ptr<metrics::DeviceLogcatRecorder> sink_;
  // The store's record of the device, as sink_ holds it: a device is erased
  // only after its session ends. Looked up once, not once per line.
  metrics::DeviceMetrics* device_ = nullptr;
  std::unique_ptr<parsers::LogcatStream> stream_;
  std::unique_ptr<parsers::LogcatFollower> follower_;
  parsers::LineCounts lines_base_;  // the device's totals before this stream
  std::uint64_t unheld_base_ = 0;   // likewise, lines logd counted but never held
  std::int64_t fed_at_ns_ = 0;      // when the bytes being fed arrived
  bool plan_applied_ = false;
  bool check_running_ = false;      // a continuity check is out
  // Entries the rings held at the last continuity check: with what they held
  // when the stream began, what a burst is measured against.
  std::uint64_t ring_held_ = 0;
  bool catching_up_ = true;         // not yet past what the ring held at the start
  bool delivering_ = false;         // see delivering()
  std::optional<metrics::ProcessListing> pending_processes_;
};

}  // namespace jank::app
