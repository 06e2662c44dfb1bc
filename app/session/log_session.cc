#include "app/session/log_session.h"

#include <algorithm>

#include "app/core/log.h"
#include "app/session/logcat_script.h"
#include "metrics/sources/log_patterns.h"
#include "parsers/time_units.h"

namespace jank::app {

LogSession::LogSession(std::shared_ptr<const config::Config> config, std::string serial, SharedState& shared,
                       RunCommand run, Clock host_now, AndroidRelease release)
    : config_(std::move(config)),
      serial_(std::move(serial)),
      shared_(shared),
      run_(std::move(run)),
      host_now_(std::move(host_now)),
      release_(release) {
  parsers::LogcatStreamOptions options;
  options.max_line_bytes = config_->logcat_max_line_bytes;
  options.track_last_time = false;  // the follower hands over each entry's time
  options.patterns = config_->log_pattern_set.get();  // config_ keeps it alive
  std::lock_guard<std::mutex> lock(shared_.mutex);
  auto& d = shared_.store.device(serial_);
  // A pattern gone from the configuration (a reload, a restart) takes its series along.
  metrics::retain_log_patterns(d, options.patterns);
  sink_ = std::make_unique<metrics::DeviceLogcatRecorder>(shared_.store, d, config_->log_patterns_max_values);
  device_ = &d;
  lines_base_ = d.lines;
  unheld_base_ = d.continuity.unheld_lines;
  ++d.live.logcat_streams;
  stream_ = std::make_unique<parsers::LogcatStream>(*sink_, options);
  stream_->assume_utf8();  // logcat prints UTF-8: nothing is held back, so counts and cursor agree
  follower_ = std::make_unique<parsers::LogcatFollower>(
      d.log_cursor, logcat_buffers(), kPreambleEnd, config_->logcat_max_line_bytes,
      [this](const parsers::LogcatFollower::Line& line) { on_line(line); });
}

// The parsers hold references into the store: they go under its lock.
LogSession::~LogSession() {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  follower_.reset();
  stream_.reset();
  sink_.reset();
}

std::string LogSession::open_script() const { return follow_script(follower_->cursor(), release_); }

const std::string& LogSession::error() const { return follower_->error(); }

bool LogSession::feed(std::string_view bytes) {
  bool check = false;
  parsers::LogCursor snapshot;
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    fed_at_ns_ = host_now_();
    shared_.store.set_host_time(fed_at_ns_);
    follower_->set_yearless_reference(fed_at_ns_);
    stream_->set_yearless_reference(fed_at_ns_);
    const std::uint64_t entries_before = follower_->entries();
    follower_->feed(bytes);
    after_feed();
    if (follower_->state() == parsers::LogcatFollower::State::failed) return false;
    delivering_ = delivering_ || (follower_->state() == parsers::LogcatFollower::State::following &&
                                  follower_->entries() > entries_before);
    // One read that brings a quarter ring's worth of entries is a burst the
    // ring may not have held whole: logd may have skipped the stream ahead.
    // The ring's worth is the more of what it held at the stream's start
    // (nearly empty after a reboot) and at the last check, so that a device
    // logging thousands of lines a second into a large ring is not checked
    // (a dump of the whole ring) at every read.
    const std::uint64_t ring = std::max(follower_->plan()->held_entries, ring_held_);
    check = follower_->state() == parsers::LogcatFollower::State::following && !check_running_ &&
            follower_->entries() - entries_before >= std::max<std::uint64_t>(64, ring / 4);
    if (check) snapshot = follower_->cursor();
  }
  // Not under the lock: the runner may answer at once.
  if (check) check_continuity(std::move(snapshot));
  return true;
}

void LogSession::settle_if_undecided() {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  if (follower_->state() == parsers::LogcatFollower::State::catching_up && !follower_->settled() &&
      follower_->entries() > 0) {
    follower_->settle();
    after_feed();
  }
}

void LogSession::processes_listed(metrics::ProcessListing running) {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  if (catching_up_) {
    pending_processes_ = std::move(running);
  } else {
    apply_processes(running);
  }
}

void LogSession::apply_processes(const metrics::ProcessListing& running) {
  shared_.store.set_host_time(host_now_());
  shared_.store.record_process_list(shared_.store.device(serial_), running);
}

// logd skips a live reader ahead when it prunes what the reader has not read
// yet (a burst larger than the ring); the stream never says so and its cursor
// then lags logd's count. A dump of the ring measures it like a resume would:
// the last entry counted at the check's start is looked for by content, and
// logd's count past it that the live stream did not read is the gap (the
// ring's own chatty summaries after it aside: the live stream counts those).
// logd's counts alone cannot tell a skip from lines it counted but never held
// (a log.tag property refusing them in logd); the ring can: logd prunes
// oldest first, so it can only have skipped the stream if the ring no longer
// holds the entry the cursor was last rebased at. If it still does, the gap is
// lines never held (unheld, no loss); else it is taken as a skip (lost).
// Either way the cursor rebases on logd's count. Measured now, not at the
// next stream start, so that a reboot or logd restart before then cannot
// turn it into unknown lines.
void LogSession::check_continuity(parsers::LogCursor snapshot) {
  check_running_ = true;
  run_(ring_dump_script(release_), kRingDumpOutput,
       [this, snapshot = std::move(snapshot)](ingest::ShellResult r) {
         check_running_ = false;
         if (r.error || r.truncated) return;
         parsers::LogcatFollower check(snapshot, logcat_buffers(), kPreambleEnd, config_->logcat_max_line_bytes,
                                       [](const parsers::LogcatFollower::Line&) {});
         check.feed(r.output);
         check.settle();
         if (check.settled()) ring_held_ = check.plan()->held_entries;
         if (!check.settled() || check.plan()->kind != parsers::ResumeKind::resume) return;
         std::lock_guard<std::mutex> lock(shared_.mutex);
         auto& d = shared_.store.device(serial_);
         for (const auto& b : logcat_buffers()) {
           if (!check.anchor_found(b)) continue;  // gone already: the next stream start measures it
           // Its whole shortfall: whether logd skipped the stream is decided below.
           const auto u = check.unheld().find(b);
           const auto l = check.lost().find(b);
           const std::uint64_t counted =
               (u == check.unheld().end() ? 0 : u->second) + (l == check.lost().end() ? 0 : l->second);
           const std::uint64_t excess = check.ring_summary_excess(b);
           const std::uint64_t gap = counted > excess ? counted - excess : 0;
           const std::uint64_t at = snapshot.buffers.count(b) ? snapshot.buffers.at(b).last_hash : 0;
           if (gap == 0 || check.watched_held(b)) {
             follower_->skip_ahead(b, gap, parsers::LogcatFollower::Gap::unheld, at);
             continue;
           }
           follower_->skip_ahead(b, gap, parsers::LogcatFollower::Gap::skipped, at);
           d.continuity.lost_lines += gap;
           log_warning("device " + serial_ + ": logd skipped " + std::to_string(gap) + " lines of " + b +
                       " under the live stream (a burst larger than its ring)");
         }
         d.log_cursor = follower_->cursor();
         sync_unheld();
       });
}

void LogSession::sync_unheld() {
  device_->continuity.unheld_lines = unheld_base_ + follower_->unheld_total();
}

// The store follows the follower: counts, cursor and what the stream found
// change together, under one lock, so a checkpoint sees all or none.
void LogSession::after_feed() {
  auto& d = *device_;
  if (follower_->settled() && !plan_applied_) apply_plan();
  d.lines = lines_base_;
  d.lines += stream_->counts();
  d.lines.duplicates += follower_->dropped_lines();
  d.log_cursor = follower_->cursor();
  sync_unheld();
  if (catching_up_ && follower_->state() == parsers::LogcatFollower::State::following &&
      follower_->entries() >= follower_->plan()->held_entries) {
    catching_up_ = false;
    if (pending_processes_) apply_processes(*pending_processes_);
    pending_processes_.reset();
  }
}

// What the new stream found, applied in the same breath as the cursor moves:
// a checkpoint never holds one without the other.
void LogSession::apply_plan() {
  plan_applied_ = true;
  const parsers::ResumePlan& plan = *follower_->plan();
  auto& d = shared_.store.device(serial_);
  auto& c = d.continuity;
  const std::uint64_t lost = follower_->lost_total();
  if (plan.kind == parsers::ResumeKind::reboot) {
    ++c.reboots;
    d.pid_names.clear();  // the old boot's pids name nothing now
  }
  if (plan.kind == parsers::ResumeKind::logd_restart) ++c.logd_restarts;
  c.lost_lines += lost;
  if (lost > 0) ++c.resumes_with_loss;
  c.unconfirmed_resumes += follower_->unconfirmed();
  sync_unheld();
  d.live.state = metrics::DeviceState::following;
  d.live.state_reason.clear();
  const std::uint64_t unheld = follower_->unheld_total();
  const auto& new_logs = follower_->new_log_buffers();
  log_info("device " + serial_ + ": log stream " + std::string(parsers::resume_kind_name(plan.kind)) +
           (follower_->dropped_lines() ? ", " + std::to_string(follower_->dropped_lines()) + " lines counted before" : "") +
           (lost ? ", " + std::to_string(lost) + " lines lost" : "") +
           (unheld ? ", " + std::to_string(unheld) + " lines counted by logd but never held (filtered or squashed)"
                   : "") +
           (follower_->unconfirmed() > new_logs.size() ? ", position not confirmed by content" : ""));
  for (const auto& b : new_logs) {
    log_warning("device " + serial_ + ": last counted line of " + b +
                " not in the ring where logd's totals put it: counted as a new log (a reboot or logd restart the "
                "boot id and logd pid did not show)");
  }
}

// Every line the follower passes on, in order, under the lock.
void LogSession::on_line(const parsers::LogcatFollower::Line& line) {
  // Before the first line of a new boot names a pid.
  if (!plan_applied_ && follower_->settled()) apply_plan();
  auto& d = *device_;
  if (line.new_entry && line.device_ns) {
    const std::int64_t at = d.clock.observe(*line.device_ns, fed_at_ns_);
    d.live.last_line_time_ns = *line.device_ns;
    d.live.ingest_lag_seconds = parsers::units::seconds_of_ns(fed_at_ns_ - at);
  }
  stream_->feed(line.text);
}

}  // namespace jank::app
