#include "metrics/store.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>

#include "metrics/checkpoint.h"
#include "metrics/device_view.h"
#include "metrics/source.h"
#include "metrics/state_io.h"
#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

bool usable_printed_name(std::string_view name) {
  return !name.empty() && name != "?" && name.size() <= 256;
}

}  // namespace

std::string_view device_state_name(DeviceState state) {
  switch (state) {
    case DeviceState::starting: return "starting";
    case DeviceState::following: return "following";
    case DeviceState::stalled: return "stalled";
    case DeviceState::unsupported: return "unsupported";
    case DeviceState::unauthorized: return "unauthorized";
    case DeviceState::offline: return "offline";
    case DeviceState::disconnected: return "disconnected";
  }
  return "unknown";
}

DeviceMetrics::DeviceMetrics(std::string serial_in, const StoreOptions& options)
    : serial(std::move(serial_in)),
      refresh_hz(options.default_refresh_hz),
      pid_names(options.max_pids_per_device) {}

Store::Store(StoreOptions options) : options_(options) {}

DeviceMetrics& Store::device(std::string_view serial) {
  auto it = devices_.find(serial);
  if (it == devices_.end()) {
    it = devices_.emplace(std::string(serial), std::make_unique<DeviceMetrics>(std::string(serial), options_)).first;
  }
  return *it->second;
}

void Store::erase_device(std::string_view serial) {
  if (auto it = devices_.find(serial); it != devices_.end()) devices_.erase(it);
}

PackageMetrics& Store::package(DeviceMetrics& device, std::string_view name) {
  PackageMetrics& p = find_or_add_package(device, name);
  if (host_now_ns_ != 0) p.last_alive_ns = host_now_ns_;
  return p;
}

void Store::mark_running_packages_alive(DeviceMetrics& device) {
  if (host_now_ns_ == 0) return;
  device.pid_names.for_each_running([&](std::int32_t pid, const std::string& name) {
    if (auto it = device.packages.find(name); it != device.packages.end()) it->second.last_alive_ns = host_now_ns_;
    if (auto it = device.packages.find("pid:" + std::to_string(pid)); it != device.packages.end()) {
      it->second.last_alive_ns = host_now_ns_;
    }
  });
}

std::size_t Store::expire_packages(DeviceMetrics& device, std::int64_t grace_ns) {
  if (host_now_ns_ == 0) return 0;
  bool aged = false;
  for (const DeviceSource* source : device_sources()) aged = source->expire(device, host_now_ns_, grace_ns) || aged;
  std::size_t removed = 0;
  for (auto it = device.packages.begin(); it != device.packages.end();) {
    const bool dead = it->first != kOverflowPackage && it->second.last_alive_ns != 0 &&
                      host_now_ns_ - it->second.last_alive_ns > grace_ns &&
                      !device.pinned_packages.contains(base_package(it->first));
    if (dead) {
      it = device.packages.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  // What modules hold per package or layer (a version, an exemplar) goes with its series.
  if (removed > 0 || aged) packages_changed(device);
  return removed;
}

// No panel refreshes faster; a larger value is a misread line.
bool plausible_refresh_hz(double hz) { return hz > 0 && hz <= 1000; }

bool has_package_series(const DeviceMetrics& device, std::string_view package) {
  const std::string_view base = base_package(package);
  for (auto it = device.packages.lower_bound(base); it != device.packages.end(); ++it) {
    const std::string_view name = it->first;
    if (!name.starts_with(base)) break;
    if (name.size() == base.size() || name[base.size()] == ':') return true;
  }
  return false;
}

PackageMetrics& Store::find_or_add_package(DeviceMetrics& device, std::string_view name) {
  auto it = device.packages.find(name);
  if (it != device.packages.end()) return it->second;
  if (device.packages.size() >= options_.max_packages_per_device) {
    ++device.package_overflow_events;
    name = kOverflowPackage;
    it = device.packages.find(name);
    if (it != device.packages.end()) return it->second;
  }
  return device.packages.emplace(std::string(name), PackageMetrics()).first->second;
}

std::string Store::package_label(const DeviceMetrics& device, std::int32_t pid, std::string_view printed) {
  if (pid >= 0) {
    if (const std::string* name = device.pid_names.find(pid)) return *name;
  }
  if (usable_printed_name(printed)) return std::string(printed);
  if (pid >= 0) return "pid:" + std::to_string(pid);
  return std::string(kUnknownPackage);
}

void Store::note_time(DeviceMetrics& device, std::int64_t time_ns) {
  if (!device.has_time || time_ns > device.latest_time_ns) device.latest_time_ns = time_ns;
  if (!device.has_time || time_ns < device.earliest_time_ns) device.earliest_time_ns = time_ns;
  device.has_time = true;
}

void Store::record_process(DeviceMetrics& device, const parsers::ProcessEvent& event) {
  if (event.pid < 0) return;
  if (event.kind == parsers::ProcessEvent::Kind::start) {
    device.pid_names.started(event.pid, event.process);
  } else {
    device.pid_names.died(event.pid);
  }
}

void Store::record_process_list(DeviceMetrics& device,
                                const ProcessListing& processes) {
  device.pid_names.listed(processes);
  mark_running_packages_alive(device);
}

namespace {

constexpr std::string_view kStateMagic = "jank_exporter_state";
// 2: the log cursor (logd indices and line identities), log continuity
// counters and the device clock; windows on host time. 1 is still read.
// Later additions (dump_input, surface) are optional records of version 2.
constexpr std::uint64_t kStateVersion = 2;

// The source modules' parts of the store's device record at `at`
// (DeviceSource::device_part), a fresh state's for a device without one.
void save_device_parts(StateWriter& w, const DeviceMetrics& d, DeviceAt at) {
  for (const DeviceSource* source : device_sources()) {
    if (!source->device_part(at)) continue;
    SourceState* state = d.sources.find(source->slot());
    std::unique_ptr<SourceState> fresh;
    if (state == nullptr) {
      fresh = source->make_state();
      state = fresh.get();
    }
    Checkpoint c(w);
    source->checkpoint_device_part(c, *state, at);
  }
}

// Reads them into the device's state. A part in the counters line whose
// values cannot be true counts as a rejected value of the line, as any of
// the line's own fields would; a record of its own is reported alone.
template <typename Reject>
void load_device_parts(StateReader& r, DeviceMetrics& d, DeviceAt at, Reject reject) {
  for (const DeviceSource* source : device_sources()) {
    if (!source->device_part(at)) continue;
    SourceState* state = d.sources.find(source->slot());
    if (state == nullptr) {
      auto made = source->make_state();
      state = made.get();
      d.sources.put(source->slot(), std::move(made));
    }
    Checkpoint c(r);
    if (source->checkpoint_device_part(c, *state, at) || r.fail()) continue;
    if (at == DeviceAt::lines || at == DeviceAt::counters) {
      r.reject();
    } else {
      reject(*source, at);
    }
  }
}

// A fresh app state of each source, written as the fields of an app
// without one: made once, not per app and checkpoint; saving only reads it.
SourceState* fresh_package_state(const DeviceSource& source) {
  static const auto fresh = [] {
    std::vector<std::unique_ptr<SourceState>> out;
    for (const DeviceSource* s : device_sources()) {
      if (s->slot() >= out.size()) out.resize(s->slot() + 1);
      out[s->slot()] = s->make_package_state();
    }
    return out;
  }();
  return fresh[source.slot()].get();
}

// The source modules' parts of a package record, each tagged with the
// module's name; absent from files written before a module had any.
void save_package_sources(StateWriter& w, const PackageMetrics& p, PackageAt at) {
  for (const DeviceSource* source : device_sources()) {
    if (source->package_tag(at).empty()) continue;
    SourceState* state = p.sources.find(source->slot());
    if (in_every_record(at)) {
      // In every record: an app without the source's state writes a fresh one's.
      if (state == nullptr) state = fresh_package_state(*source);
    } else if (state == nullptr || !source->package_worth_saving(*state, at)) {
      continue;
    }
    if (at != PackageAt::head) w.newline();
    if (at == PackageAt::last) w.tag(source->package_tag(at));
    Checkpoint c(w);
    source->checkpoint_package(c, *state, at);
  }
}

// A part whose values cannot be true drops the whole package record, as any
// of the package's own fields would.
void load_package_sources(StateReader& r, PackageMetrics& p, PackageAt at) {
  for (const DeviceSource* source : device_sources()) {
    const std::string_view tag = source->package_tag(at);
    if (tag.empty() || (!in_every_record(at) && !r.peek(tag))) continue;
    if (at == PackageAt::last) r.expect(tag);
    // A source with parts at several places fills one state.
    SourceState* state = p.sources.find(source->slot());
    if (state == nullptr) {
      auto made = source->make_package_state();
      if (made == nullptr) {
        r.set_error("a package record holds " + std::string(tag) + ", a source without per-app state");
        return;
      }
      state = made.get();
      p.sources.put(source->slot(), std::move(made));
    }
    Checkpoint c(r);
    if (!source->checkpoint_package(c, *state, at) && !r.fail()) r.reject();
  }
}

void save_package(StateWriter& w, const std::string& name, const PackageMetrics& p) {
  w.tag("package").str(name).newline();
  save_package_sources(w, p, PackageAt::head);
  save_package_sources(w, p, PackageAt::dumps);
  save_package_sources(w, p, PackageAt::framestats);
  save_package_sources(w, p, PackageAt::profile);
  save_package_sources(w, p, PackageAt::windows);
  if (p.peaks.skip_frames > 0 || p.peaks.frame_ns > 0) {
    w.newline().tag("peaks").u64(p.peaks.skip_frames).i64(p.peaks.frame_ns);
  }
  save_package_sources(w, p, PackageAt::last);
  w.newline();
}

void load_package(StateReader& r, PackageMetrics& p) {
  load_package_sources(r, p, PackageAt::head);
  load_package_sources(r, p, PackageAt::dumps);
  load_package_sources(r, p, PackageAt::framestats);
  load_package_sources(r, p, PackageAt::profile);
  load_package_sources(r, p, PackageAt::windows);
  if (r.peek("peaks")) {
    r.expect("peaks");
    const std::uint64_t skip = r.u64();
    const std::int64_t frame_ns = r.i64();
    // A skip is a 32-bit count; a frame never lasts a day.
    if (skip <= UINT32_MAX && frame_ns >= 0 && frame_ns < 86'400'000'000'000) {
      p.peaks = {static_cast<std::uint32_t>(skip), frame_ns};
    } else {
      r.reject();
    }
  }
  load_package_sources(r, p, PackageAt::last);
}

void save_cursor(StateWriter& w, const parsers::LogCursor& c) {
  w.tag("cursor").boolean(c.valid).str(c.boot_id).i64(c.logd_pid).u64(c.buffers.size());
  for (const auto& [name, b] : c.buffers) w.str(name).u64(b.index).hash(b.last_hash);
  // A record of its own on the cursor's line: files written before it read on without it.
  w.tag("rebase").u64(c.buffers.size());
  for (const auto& [name, b] : c.buffers) w.str(name).hash(b.rebase_hash);
}

bool plausible_boot_id(const std::string& id) {
  if (id.empty()) return true;
  if (id.size() != 36) return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return c == '-' || std::isxdigit(static_cast<unsigned char>(c)); });
}

// False when a value in it cannot be true.
bool load_cursor(StateReader& r, parsers::LogCursor& c) {
  const std::uint64_t rejected = r.rejected();
  r.expect("cursor");
  c.valid = r.boolean();
  c.boot_id = r.str();
  c.logd_pid = r.i64();
  const std::uint64_t n = r.count(64);
  for (std::uint64_t k = 0; k < n && !r.fail(); ++k) {
    std::string name = r.str();
    auto& b = c.buffers[name];
    b.index = r.u64();
    b.last_hash = r.hash();
  }
  if (r.peek("rebase")) {
    r.expect("rebase");
    const std::uint64_t m = r.count(64);
    for (std::uint64_t k = 0; k < m && !r.fail(); ++k) {
      const std::string name = r.str();
      const std::uint64_t hash = r.hash();
      if (const auto it = c.buffers.find(name); it != c.buffers.end()) it->second.rebase_hash = hash;
    }
  }
  return r.rejected() == rejected && plausible_boot_id(c.boot_id) && c.logd_pid >= 0 && c.logd_pid <= (1 << 22);
}

// Reads the v1 log position (device timestamps: no longer used) and its
// loss index, which holds the logd indices a v2 cursor starts from.
void load_v1_position(StateReader& r, parsers::LogCursor& c, DeviceMetrics::LogContinuity& continuity) {
  r.boolean();  // position valid
  r.i64();      // newest timestamp
  const std::uint64_t hashes = r.count(1'000'000);
  for (std::uint64_t k = 0; k < hashes && !r.fail(); ++k) r.hash();
  if (!r.peek("logindex")) return;
  r.expect("logindex");
  const bool anchored = r.boolean();
  continuity.lost_lines = r.u64();
  const std::uint64_t buffers = r.count(64);
  for (std::uint64_t k = 0; k < buffers && !r.fail(); ++k) {
    std::string buffer = r.str();
    c.buffers[buffer].index = r.u64();
  }
  c.valid = anchored;
}



// Each source module's record: its tag, then its checkpoint function's fields.
void save_sources(StateWriter& w, const DeviceMetrics& d) {
  for (const DeviceSource* source : device_sources()) {
    SourceState* state = d.sources.find(source->slot());
    if (state == nullptr || !source->worth_saving(*state)) continue;
    w.tag(source->record());
    Checkpoint c(w);
    if (source->checkpoints_device()) {
      // Saving only reads the device.
      source->checkpoint_device(c, const_cast<DeviceMetrics&>(d), {});
    } else {
      source->checkpoint(c, *state);
    }
    w.newline();
  }
}

// Reads the source module's record that comes next, if the next token names
// one; false otherwise. A record with a value that cannot be true is
// dropped (the device keeps no state of that source) and reported; a
// record checkpointed with the device reports what it drops itself.
template <typename Reject>
bool load_source(StateReader& r, DeviceMetrics& d, Reject reject, const RecordDrop& drop) {
  for (const DeviceSource* source : device_sources()) {
    if (!r.peek(source->record())) continue;
    r.expect(source->record());
    Checkpoint c(r);
    if (source->checkpoints_device()) {
      source->checkpoint_device(c, d, drop);
      return true;
    }
    auto state = source->make_state();
    if (source->checkpoint(c, *state)) {
      d.sources.put(source->slot(), std::move(state));
    } else if (!r.fail()) {
      d.sources.clear(source->slot());
      reject(*source);
    }
    return true;
  }
  return false;
}

}  // namespace

std::string Store::save() const {
  StateWriter w;
  w.tag(kStateMagic).u64(kStateVersion).u64(devices_.size()).newline();
  for (const auto& [serial, d] : devices_) {
    w.tag("device").str(serial).f64(d->refresh_hz).boolean(d->refresh_is_fallback).newline();
    const auto& l = d->lines;
    w.u64(l.received).u64(l.duplicates).u64(l.parsed).u64(l.unmatched).u64(l.discarded.size());
    for (auto n : l.discarded) w.u64(n);
    w.newline();
    save_device_parts(w, *d, DeviceAt::lines);
    w.u64(d->package_overflow_events);
    save_device_parts(w, *d, DeviceAt::counters);
    w.i64(d->latest_time_ns).boolean(d->has_time).newline();
    // Sorted so that equal stores give equal files.
    const auto pids = d->pid_names.sorted();
    w.u64(pids.size());
    for (const auto& [pid, name] : pids) w.i64(pid).str(name);
    w.newline();
    save_cursor(w, d->log_cursor);
    const auto& c = d->continuity;
    w.newline().tag("continuity").u64(c.lost_lines).u64(c.resumes_with_loss).u64(c.reboots).u64(c.logd_restarts);
    w.u64(c.unconfirmed_resumes).u64(c.unheld_lines);
    const auto offset = d->clock.offset_ns();
    w.newline().tag("clock").boolean(offset.has_value()).i64(offset.value_or(0)).u64(d->clock.steps());
    save_device_parts(w, *d, DeviceAt::dump_input);
    save_device_parts(w, *d, DeviceAt::profile_input);
    w.newline().u64(d->packages.size()).newline();
    for (const auto& [name, p] : d->packages) save_package(w, name, p);
    save_sources(w, *d);
  }
  w.tag("end").newline();
  return w.text();
}

bool Store::load(std::string_view text, std::string& error, LoadReport* report) {
  StateReader r(text);
  LoadReport local;
  LoadReport& rep = report ? *report : local;
  std::map<std::string, std::unique_ptr<DeviceMetrics>, std::less<>> loaded;
  std::uint64_t version = 0;
  if (r.expect(kStateMagic)) {
    version = r.u64();
    if (!r.fail() && version != 1 && version != kStateVersion) {
      r.set_error("state version " + std::to_string(version) + " is not 1 or " + std::to_string(kStateVersion));
    }
  }
  rep.version = version;
  auto reject = [&](const std::string& serial, const std::string& record, const std::string& why) {
    rep.rejected.push_back(serial + ": " + record + ": " + why);
    ++rep.rejected_by_record[record.substr(0, record.find(' '))];
  };
  const std::uint64_t devices = r.count(100'000);
  for (std::uint64_t i = 0; i < devices && !r.fail(); ++i) {
    r.expect("device");
    std::string serial = r.str();
    auto d = std::make_unique<DeviceMetrics>(serial, options_);
    auto reject_part = [&](const DeviceSource& source, DeviceAt at) {
      reject(serial, "device_counters", std::string(source.device_rejected_why(at)));
    };
    std::uint64_t before = r.rejected();
    d->refresh_hz = r.f64();
    d->refresh_is_fallback = r.boolean();
    if (!plausible_refresh_hz(d->refresh_hz)) {
      d->refresh_hz = options_.default_refresh_hz;
      d->refresh_is_fallback = true;
      reject(serial, "device_counters", "refresh rate out of range");
    }
    auto& l = d->lines;
    l.received = r.u64();
    l.duplicates = r.u64();
    l.parsed = r.u64();
    l.unmatched = r.u64();
    if (r.count(64) != l.discarded.size()) r.set_error("discard reasons changed");
    for (auto& n : l.discarded) n = r.u64();
    load_device_parts(r, *d, DeviceAt::lines, reject_part);
    d->package_overflow_events = r.u64();
    load_device_parts(r, *d, DeviceAt::counters, reject_part);
    d->latest_time_ns = r.i64();
    d->earliest_time_ns = d->latest_time_ns;
    d->has_time = r.boolean();
    if (r.rejected() != before) {
      l = {};
      d->package_overflow_events = 0;
      // A part at `counters` goes with the line, as its fields did (nothing
      // else of its source is read yet).
      for (const DeviceSource* source : device_sources()) {
        if (source->device_part(DeviceAt::counters)) d->sources.clear(source->slot());
      }
      reject(serial, "device_counters", "a count out of range; the device's line counts restart from 0");
    }
    const std::uint64_t pids = r.count(options_.max_pids_per_device);
    for (std::uint64_t k = 0; k < pids && !r.fail(); ++k) {
      const std::int64_t pid = r.i64();
      std::string name = r.str();
      if (pid >= 0 && pid <= INT32_MAX) d->pid_names.started(static_cast<std::int32_t>(pid), name);
    }
    if (version == 1) {
      before = r.rejected();
      load_v1_position(r, d->log_cursor, d->continuity);
      if (r.rejected() != before) {
        d->log_cursor = {};
        d->continuity = {};
        reject(serial, "log_cursor", "a log index out of range; counting restarts from now");
      }
    } else {
      if (!load_cursor(r, d->log_cursor)) {
        d->log_cursor = {};
        reject(serial, "log_cursor", "a value no logd can have; counting restarts from now");
      }
      before = r.rejected();
      r.expect("continuity");
      auto& c = d->continuity;
      c.lost_lines = r.u64();
      c.resumes_with_loss = r.u64();
      c.reboots = r.u64();
      c.logd_restarts = r.u64();
      c.unconfirmed_resumes = r.u64();
      if (!r.peek("clock")) c.unheld_lines = r.u64();  // absent from files before it was counted
      if (r.rejected() != before) {
        c = {};
        reject(serial, "device_counters", "a log continuity count out of range; restarts from 0");
      }
      r.expect("clock");
      const bool known = r.boolean();
      const std::int64_t offset = r.i64();
      before = r.rejected();
      const std::uint64_t steps = r.u64();
      // A century either way is no clock any device runs.
      constexpr std::int64_t kMaxOffsetNs = parsers::units::to_ns(std::chrono::days(100 * 366));
      if (r.rejected() != before || offset > kMaxOffsetNs || offset < -kMaxOffsetNs) {
        reject(serial, "device_clock", "offset or steps out of range; learned again");
      } else {
        d->clock.restore(known ? std::optional<std::int64_t>(offset) : std::nullopt, steps);
      }
    }
    load_device_parts(r, *d, DeviceAt::dump_input, reject_part);
    load_device_parts(r, *d, DeviceAt::profile_input, reject_part);
    const std::uint64_t packages = r.count(1'000'000);
    for (std::uint64_t k = 0; k < packages && !r.fail(); ++k) {
      r.expect("package");
      std::string name = r.str();
      auto [it, inserted] = d->packages.emplace(name, PackageMetrics());
      if (!inserted) r.set_error("package listed twice");
      before = r.rejected();
      load_package(r, it->second);
      if (r.rejected() != before && !r.fail()) {
        it->second = PackageMetrics();
        reject(serial, "package " + name, "a count out of range; its series restart from 0");
      }
    }
    // The optional records after the packages, each absent from files written
    // before its source existed and for devices without it; read in any order.
    const RecordDrop drop = [&](const std::string& record, const std::string& why) { reject(serial, record, why); };
    for (bool more = true; more && !r.fail();) {
      more = load_source(
          r, *d,
          [&](const DeviceSource& source) {
            reject(serial, std::string(source.rejected_record()), std::string(source.rejected_why()));
          },
          drop);
    }
    packages_changed(*d);
    for (const DeviceSource* source : device_sources()) source->loaded(*d, options_, version);
    if (!r.fail()) loaded.emplace(std::move(serial), std::move(d));
  }
  r.expect("end");
  if (!r.fail() && !r.at_end()) r.set_error("data after the end marker");
  if (r.fail()) {
    error = r.error();
    return false;
  }
  devices_ = std::move(loaded);
  return true;
}

std::int64_t judge_interval_ns(const Store& store, const DeviceMetrics& device) {
  const StoreOptions& options = store.options();
  const double hz = options.judge_refresh_hz > 0 ? options.judge_refresh_hz : device.refresh_hz;
  return hz > 0 ? parsers::units::period_ns_of_rate(hz) : 16'666'667;
}

}  // namespace jank::metrics
