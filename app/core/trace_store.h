// The flight recorder's trace directory (docs/traces.md, "Where traces go"):
// each trace saved whole or not at all, as ID.pftrace beside its metadata
// ID.json, the retention limits kept after every save and at start-up, and
// the index read again from the directory, so it survives restarts. The rules
// themselves (names, retention) are metrics/trace_files.h; the metadata
// format is exporters/trace_json.h.
//
// Threads: the recorder saves (io thread) while the HTTP thread lists and
// looks traces up. `index_mutex_` guards the index and the drop counts and is
// held only briefly; `change_mutex_` serialises the changes (open, save,
// retention), so a save's disk write (seconds for a large trace) never holds
// up a reader. A trace leaves the index before its files go: a reader that
// found it may find the file gone when it opens it (404), and one that opened
// it reads it whole though retention unlinks it meanwhile (an open file
// lives on). Never call the store holding SharedState::mutex: `on_status`
// takes it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/trace_files.h"
#include "metrics/trace_status.h"

namespace jank::app {

class TraceStore {
 public:
  struct SaveResult {
    std::string id;      // the trace's id, when saved
    std::string reason;  // when not: the traces_failed_total reason ("write_failed", "too_large", "empty")
    std::string error;   // when not: what failed, with the path and the system's word for it
    bool ok() const { return error.empty(); }
  };

  // `now_ns` is the host's wall time (retention by age); `on_status` (may be
  // empty) receives status() after every change, for the metrics.
  TraceStore(std::string dir, metrics::TraceLimits limits, std::function<std::int64_t()> now_ns,
             std::function<void(const metrics::TraceStoreStatus&)> on_status = {});

  // Creates the directory when missing, reads it again (only traces with
  // valid metadata count; anything else is logged and left alone, except the
  // temporary files of a save that never finished, which are removed) and
  // applies retention. False, with `error`, when the directory is unusable.
  bool open(std::string& error);

  // Writes the trace and its metadata (id and bytes filled in here; the
  // trigger time kept to the millisecond, as the metadata holds it), each to
  // a temporary name, flushed and renamed when whole; then applies retention.
  // A failure leaves no file behind. A trace larger than max_bytes alone is
  // refused (too_large) rather than saved and dropped at once.
  SaveResult save(std::string_view bytes, const metrics::StoredTrace& metadata);

  // New limits (a reload), applied at once.
  void set_limits(const metrics::TraceLimits& limits);
  // Retention now: age limits act on traces that no save follows.
  void enforce();

  std::vector<metrics::StoredTrace> list() const;  // newest first
  std::optional<metrics::StoredTrace> find(std::string_view id) const;
  metrics::TraceStoreStatus status() const;
  // DIR/ID.pftrace: where the trace `id` is (or was).
  std::string trace_path(std::string_view id) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string metadata_path(std::string_view id) const;
  bool taken(const std::string& id) const;
  void rescan();
  // Applies retention and publishes the status; change_mutex_ held.
  void retain();
  // Takes out of the index what the limits no longer allow, counted; index_mutex_ held.
  std::vector<metrics::TraceRemoval> drop_locked();
  // Removes the files of traces taken out, then publishes the status.
  void remove_files(const std::vector<metrics::TraceRemoval>& removed);
  void publish();

  const std::string dir_;
  std::function<std::int64_t()> now_ns_;
  std::function<void(const metrics::TraceStoreStatus&)> on_status_;
  std::mutex change_mutex_;  // before index_mutex_ when both are held
  mutable std::mutex index_mutex_;
  metrics::TraceLimits limits_;                         // index_mutex_
  std::map<std::string, metrics::StoredTrace, std::less<>> index_;  // by id; index_mutex_
  std::map<std::string, std::uint64_t> dropped_;        // by reason; index_mutex_
};

}  // namespace jank::app
