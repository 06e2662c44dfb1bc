#include "app/core/trace_store.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "app/core/atomic_file.h"
#include "app/core/log.h"
#include "exporters/regular_file.h"
#include "exporters/trace_json.h"
#include "parsers/time_units.h"

namespace jank::app {
namespace {

namespace fs = std::filesystem;
using metrics::StoredTrace;

// Metadata is a few hundred bytes: a larger .json is not ours, and is not read whole.
constexpr std::size_t kMaxMetadataBytes = 64 * 1024;
constexpr std::string_view kTemporary = ".tmp";  // write_atomically's

// The scan saw a regular file, but it may have been replaced since: a
// symlink is not followed, a FIFO does not block (exporters/regular_file.h).
bool read_small(const std::string& path, std::string& out) {
  return exporters::read_regular_file(path, kMaxMetadataBytes, out);
}

// `name` without `suffix`, or "" when it does not end so.
std::string stem_of(std::string_view name, std::string_view suffix) {
  if (name.size() <= suffix.size() || !name.ends_with(suffix)) return "";
  return std::string(name.substr(0, name.size() - suffix.size()));
}

void remove_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    log_warning("cannot remove " + path + ": " + std::strerror(errno));
  }
}

}  // namespace

TraceStore::TraceStore(std::string dir, metrics::TraceLimits limits, std::function<std::int64_t()> now_ns,
                       std::function<void(const metrics::TraceStoreStatus&)> on_status)
    : dir_(std::move(dir)), now_ns_(std::move(now_ns)), on_status_(std::move(on_status)), limits_(limits) {}

std::string TraceStore::trace_path(std::string_view id) const {
  return dir_ + "/" + std::string(id) + std::string(metrics::kTraceExtension);
}

std::string TraceStore::metadata_path(std::string_view id) const {
  return dir_ + "/" + std::string(id) + std::string(metrics::kTraceMetadataExtension);
}

bool TraceStore::open(std::string& error) {
  std::lock_guard<std::mutex> change(change_mutex_);
  std::error_code ec;
  const bool created = fs::create_directories(dir_, ec);
  if (!ec && created) {
    // Traces show what ran on the devices: not for every local user.
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec, ec);
  }
  if (ec || !fs::is_directory(dir_)) {
    error = "cannot use trace directory " + dir_ + ": " + (ec ? ec.message() : "not a directory");
    publish();
    return false;
  }
  rescan();
  retain();
  return true;
}

void TraceStore::rescan() {
  std::map<std::string, std::uint64_t> traces;  // id → file size
  std::set<std::string> metadata;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code entry_ec;
    // A link or directory named like a trace is not one: only plain files are served.
    if (!fs::is_regular_file(it->symlink_status(entry_ec))) continue;
    const std::string name = it->path().filename().string();
    const std::string unfinished = stem_of(name, kTemporary);
    if (!unfinished.empty()) {
      const std::string id =
          stem_of(unfinished, metrics::kTraceExtension) + stem_of(unfinished, metrics::kTraceMetadataExtension);
      if (metrics::trace_id_shaped(id)) {
        log_info("trace directory: removing " + name + ", left by a save that never finished");
        remove_file(it->path().string());
      }
      continue;
    }
    if (const std::string id = stem_of(name, metrics::kTraceExtension); metrics::valid_trace_id(id)) {
      traces[id] = it->file_size(entry_ec);
      if (entry_ec) traces.erase(id);
    } else if (const std::string meta = stem_of(name, metrics::kTraceMetadataExtension);
               metrics::valid_trace_id(meta)) {
      metadata.insert(meta);
    }
  }
  if (ec) log_warning("trace directory " + dir_ + ": cannot read it whole: " + ec.message());

  std::map<std::string, StoredTrace, std::less<>> found;
  for (const auto& [id, size] : traces) {
    const std::string file = id + std::string(metrics::kTraceExtension);
    auto ignore = [&file](const std::string& why) { log_warning("trace directory: ignoring " + file + ": " + why); };
    if (!metadata.contains(id)) {
      ignore("no metadata file beside it");
      continue;
    }
    std::string text, error;
    if (!read_small(metadata_path(id), text)) {
      ignore("its metadata cannot be read or is too large");
      continue;
    }
    auto t = exporters::parse_trace_metadata(text, error);
    if (!t) {
      ignore("bad metadata: " + error);
    } else if (t->id != id || !metrics::trace_id_follows_rule(id, *t)) {
      ignore("its metadata is that of another trace");
    } else if (t->bytes != size) {
      ignore("its size differs from its metadata's (" + std::to_string(size) + " bytes, not " +
             std::to_string(t->bytes) + ")");
    } else {
      found.emplace(id, std::move(*t));
    }
  }
  for (const auto& id : metadata) {
    if (traces.contains(id)) continue;
    std::string text, error;
    // Only metadata of ours is worth a word; any other .json is left alone in silence.
    if (read_small(metadata_path(id), text) && exporters::parse_trace_metadata(text, error)) {
      log_warning("trace directory: ignoring " + id + std::string(metrics::kTraceMetadataExtension) +
                  ": its trace file is missing");
    }
  }
  std::uint64_t bytes = 0;
  for (const auto& [id, t] : found) bytes += t.bytes;
  log_info("trace directory " + dir_ + ": " + std::to_string(found.size()) + " traces, " + std::to_string(bytes) +
           " bytes");
  std::lock_guard<std::mutex> lock(index_mutex_);
  index_ = std::move(found);
}

bool TraceStore::taken(const std::string& id) const {
  {
    std::lock_guard<std::mutex> lock(index_mutex_);
    if (index_.contains(id)) return true;
  }
  // A file of that name that is not in the index (an orphan, say) is never overwritten.
  std::error_code ec;
  return fs::exists(fs::symlink_status(trace_path(id), ec)) || fs::exists(fs::symlink_status(metadata_path(id), ec));
}

TraceStore::SaveResult TraceStore::save(std::string_view bytes, const metrics::StoredTrace& metadata) {
  std::lock_guard<std::mutex> change(change_mutex_);
  SaveResult result;
  auto fail = [&](const char* reason, std::string error) {
    log_warning("trace of " + metadata.serial + " (" + metadata.rule + ") not saved: " + error);
    result.reason = reason;
    result.error = std::move(error);
    return result;
  };
  if (bytes.empty()) return fail("empty", "the trace is empty");
  std::uint64_t max_bytes = 0;
  {
    std::lock_guard<std::mutex> lock(index_mutex_);
    max_bytes = limits_.max_bytes;
  }
  if (max_bytes > 0 && bytes.size() > max_bytes) {
    return fail("too_large", std::to_string(bytes.size()) + " bytes, more than the " + std::to_string(max_bytes) +
                                 " the trace directory may hold");
  }
  StoredTrace t = metadata;
  t.bytes = bytes.size();
  // As exact as the metadata's time, so a rescan agrees.
  t.triggered_at_ns -= t.triggered_at_ns % parsers::units::kNsPerMillisecond;
  t.id = metrics::unique_trace_id(metrics::base_trace_id(t), [this](const std::string& id) { return taken(id); });
  if (t.id.empty()) return fail("write_failed", "no free id for " + metrics::base_trace_id(t));
  // Metadata first: a trace file never exists without it, and a crash in
  // between leaves a small orphan (ignored at start-up), not a large one.
  std::string error;
  if (!write_atomically(metadata_path(t.id), exporters::trace_metadata_json(t), error)) {
    return fail("write_failed", error);
  }
  if (!write_atomically(trace_path(t.id), bytes, error)) {
    remove_file(metadata_path(t.id));
    return fail("write_failed", error);
  }
  log_info("trace " + t.id + " saved (" + std::to_string(t.bytes) + " bytes)");
  std::vector<metrics::TraceRemoval> removed;
  {
    // In and the limits kept at once: no reader sees more than they allow.
    std::lock_guard<std::mutex> lock(index_mutex_);
    index_.emplace(t.id, t);
    removed = drop_locked();
  }
  remove_files(removed);
  result.id = t.id;
  return result;
}

void TraceStore::set_limits(const metrics::TraceLimits& limits) {
  std::lock_guard<std::mutex> change(change_mutex_);
  {
    std::lock_guard<std::mutex> lock(index_mutex_);
    limits_ = limits;
  }
  retain();
}

void TraceStore::enforce() {
  std::lock_guard<std::mutex> change(change_mutex_);
  retain();
}

void TraceStore::retain() {
  std::vector<metrics::TraceRemoval> removed;
  {
    std::lock_guard<std::mutex> lock(index_mutex_);
    removed = drop_locked();
  }
  remove_files(removed);
}

std::vector<metrics::TraceRemoval> TraceStore::drop_locked() {
  std::vector<StoredTrace> all;
  all.reserve(index_.size());
  for (const auto& [id, t] : index_) all.push_back(t);
  auto plan = metrics::plan_retention(std::move(all), limits_, now_ns_());
  for (const auto& r : plan) {
    index_.erase(r.id);
    ++dropped_[std::string(metrics::trace_drop_name(r.reason))];
  }
  return plan;
}

void TraceStore::remove_files(const std::vector<metrics::TraceRemoval>& removed) {
  // Out of the index first, then off the disk: no reader is sent to a trace being removed.
  for (const auto& r : removed) {
    log_info("trace " + r.id + " removed (" + std::string(metrics::trace_drop_name(r.reason)) + " limit)");
    remove_file(trace_path(r.id));
    remove_file(metadata_path(r.id));
  }
  publish();
}

void TraceStore::publish() {
  if (on_status_) on_status_(status());
}

std::vector<StoredTrace> TraceStore::list() const {
  std::vector<StoredTrace> out;
  {
    std::lock_guard<std::mutex> lock(index_mutex_);
    out.reserve(index_.size());
    for (const auto& [id, t] : index_) out.push_back(t);
  }
  std::sort(out.begin(), out.end(), metrics::newer_trace);
  return out;
}

std::optional<StoredTrace> TraceStore::find(std::string_view id) const {
  std::lock_guard<std::mutex> lock(index_mutex_);
  const auto it = index_.find(id);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

metrics::TraceStoreStatus TraceStore::status() const {
  metrics::TraceStoreStatus s;
  s.enabled = true;
  {
    std::lock_guard<std::mutex> lock(index_mutex_);
    s.recent.reserve(index_.size());
    for (const auto& [id, t] : index_) s.recent.push_back(t);
    s.dropped = dropped_;
  }
  s.stored = s.recent.size();
  for (const auto& t : s.recent) s.stored_bytes += t.bytes;
  const std::size_t n = std::min(s.recent.size(), metrics::kRecentTraces);
  std::partial_sort(s.recent.begin(), s.recent.begin() + static_cast<std::ptrdiff_t>(n), s.recent.end(),
                    metrics::newer_trace);
  s.recent.resize(n);
  return s;
}

}  // namespace jank::app
