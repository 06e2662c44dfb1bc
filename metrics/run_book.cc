#include "metrics/run_book.h"

#include <algorithm>
#include <charconv>

#include "metrics/sources/memory.h"
#include "metrics/sources/versions.h"
#include "metrics/state_io.h"
#include "parsers/names.h"
#include "parsers/time_units.h"

namespace jank::metrics {
namespace {

constexpr std::string_view kRunsMagic = "jank_exporter_runs";
constexpr std::uint64_t kRunsVersion = 1;
constexpr std::size_t kMaxDevicesPerRun = 1024;
constexpr std::size_t kMaxTags = 16;

bool id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

bool printable(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

void step_add(RunStep& step, const AppCounters& growth) {
  if (const auto v = growth.total("frames")) {
    step.frames += *v;
    step.has_frames = true;
  }
  step.janky_frames += growth.total("janky_frames").value_or(0);
  step.skipped_frames += growth.total("skipped_frames").value_or(0);
  if (const auto v = growth.total("sf_frames")) {
    step.sf_frames += *v;
    step.has_sf = true;
  }
  step.sf_intervals += growth.total("sf_intervals").value_or(0);
  step.active_ns += growth.total("active_ns").value_or(0);
  if (const auto v = growth.total("cpu_ticks")) {
    step.cpu_ticks += *v;
    step.has_cpu = true;
  }
}

void merge_pairs(std::vector<RunStep>& steps) {
  std::vector<RunStep> merged;
  for (std::size_t i = 0; i < steps.size(); i += 2) {
    RunStep s = steps[i];
    if (i + 1 < steps.size()) {
      const RunStep& t = steps[i + 1];
      s.end_ns = t.end_ns;
      s.span_ns += t.span_ns;
      s.frames += t.frames;
      s.janky_frames += t.janky_frames;
      s.skipped_frames += t.skipped_frames;
      s.sf_frames += t.sf_frames;
      s.sf_intervals += t.sf_intervals;
      s.intervals_unknown = s.intervals_unknown || t.intervals_unknown;
      s.active_ns += t.active_ns;
      s.has_frames = s.has_frames || t.has_frames;
      s.has_sf = s.has_sf || t.has_sf;
      s.cpu_ticks += t.cpu_ticks;
      s.has_cpu = s.has_cpu || t.has_cpu;
    }
    merged.push_back(s);
  }
  steps = std::move(merged);
}

void save_step(StateWriter& w, const RunStep& s) {
  w.i64(s.end_ns).i64(s.span_ns).u64(s.frames).u64(s.janky_frames).u64(s.skipped_frames).u64(s.sf_frames);
  w.u64(s.active_ns).boolean(s.has_frames).boolean(s.has_sf);
  if (!s.intervals_unknown) w.tag("iv").u64(s.sf_intervals);  // absent from files written before
  if (s.has_cpu) w.tag("cpu").u64(s.cpu_ticks);                 // absent without a resource poll
}

RunStep load_step(StateReader& r) {
  RunStep s;
  s.end_ns = r.i64();
  s.span_ns = r.i64();
  s.frames = r.u64();
  s.janky_frames = r.u64();
  s.skipped_frames = r.u64();
  s.sf_frames = r.u64();
  s.active_ns = r.u64();
  s.has_frames = r.boolean();
  s.has_sf = r.boolean();
  if (r.peek("iv")) {
    r.expect("iv");
    s.sf_intervals = r.u64();
  } else {
    s.intervals_unknown = s.has_sf;
  }
  if (r.peek("cpu")) {
    r.expect("cpu");
    s.cpu_ticks = r.u64();
    s.has_cpu = true;
  }
  return s;
}

// The device's log is followed now (a device away cannot settle: it is given up on).
bool followed(const Store& store, const std::string& serial) {
  const auto it = store.devices().find(serial);
  return it != store.devices().end() && it->second->live.state == DeviceState::following;
}

// A gfxinfo round that began at or after `since_ns` has finished on the followed device.
bool settled(const RunDevice& d, const Store& store, std::int64_t since_ns) {
  return followed(store, d.serial) && store.devices().find(d.serial)->second->live.gfxinfo_round_begun_ns >= since_ns;
}

}  // namespace

std::string_view run_state_name(RunState state) {
  switch (state) {
    case RunState::starting: return "starting";
    case RunState::running: return "running";
    case RunState::stopping: return "stopping";
    case RunState::finished: return "finished";
  }
  return "unknown";
}

bool valid_run_id(std::string_view id) {
  return !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), id_char) && id != "." && id != "..";
}

std::string check_run_spec(const RunSpec& spec) {
  if (!spec.id.empty() && !valid_run_id(spec.id)) return std::string(kRunIdRule);
  if (spec.name.size() > 128 || !printable(spec.name)) return "name must be at most 128 printable bytes";
  if (!parsers::valid_package_name(spec.package)) return "package must be an Android package name";
  if (spec.serials.size() > kMaxDevicesPerRun) return "at most 1024 serials";
  for (const auto& s : spec.serials) {
    if (s.empty() || s.size() > 255 || !printable(s)) return "a serial must be 1 to 255 printable bytes";
  }
  if (spec.tags.size() > kMaxTags) return "at most 16 tags";
  for (const auto& [k, v] : spec.tags) {
    if (k.empty() || k.size() > 64 || !printable(k) || v.size() > 128 || !printable(v)) {
      return "tag keys must be 1 to 64 and values at most 128 printable bytes";
    }
  }
  return {};
}

RunBook::StartResult RunBook::start(RunSpec spec, std::int64_t now_ns, Store& store) {
  if (auto why = check_run_spec(spec); !why.empty()) return {nullptr, 400, why};
  if (!spec.id.empty() && find(spec.id) != nullptr) return {nullptr, 409, "a run with id " + spec.id + " exists"};
  const auto open = static_cast<std::size_t>(std::count_if(
      runs_.begin(), runs_.end(), [](const auto& e) { return e.second.state != RunState::finished; }));
  if (open >= options_.max_open) {
    return {nullptr, 429, "already " + std::to_string(open) + " open runs (runs.max_open)"};
  }
  if (spec.serials.empty()) {
    for (const auto& [serial, d] : store.devices()) {
      if (d->live.state == DeviceState::following) spec.serials.push_back(serial);
    }
    if (spec.serials.empty()) return {nullptr, 409, "no device is followed now; name the serials"};
  }
  std::sort(spec.serials.begin(), spec.serials.end());
  spec.serials.erase(std::unique(spec.serials.begin(), spec.serials.end()), spec.serials.end());
  for (const auto& [seq, r] : runs_) {
    if (r.state == RunState::finished || r.spec.package != spec.package) continue;
    for (const auto& s : spec.serials) {
      if (std::binary_search(r.spec.serials.begin(), r.spec.serials.end(), s)) {
        return {nullptr, 409, "run " + r.spec.id + " already measures " + spec.package + " on " + s};
      }
    }
  }
  if (spec.id.empty()) spec.id = make_id(now_ns);
  Run run;
  run.requested_ns = now_ns;
  run.step_ns = options_.step.count();
  for (const auto& s : spec.serials) {
    RunDevice d;
    d.serial = s;
    run.devices.push_back(std::move(d));
  }
  run.spec = std::move(spec);
  const std::uint64_t seq = next_seq_++;
  const Run& stored = runs_.emplace(seq, std::move(run)).first->second;
  ++counts_.started;
  repin(store);
  return {&stored, 201, {}};
}

bool RunBook::stop(const std::string& id, std::int64_t now_ns, int& status, std::string& error) {
  for (auto& [seq, r] : runs_) {
    if (r.spec.id != id) continue;
    if (r.stop_requested_ns != 0) {
      status = 409;
      error = "run " + id + " is already " + std::string(r.state == RunState::finished ? "finished" : "stopping");
      return false;
    }
    // A run stopped before its baseline: it starts and stops at the same
    // poll, so its counts are empty rather than unknown.
    r.stop_requested_ns = now_ns;
    if (r.state == RunState::running) r.state = RunState::stopping;
    status = 202;
    return true;
  }
  status = 404;
  error = "no run " + id;
  return false;
}

const Run* RunBook::find(const std::string& id) const {
  for (const auto& [seq, r] : runs_) {
    if (r.spec.id == id) return &r;
  }
  return nullptr;
}


bool RunBook::advance(std::int64_t now_ns, Store& store) {
  bool changed = false;
  for (auto& [seq, run] : runs_) {
    if (run.state == RunState::finished) continue;
    if (run.state == RunState::starting) {
      const bool waited = now_ns - run.requested_ns >= options_.min_settle.count();
      const bool timed_out = now_ns - run.requested_ns >= options_.settle_timeout.count();
      const std::int64_t requested = run.requested_ns;  // clang 14 cannot capture a structured binding
      const bool all = std::all_of(run.devices.begin(), run.devices.end(), [&](const RunDevice& d) {
        return !followed(store, d.serial) || settled(d, store, requested);
      });
      if (!(waited && (all || timed_out))) continue;
      take_baseline(run, now_ns, store);
      changed = true;
      if (run.stop_requested_ns == 0) continue;
      run.state = RunState::stopping;
    }
    const bool stopping = run.state == RunState::stopping;
    sample(run, now_ns, store);
    if (!stopping) continue;
    const bool waited = now_ns - run.stop_requested_ns >= options_.min_settle.count();
    const bool timed_out = now_ns - run.stop_requested_ns >= options_.settle_timeout.count();
    bool all = true;
    for (auto& d : run.devices) {
      if (!d.settled_stop) d.settled_stop = settled(d, store, run.stop_requested_ns);
      all = all && (d.settled_stop || !followed(store, d.serial));
    }
    if (waited && (all || timed_out)) {
      finish(run, now_ns, store);
      changed = true;
    }
  }
  if (changed) {
    repin(store);
    drop_old(now_ns);
  }
  return changed;
}

void RunBook::take_baseline(Run& run, std::int64_t now_ns, Store& store) {
  run.started_ns = now_ns;
  run.state = RunState::running;
  for (auto& d : run.devices) {
    d.settled_start = settled(d, store, run.requested_ns);
    d.open_step = {};
    d.step_began_ns = now_ns;
    const auto it = store.devices().find(d.serial);
    if (it == store.devices().end()) continue;  // unknown yet: its counters start at 0
    auto& dev = *it->second;
    d.last = snapshot_app(dev, run.spec.package);
    for (auto& [name, p] : dev.packages) {
      if (base_package(name) == run.spec.package) p.peaks = {};
    }
  }
}

void RunBook::sample(Run& run, std::int64_t now_ns, Store& store) {
  bool merged = false;
  for (auto& d : run.devices) {
    // A device removed after its grace period (or never seen) adds nothing,
    // but its steps still close with the others'.
    if (const auto found = store.devices().find(d.serial); found != store.devices().end()) {
      sample_device(run, d, *found->second, now_ns);
    }
    if (now_ns - d.step_began_ns >= run.step_ns || run.state == RunState::finished) {
      RunStep closed = d.open_step;
      closed.span_ns = now_ns - d.step_began_ns;
      closed.end_ns = now_ns;
      d.steps.push_back(closed);
      d.open_step = {};
      d.step_began_ns = now_ns;
      if (d.steps.size() > options_.max_steps) {
        merge_pairs(d.steps);
        merged = true;
      }
    }
  }
  // Every device closes its steps at the same samples, so they merge together.
  if (merged) run.step_ns *= 2;
}

void RunBook::sample_device(const Run& run, RunDevice& d, const DeviceMetrics& dev, std::int64_t now_ns) {
  if (const auto it = dev.live.info.find("model"); it != dev.live.info.end()) d.model = it->second;
  if (const auto it = dev.live.info.find("sdk"); it != dev.live.info.end()) {
    int sdk = 0;
    const auto& text = it->second;
    if (std::from_chars(text.data(), text.data() + text.size(), sdk).ec == std::errc{} && sdk > 0) d.sdk = sdk;
  }
  d.refresh_hz = dev.refresh_hz;
  AppCounters now = snapshot_app(dev, run.spec.package);
  AppCounters growth;
  d.restarts += add_growth(growth, d.last, now);
  add_growth(d.counted, AppCounters{}, growth);
  step_add(d.open_step, growth);
  d.last = std::move(now);
  for (const auto& [name, p] : dev.packages) {
    if (base_package(name) != run.spec.package) continue;
    d.max_skip_frames = std::max(d.max_skip_frames, p.peaks.skip_frames);
    d.max_frame_ns = std::max(d.max_frame_ns, p.peaks.frame_ns);
    if (const AppMemoryState* m = app_memory_of(p); m != nullptr && m->rss_bytes) {
      d.peak_rss_bytes = std::max(d.peak_rss_bytes, *m->rss_bytes);
    }
  }
  if (const AppVersion* v = app_version_of(dev, run.spec.package)) {
    if (d.versions.empty() || !(d.versions.back().version == *v)) d.versions.push_back({*v, now_ns});
  }
}

void RunBook::finish(Run& run, std::int64_t now_ns, Store& store) {
  run.state = RunState::finished;
  run.finished_ns = now_ns;
  sample(run, now_ns, store);
  ++counts_.finished;
}

void RunBook::repin(Store& store) const {
  for (const auto& [serial, d] : store.devices()) d->pinned_packages.clear();
  for (const auto& [seq, r] : runs_) {
    if (r.state == RunState::finished) continue;
    for (const auto& s : r.spec.serials) {
      if (const auto it = store.devices().find(s); it != store.devices().end()) {
        it->second->pinned_packages.insert(r.spec.package);
      }
    }
  }
}

void RunBook::drop_old(std::int64_t now_ns) {
  std::size_t finished = 0;
  for (const auto& [seq, r] : runs_) finished += r.state == RunState::finished ? 1 : 0;
  for (auto it = runs_.begin(); it != runs_.end();) {
    const Run& r = it->second;
    if (r.state != RunState::finished) {
      ++it;
      continue;
    }
    const char* reason = nullptr;
    if (now_ns - r.finished_ns > options_.max_age.count()) reason = "age";
    else if (finished > options_.max_kept) reason = "count";
    if (reason == nullptr) {
      ++it;
      continue;
    }
    ++counts_.dropped[reason];
    --finished;
    it = runs_.erase(it);
  }
}

std::string RunBook::make_id(std::int64_t now_ns) {
  std::string id = "r" + parsers::units::format_utc(now_ns, parsers::units::UtcFormat::compact);
  id += "-" + std::to_string(next_seq_);
  while (find(id) != nullptr) id += "x";
  return id;
}

std::string RunBook::save() const {
  StateWriter w;
  w.tag(kRunsMagic).u64(kRunsVersion).u64(next_seq_).u64(counts_.started).u64(counts_.finished);
  w.u64(counts_.dropped.size());
  for (const auto& [reason, n] : counts_.dropped) w.str(reason).u64(n);
  w.u64(runs_.size()).newline();
  for (const auto& [seq, r] : runs_) {
    w.tag("run").u64(seq).str(r.spec.id).str(r.spec.name).str(r.spec.package).u64(r.spec.tags.size());
    for (const auto& [k, v] : r.spec.tags) w.str(k).str(v);
    w.u64(static_cast<std::uint64_t>(r.state)).i64(r.requested_ns).i64(r.started_ns).i64(r.stop_requested_ns);
    w.i64(r.finished_ns).i64(r.step_ns).u64(r.devices.size()).newline();
    for (const auto& d : r.devices) {
      w.tag("run_device").str(d.serial).str(d.model).boolean(d.sdk.has_value()).i64(d.sdk.value_or(0));
      w.f64(d.refresh_hz).boolean(d.settled_start).boolean(d.settled_stop).u64(d.restarts);
      w.u64(d.max_skip_frames).i64(d.max_frame_ns);
      if (d.peak_rss_bytes > 0) w.tag("rss").u64(d.peak_rss_bytes);  // absent without a memory reading
      w.newline();
      d.last.save(w);
      w.newline();
      d.counted.save(w);
      w.newline().u64(d.versions.size());
      for (const auto& v : d.versions) w.str(v.version.name).boolean(v.version.code.has_value()).i64(v.version.code.value_or(0)).i64(v.at_ns);
      w.newline().u64(d.steps.size());
      for (const auto& step : d.steps) save_step(w, step);
      save_step(w, d.open_step);
      w.i64(d.step_began_ns).newline();
    }
  }
  w.tag("end").newline();
  return w.text();
}

bool RunBook::load(std::string_view text, std::string& error, Store& store) {
  StateReader r(text);
  std::map<std::uint64_t, Run> loaded;
  Counts counts;
  std::uint64_t next = 1;
  if (r.expect(kRunsMagic) && r.u64() != kRunsVersion) r.set_error("unknown runs file version");
  next = r.hash();
  counts.started = r.u64();
  counts.finished = r.u64();
  const std::uint64_t reasons = r.count(8);
  for (std::uint64_t i = 0; i < reasons && !r.fail(); ++i) {
    std::string reason = r.str();
    counts.dropped[reason] = r.u64();
  }
  const std::uint64_t n = r.count(100'000);
  for (std::uint64_t i = 0; i < n && !r.fail(); ++i) {
    r.expect("run");
    const std::uint64_t seq = r.hash();
    Run run;
    run.spec.id = r.str();
    run.spec.name = r.str();
    run.spec.package = r.str();
    const std::uint64_t tags = r.count(kMaxTags);
    for (std::uint64_t k = 0; k < tags && !r.fail(); ++k) {
      std::string key = r.str();
      run.spec.tags[key] = r.str();
    }
    const std::uint64_t state = r.u64();
    if (state > static_cast<std::uint64_t>(RunState::finished)) r.set_error("run state out of range");
    run.state = static_cast<RunState>(state);
    run.requested_ns = r.i64();
    run.started_ns = r.i64();
    run.stop_requested_ns = r.i64();
    run.finished_ns = r.i64();
    run.step_ns = r.i64();
    if (!r.fail() && run.step_ns <= 0) r.set_error("run step length out of range");
    const std::uint64_t devices = r.count(kMaxDevicesPerRun);
    for (std::uint64_t k = 0; k < devices && !r.fail(); ++k) {
      RunDevice d;
      r.expect("run_device");
      d.serial = r.str();
      d.model = r.str();
      const bool has_sdk = r.boolean();
      const std::int64_t sdk = r.i64();
      if (has_sdk && sdk > 0 && sdk < 1000) d.sdk = static_cast<int>(sdk);
      d.refresh_hz = r.f64();
      d.settled_start = r.boolean();
      d.settled_stop = r.boolean();
      d.restarts = r.u64();
      const std::uint64_t max_skip = r.u64();
      d.max_skip_frames = static_cast<std::uint32_t>(std::min<std::uint64_t>(max_skip, UINT32_MAX));
      d.max_frame_ns = r.i64();
      if (r.peek("rss")) {
        r.expect("rss");
        d.peak_rss_bytes = r.u64();
      }
      d.last.load(r);
      d.counted.load(r);
      const std::uint64_t versions = r.count(1024);
      for (std::uint64_t v = 0; v < versions && !r.fail(); ++v) {
        VersionSeen seen;
        seen.version.name = r.str();
        const bool has_code = r.boolean();
        const std::int64_t code = r.i64();
        if (has_code) seen.version.code = code;
        seen.at_ns = r.i64();
        d.versions.push_back(std::move(seen));
      }
      const std::uint64_t steps = r.count(options_.max_steps * 2 + 2);
      for (std::uint64_t s = 0; s < steps && !r.fail(); ++s) d.steps.push_back(load_step(r));
      d.open_step = load_step(r);
      d.step_began_ns = r.i64();
      run.spec.serials.push_back(d.serial);
      run.devices.push_back(std::move(d));
    }
    if (check_run_spec(run.spec) != "") r.set_error("run " + run.spec.id + " is not a valid run");
    if (!r.fail()) loaded.emplace(seq, std::move(run));
    next = std::max(next, seq + 1);
  }
  r.expect("end");
  if (!r.fail() && !r.at_end()) r.set_error("data after the end marker");
  if (r.fail()) {
    error = r.error();
    return false;
  }
  runs_ = std::move(loaded);
  counts_ = counts;
  next_seq_ = next;
  repin(store);
  return true;
}
}  // namespace jank::metrics
