#include "devsim/model.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "devsim/json.h"

namespace jank::devsim {
namespace {

constexpr std::int64_t kMs = 1'000'000;

std::string fmt(const char* f, auto... a) {
  char buf[1024];
  int n = std::snprintf(buf, sizeof buf, f, a...);
  return std::string(buf, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof buf) - 1)));
}

// init starts logd about two seconds into a boot, zygote a little later.
constexpr std::int64_t kLogdBootNs = 2'000'000'000;
constexpr std::int64_t kZygoteBootNs = 2'400'000'000;

// Index of the histogram bin HWUI puts a frame of `ms` milliseconds in.
std::size_t hist_index(std::int64_t ms) {
  if (ms < 5) return 0;
  if (ms <= 32) return static_cast<std::size_t>(ms - 5);
  if (ms < 53) return std::min<std::size_t>(28 + static_cast<std::size_t>((ms - 34 + 1) / 2), 35);
  if (ms < 150) return std::min<std::size_t>(36 + static_cast<std::size_t>((ms - 53) / 4), 56);
  return std::min<std::size_t>(57 + static_cast<std::size_t>((ms - 150) / 50), kHistBins - 1);
}

struct NoiseLine {
  LogId id;
  char prio;
  const char* tag;
  const char* msg;
};
constexpr NoiseLine kNoise[] = {
    {LogId::system, 'I', "ActivityTaskManager", "Displayed com.android.settings/.Settings: +412ms"},
    {LogId::main, 'D', "ConnectivityService", "NetworkAgentInfo [WIFI () - 100] validation passed"},
    {LogId::system, 'W', "BroadcastQueue", "Background execution not allowed: receiving Intent { act=android.intent.action.SCREEN_ON }"},
    {LogId::main, 'I', "Binder", "uid=1000(system) Binder:1234_5 transaction 3 set"},
    {LogId::main, 'D', "WifiStateMachine", "ConnectedState !CMD_RSSI_POLL rt=1234567/1234567 0 0 -58"},
    {LogId::main, 'V', "AudioFlinger", "setParameters(): io 13, keyvalue routing=2, calling pid 1234"},
    {LogId::system, 'I', "PowerManagerService", "Waking up from Dozing (uid=1000, reason=WAKE_REASON_POWER_BUTTON)..."},
    {LogId::main, 'E', "BatteryStatsService", "no controller energy info supplied for bluetooth"},
};

}  // namespace

std::array<std::uint32_t, kHistBins> histogram_labels() {
  std::array<std::uint32_t, kHistBins> l{};
  std::size_t i = 0;
  for (std::uint32_t v = 5; v <= 32; ++v) l[i++] = v;
  for (std::uint32_t v = 34; v <= 48; v += 2) l[i++] = v;
  for (std::uint32_t v = 53; v <= 133; v += 4) l[i++] = v;
  for (std::uint32_t v = 150; v <= 4950; v += 50) l[i++] = v;
  return l;
}

Device::Device(DeviceConfig cfg, const Clock& clock)
    : cfg_(std::move(cfg)),
      clock_(clock),
      mono_offset_(cfg_.initial_uptime_ns - clock.mono_ns()),
      wall_offset_(clock.wall_ns() - cfg_.initial_uptime_ns),
      sim_time_(cfg_.initial_uptime_ns),
      refresh_hz_(cfg_.refresh_hz),
      rng_(cfg_.seed),
      logs_(cfg_.log_buffer_bytes) {
  props_ = {
      {"ro.product.model", cfg_.model},
      {"ro.product.name", cfg_.product},
      {"ro.product.device", cfg_.device},
      {"ro.product.manufacturer", "JankSim"},
      {"ro.build.version.sdk", std::to_string(cfg_.sdk)},
      {"ro.build.version.release", cfg_.release},
      {"ro.build.type", cfg_.root_build ? "userdebug" : "user"},
      {"ro.debuggable", cfg_.root_build ? "1" : "0"},
      {"ro.secure", "1"},
      {"ro.serialno", cfg_.name},
      {"persist.sys.timezone", cfg_.tz_offset_s == 0 ? "UTC" : "Etc/Unknown"},
      {"sys.boot_completed", "1"},
      {"init.svc.zygote", "running"},
  };
  // Perfetto's tracing service is on by default from Android 11: the build
  // sets persist.traced.enable=1 (perfetto.rc starts traced only on it; on 10
  // only some vendors set it). docs/devsim.md, "Releases".
  if (cfg_.sdk >= 30) props_["persist.traced.enable"] = "1";
  std::uniform_int_distribution<std::int32_t> pid0(2000, 9000);
  zygote_pid_ = pid0(rng_) / 10;
  system_server_pid_ = zygote_pid_ + 300;
  next_pid_ = pid0(rng_);
  std::int32_t uid = 10100;
  for (auto& ac : cfg_.apps) {
    AppState a;
    a.cfg = ac;
    a.uid = uid++;
    a.version_name = ac.version_name;
    a.version_code = ac.version_code;
    // Installed a day before the simulation started.
    a.first_install_wall = a.last_update_wall = wall_of(sim_time_) - 86'400'000'000'000;
    a.windows.emplace_back().title = ac.package + "/" + ac.package + ".MainActivity";
    for (const auto& title : ac.extra_windows) a.windows.emplace_back().title = title;
    apps_.push_back(std::move(a));
  }
  next_noise_ = sim_time_ + exp_delay(cfg_.noise_lines_per_sec);
  last_log_mono_ = sim_time_;
  boot_props_ = props_;
  id_rng_.seed(cfg_.seed ^ 0x6a616e6b626f6f74ULL);
  game_rng_.seed(cfg_.seed ^ 0x67616d656672616dULL);
  ft_rng_.seed(cfg_.seed ^ 0x6672616d656c696eULL);
  boot_id_ = new_boot_id();
  logd_pid_ = std::uniform_int_distribution<std::int32_t>(150, 450)(id_rng_);
  logd_started_ns_ = std::min<std::int64_t>(sim_time_, kLogdBootNs);
  logs_.set_drop_observer([this](const LogEntry& e, DropReason why) { dropped(e, why); });
  logs_.set_squash_observer([this](const LogEntry& e, bool stored) {
    if (stored) {
      count_stored(e);
    } else {
      ++lines_squashed_;
      count_unheld(e.app, e.skipped, e.davey);
    }
  });
  init_thermal();
  init_battery();
  gpu_label_ = cfg_.gpu_label;
  battery_label_ = cfg_.battery_label;
  zygote_started_ns_ = std::min<std::int64_t>(sim_time_, kZygoteBootNs);
  for (auto& a : apps_) start_app(a);
  if (!apps_.empty()) foreground_ = 0;
  perfetto_.boot(sim_time_);
}

std::string Device::new_boot_id() {
  // A random (version 4) UUID, as the kernel makes one per boot.
  std::uniform_int_distribution<std::uint32_t> hex(0, 15);
  std::string id;
  for (int i = 0; i < 32; ++i) {
    std::uint32_t v = hex(id_rng_);
    if (i == 12) v = 4;
    if (i == 16) v = 8 | (v & 3);
    if (i == 8 || i == 12 || i == 16 || i == 20) id += '-';
    id += "0123456789abcdef"[v];
  }
  return id;
}

void Device::uncounted(Uncounted kind, LogId id, const Gone& g) {
  if (kind == Uncounted::pending) {
    reader_[static_cast<std::size_t>(id)].pending.emplace(g.index, g);
    return;
  }
  const bool lost = kind == Uncounted::lost;
  ++(lost ? reader_lost_lines_ : reader_unknown_lines_);
  if (g.app < 0 || static_cast<std::size_t>(g.app) >= apps_.size()) return;
  AppTruth& t = apps_[static_cast<std::size_t>(g.app)].truth;
  if (g.skipped > 0) {
    ++(lost ? t.reader_lost_skip_lines : t.reader_unknown_skip_lines);
    (lost ? t.reader_lost_skipped_frames : t.reader_unknown_skipped_frames) += g.skipped;
  }
  if (g.davey) ++(lost ? t.reader_lost_davey : t.reader_unknown_davey);
}

void Device::settle_pending(Uncounted kind) {
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    auto& pending = reader_[i].pending;
    for (const auto& [index, g] : pending) uncounted(kind, static_cast<LogId>(i), g);
    pending.clear();
  }
}

std::uint64_t Device::reader_pending_lines() const {
  std::uint64_t n = 0;
  for (const auto& r : reader_) n += r.pending.size();
  return n;
}

void Device::statistics_read() { settle_pending(Uncounted::lost); }

void Device::dropped(const LogEntry& e, DropReason why) {
  if (why == DropReason::wrap) {
    ++lines_pruned_;
    if (e.app >= 0 && e.skipped > 0) ++apps_[static_cast<std::size_t>(e.app)].truth.skip_lines_lost;
  }
  ReaderBuffer& r = reader_[static_cast<std::size_t>(e.id)];
  if (!r.seen) return;  // before first sight everything is history
  const Gone g{e.index, e.app, e.skipped, e.davey};
  if (e.index > r.read_upto) {
    // On its way to the host already: read if the host takes it.
    if (r.in_flight.contains(e.index)) {
      r.dropped_in_flight.emplace(e.index, g);
      return;
    }
    return uncounted(Uncounted::pending, e.id, g);
  }
  remember_gone(r, g);
}

// Read already; remembered in case the reader rolls back past it. A reader
// going back further than this many dropped entries is not modelled.
void Device::remember_gone(ReaderBuffer& r, const Gone& g) {
  if (r.gone.empty() || r.gone.back().index < g.index) {
    r.gone.push_back(g);
  } else {
    r.gone.insert(std::upper_bound(r.gone.begin(), r.gone.end(), g.index,
                                   [](std::uint64_t i, const Gone& x) { return i < x.index; }),
                  g);
  }
  if (r.gone.size() > (1u << 18)) r.gone.pop_front();
}

void Device::note_in_flight(std::uint64_t gen, LogId id, std::uint64_t index, std::uint64_t first_line_hash) {
  if (gen != logd_gen_) return;
  ReaderBuffer& r = reader_[static_cast<std::size_t>(id)];
  ++r.in_flight[index];
  r.sent_upto = std::max(r.sent_upto, index);
  if (first_line_hash == 0) return;
  if (r.sent_by_hash.insert_or_assign(first_line_hash, index).second) r.sent_hashes.push_back(first_line_hash);
  if (r.sent_hashes.size() > (1u << 16)) {
    r.sent_by_hash.erase(r.sent_hashes.front());
    r.sent_hashes.pop_front();
  }
}

void Device::note_undelivered(std::uint64_t gen, LogId id, std::uint64_t index) {
  if (gen != logd_gen_) {
    const auto o = orphans_.find({gen, static_cast<std::size_t>(id), index});
    if (o != orphans_.end() && --o->second.streams <= 0) {
      uncounted(Uncounted::unknown, id, o->second.gone);
      orphans_.erase(o);
    }
    return;
  }
  ReaderBuffer& r = reader_[static_cast<std::size_t>(id)];
  const auto it = r.in_flight.find(index);
  if (it == r.in_flight.end() || --it->second > 0) return;
  r.in_flight.erase(it);
  const auto d = r.dropped_in_flight.find(index);
  if (d == r.dropped_in_flight.end()) return;
  if (index > r.read_upto) {
    uncounted(Uncounted::pending, id, d->second);
  } else {
    remember_gone(r, d->second);
  }
  r.dropped_in_flight.erase(d);
}

void Device::reader_follow(LogMask mask) {
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    ReaderBuffer& r = reader_[i];
    if (!(mask & (LogMask{1} << i)) || r.seen) continue;
    // First sight: all this buffer ever held is history to the reader.
    r.seen = true;
    r.read_upto = r.floor = logs_.stats(static_cast<LogId>(i)).written;
    reader_history_lines_ += lines_ever_[i];
    for (auto& a : apps_) {
      const AppTruth::Written& w = a.truth.written_to[i];
      a.truth.reader_history_skip_lines += w.skip_lines;
      a.truth.reader_history_skipped_frames += w.skipped_frames;
      a.truth.reader_history_davey += w.davey;
    }
  }
}

void Device::note_read(std::uint64_t gen, LogId id, std::uint64_t index) {
  ReaderBuffer& r = reader_[static_cast<std::size_t>(id)];
  if (gen != logd_gen_) {
    // An old logd's index means nothing now; an orphan taken was read.
    orphans_.erase({gen, static_cast<std::size_t>(id), index});
    return;
  }
  if (const auto it = r.in_flight.find(index); it != r.in_flight.end() && --it->second == 0) r.in_flight.erase(it);
  if (!r.seen) return;
  r.read_upto = std::max(r.read_upto, index);
  // Entries dropped on their way that the host has now taken were read.
  read_through(r, r.dropped_in_flight);
}

void Device::read_through(ReaderBuffer& r, std::map<std::uint64_t, Gone>& undecided) {
  while (!undecided.empty() && undecided.begin()->first <= r.read_upto) {
    remember_gone(r, undecided.begin()->second);
    undecided.erase(undecided.begin());
  }
}

bool Device::reader_rollback(LogId id, std::uint64_t index) {
  advance();
  ReaderBuffer& r = reader_[static_cast<std::size_t>(id)];
  if (!r.seen) return false;
  index = std::max(index, r.floor);  // history stays history
  if (index >= r.read_upto) return true;
  // Read, then dropped, now wanted again: gone for good.
  while (!r.gone.empty() && r.gone.back().index > index) {
    uncounted(Uncounted::pending, id, r.gone.back());
    r.gone.pop_back();
  }
  r.read_upto = index;
  return true;
}

std::uint64_t Device::reader_index_of(LogId id, std::uint64_t index, std::uint64_t hash) const {
  const ReaderBuffer& r = reader_[static_cast<std::size_t>(id)];
  const auto it = r.sent_by_hash.find(hash);
  return hash != 0 && it != r.sent_by_hash.end() ? it->second : index;
}

void Device::reader_declared(LogId id, std::uint64_t index, std::uint64_t hash) {
  ReaderBuffer& r = reader_[static_cast<std::size_t>(id)];
  if (!r.seen) return;
  index = reader_index_of(id, index, hash);
  if (index <= r.read_upto) {
    reader_rollback(id, index);
    return;
  }
  advance();
  r.read_upto = std::max(r.read_upto, std::min(index, r.sent_upto));
  // What it got although the ring dropped it before the host acknowledged it.
  read_through(r, r.pending);
  read_through(r, r.dropped_in_flight);
}

bool Device::orphan(std::size_t id, ReaderBuffer& r, const Gone& g) {
  const auto it = r.in_flight.find(g.index);
  if (it == r.in_flight.end()) return false;
  orphans_[{logd_gen_, id, g.index}] = Orphan{g, it->second};
  return true;
}

void Device::logd_reset() {
  settle_pending(Uncounted::unknown);  // the old logd's statistics die with it
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    ReaderBuffer& r = reader_[i];
    if (r.seen) {
      // Unread entries die with logd's memory; no count of them survives.
      // Those still on their way are decided when the host takes them or not.
      for (const LogEntry& e : logs_.entries(static_cast<LogId>(i))) {
        const Gone g{e.index, e.app, e.skipped, e.davey};
        if (e.index > r.read_upto && !orphan(i, r, g)) uncounted(Uncounted::unknown, e.id, g);
      }
    }
    // A line logd held back dies with it: unknown to a reader that follows
    // this buffer, history (as if stored) to one that has not looked yet.
    if (const LogEntry* e = logs_.held_back(static_cast<LogId>(i))) {
      if (r.seen) {
        uncounted(Uncounted::unknown, e->id, Gone{0, e->app, e->skipped, e->davey});
      } else {
        count_stored(*e);
      }
    }
    for (const auto& [index, g] : r.dropped_in_flight) {
      if (index > r.read_upto && !orphan(i, r, g)) uncounted(Uncounted::unknown, static_cast<LogId>(i), g);
    }
    r.read_upto = r.floor = r.sent_upto = 0;
    r.sent_by_hash.clear();
    r.sent_hashes.clear();
    r.gone.clear();
    r.in_flight.clear();
    r.dropped_in_flight.clear();
  }
  logs_.reset();
  ++logd_gen_;
  last_header_ = {};
}

void Device::logd_restart() {
  advance();
  logd_reset();
  ++logd_restarts_;
  logd_started_ns_ = sim_time_;
  // init starts a new process: a new pid.
  next_pid_ += std::uniform_int_distribution<std::int32_t>(3, 60)(rng_);
  if (next_pid_ > 32000) next_pid_ = 3000;
  logd_pid_ = next_pid_;
}

void Device::reboot(std::int64_t clock_offset_ns, std::int64_t uptime_ns) {
  advance();
  // Everything dies silently: the old logd's ring goes with it.
  for (auto& a : apps_) a.pid = 0;
  logd_reset();
  ++reboots_;
  boot_id_ = new_boot_id();
  const std::int32_t old_logd = logd_pid_;
  do {
    logd_pid_ = std::uniform_int_distribution<std::int32_t>(150, 450)(id_rng_);
  } while (logd_pid_ == old_logd);
  mono_offset_ = uptime_ns - clock_.mono_ns();
  sim_time_ = now_mono();
  logd_started_ns_ = std::min<std::int64_t>(sim_time_, kLogdBootNs);
  zygote_started_ns_ = std::min<std::int64_t>(sim_time_, kZygoteBootNs);
  cpu_reboot();
  display_frames_.clear();  // SurfaceFlinger starts afresh, TimeStats off and empty
  ts_enabled_ = false;
  ts_stats_start_ = 0;
  ts_global_.clear();
  ts_layers_.clear();
  last_log_mono_ = sim_time_;
  wall_offset_ = clock_.wall_ns() + clock_offset_ns - sim_time_;
  glitch_ns_ = 0;
  // Only persistent properties survive.
  auto props = boot_props_;
  for (const auto& [k, v] : props_) {
    if (k.starts_with("persist.")) props[k] = v;
  }
  props_ = std::move(props);
  std::uniform_int_distribution<std::int32_t> pid0(2000, 9000);
  zygote_pid_ = pid0(rng_) / 10;
  system_server_pid_ = zygote_pid_ + 300;
  next_pid_ = pid0(rng_);
  next_noise_ = sim_time_ + exp_delay(cfg_.noise_lines_per_sec);
  for (auto& a : apps_) {
    a.forced_skip = 0;
    start_app(a);
  }
  perfetto_.reboot(sim_time_);
}

void Device::clock_step(std::int64_t ns) {
  advance();
  wall_offset_ += ns;
}

void Device::clock_glitch(std::int64_t ns) {
  advance();
  glitch_ns_ = ns;
}

std::vector<std::int32_t> Device::pids_of(std::string_view name) const {
  if (name == "init") return {1};
  if (name == "logd") return {logd_pid_};
  if (name == "zygote64" || name == "zygote") return {zygote_pid_};
  if (name == "system_server") return {system_server_pid_};
  if (name == "perfetto") return perfetto_.pids();
  if (name == "traced" && perfetto_.traced_pid()) return {perfetto_.traced_pid()};
  if (name == "traced_probes" && perfetto_.traced_probes_pid()) return {perfetto_.traced_probes_pid()};
  for (const auto& a : apps_) {
    if (a.cfg.package == name && a.pid != 0) return {a.pid};
  }
  return {};
}

bool Device::pid_in_use(std::int32_t pid) const {
  if (pid == 1 || pid == logd_pid_ || pid == zygote_pid_ || pid == system_server_pid_) return true;
  // An app's threads hold the ids after its pid.
  return std::any_of(apps_.begin(), apps_.end(),
                     [pid](const AppState& a) { return a.pid != 0 && pid >= a.pid && pid < a.pid + kTidSpan; });
}

std::optional<std::string> Device::cmdline_of(std::int32_t pid) const {
  using namespace std::string_literals;
  if (auto p = perfetto_.cmdline(pid)) return p;
  if (pid == 1) return "/system/bin/init\0second_stage\0"s;
  if (pid == logd_pid_) return "/system/bin/logd\0"s;
  if (pid == zygote_pid_) return "zygote64\0"s;
  if (pid == system_server_pid_) return "system_server\0"s;
  if (pid != 0 && pid == perfetto_.traced_pid()) return "/system/bin/traced\0"s;
  if (pid != 0 && pid == perfetto_.traced_probes_pid()) return "/system/bin/traced_probes\0"s;
  for (const auto& a : apps_) {
    if (a.pid == pid && pid != 0) return a.cfg.package + "\0"s;
  }
  return std::nullopt;
}

std::uint64_t Device::lines_written() const {
  std::uint64_t n = 0;
  for (auto v : lines_ever_) n += v;
  return n;
}

std::int64_t Device::interval_ns() const {
  return static_cast<std::int64_t>(std::llround(1e9 / refresh_hz_));
}

std::int64_t Device::exp_delay(double per_sec) {
  if (per_sec <= 0) return INT64_MAX / 4;
  std::exponential_distribution<double> d(per_sec);
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(d(rng_) * 1e9));
}

std::uint32_t Device::sample_skip(const AppConfig& c, double jank_factor) {
  double total = 0;
  for (const auto& b : c.bands) total += b.weight;
  if (c.bands.empty() || total <= 0) return 1;
  double r = std::uniform_real_distribution<double>(0, total)(rng_);
  const SkipBand* pick = &c.bands.back();
  for (const auto& b : c.bands) {
    if (r < b.weight) {
      pick = &b;
      break;
    }
    r -= b.weight;
  }
  const std::uint32_t n = std::uniform_int_distribution<std::uint32_t>(pick->lo, std::max(pick->lo, pick->hi))(rng_);
  if (jank_factor == 1) return n;
  // A build that janks more stalls longer too (the same draws: factor 1 is unchanged).
  return static_cast<std::uint32_t>(std::clamp(std::lround(n * jank_factor), 1L, 100'000L));
}

void Device::log_at(std::int64_t mono, LogId id, char prio, std::int32_t pid, std::int32_t tid,
                    std::int32_t uid, std::string tag, std::string msg, std::int32_t app,
                    std::uint32_t skipped, bool davey) {
  // logd stamps on arrival: keep the buffer in time order.
  mono = std::max(mono, last_log_mono_);
  // Two entries of one thread and tag never arrive in the same microsecond:
  // readers take lines with one header for one multi-line entry.
  Header& h = last_header_[static_cast<std::size_t>(id)];
  if (wall_of(mono) / 1000 == h.wall_us && h.pid == pid && h.tid == tid && h.prio == prio && h.tag == tag) {
    mono = (h.wall_us + 1) * 1000 - wall_offset_;
  }
  // A glitch stamps this one line off the clock (a bad RTC read).
  const std::int64_t wall = wall_of(mono) + std::exchange(glitch_ns_, 0);
  h = Header{wall / 1000, pid, tid, prio, tag};
  last_log_mono_ = mono;
  LogEntry e;
  e.id = id;
  e.mono_ns = mono;
  e.wall_ns = wall;
  e.pid = pid;
  e.tid = tid;
  e.uid = uid;
  e.prio = prio;
  e.tag = std::move(tag);
  e.msg = std::move(msg);
  e.app = app;
  e.skipped = skipped;
  e.davey = davey;
  if (id != LogId::security && !loggable(prio, e.tag)) {
    if (cfg_.sdk >= 24 && !bypass_liblog_) {
      // liblog refuses it in the writing process: logd never sees it
      // (logger_write.c:286 @ 7.1, :342 @ 8.0; logger_write.cpp:320 @ 11).
      ++lines_refused_;
    } else {
      // logd refuses it: counted in Total, never held (LogBuffer.cpp:210-216 @ 8.0).
      logs_.count_unheld(id, e.size());
      ++lines_filtered_;
    }
    return count_unheld(app, skipped, davey);
  }
  if (cfg_.sdk >= 26 && cfg_.sdk <= 30 && id != LogId::kernel) {
    // logd 8.0–11 squashes runs of identical lines (LogBuffer.cpp:221-369 @ 8.0).
    LogEntry copy;
    copy.id = e.id;
    copy.app = e.app;
    copy.skipped = e.skipped;
    copy.davey = e.davey;
    if (logs_.log_squashing(std::move(e), summary_names(uid, pid, tid)) == LogdVerdict::stored) count_stored(copy);
    return;
  }
  count_stored(e);
  logs_.append(std::move(e));
}

void Device::count_stored(const LogEntry& e) {
  const auto b = static_cast<std::size_t>(e.id);
  ++lines_ever_[b];
  if (e.app < 0) return;
  AppTruth::Written& w = apps_[static_cast<std::size_t>(e.app)].truth.written_to[b];
  if (e.skipped > 0) {
    ++w.skip_lines;
    w.skipped_frames += e.skipped;
  }
  if (e.davey) ++w.davey;
}

void Device::count_unheld(std::int32_t app, std::uint32_t skipped, bool davey) {
  if (app < 0 || static_cast<std::size_t>(app) >= apps_.size()) return;
  AppTruth& t = apps_[static_cast<std::size_t>(app)].truth;
  if (skipped > 0) {
    ++t.unheld_skip_lines;
    t.unheld_skipped_frames += skipped;
  }
  if (davey) ++t.unheld_davey;
}

bool Device::loggable(char prio, std::string_view tag) const {
  if (cfg_.sdk < 23) return true;  // no log.tag check in liblog or logd before 6.0
  // liblog properties.c:91-264 @ android-8.0.0_r1: log.tag.TAG, then
  // persist.log.tag.TAG, then log.tag, then persist.log.tag; the first
  // value whose first letter is a level decides; none: everything.
  const std::string t(tag);
  for (const std::string& key : {"log.tag." + t, "persist.log.tag." + t, std::string("log.tag"),
                                std::string("persist.log.tag")}) {
    const auto it = props_.find(key);
    if (it == props_.end() || it->second.empty()) continue;
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(it->second[0])));
    static constexpr std::string_view kLevels = "VDIWEFAS";
    if (kLevels.find(c) == std::string_view::npos) continue;
    if (c == 'S') return false;
    return prio_rank(prio) >= prio_rank(c == 'A' ? 'F' : c);  // A(ssert) is fatal's level
  }
  return true;
}

std::string Device::summary_names(std::int32_t uid, std::int32_t pid, std::int32_t tid) const {
  // LogBufferElement::populateDroppedMessage @ android-8.0.0_r1
  // (LogBufferElement.cpp:114-205): the uid's name, the thread's comm (or
  // the process's command line when comm is its truncated tail), one of
  // them left out when it is the other or begins it.
  std::string name;
  if (uid == 0) name = "root";
  if (uid == 1000) name = "system";
  if (uid == 2000) name = "shell";
  const AppState* owner = nullptr;
  for (const auto& a : apps_) {
    if (a.uid == uid) name = a.cfg.package;
    if (a.pid == pid && pid != 0) owner = &a;
  }
  std::string comm;
  if (owner) {
    comm = tid == pid ? owner->cfg.package : tid == pid + 17 ? "RenderThread" : "Thread-" + std::to_string(tid - pid);
  } else if (pid == system_server_pid_) {
    comm = tid == pid ? "system_server" : "Binder:" + std::to_string(pid) + "_" + std::to_string((tid - pid) % 16);
  }
  if (!name.empty() && !comm.empty() && name[0] == comm[0] && comm.compare(1, name.size() - 1, name, 1) == 0) {
    if (comm.size() == name.size()) {
      comm.clear();
    } else {
      name.clear();
    }
  }
  std::string s = "uid=" + std::to_string(uid);
  if (!name.empty()) s += "(" + name + ")";
  if (!comm.empty()) s += " " + comm;
  return s;
}

void Device::log(LogId id, char prio, std::int32_t pid, std::int32_t tid, std::int32_t uid,
                 std::string tag, std::string msg) {
  advance();
  log_at(now_mono(), id, prio, pid, tid, uid, std::move(tag), std::move(msg));
}

void Device::log_to_logd(LogId id, char prio, std::int32_t pid, std::int32_t tid, std::int32_t uid,
                         std::string tag, std::string msg) {
  advance();
  bypass_liblog_ = true;
  log_at(now_mono(), id, prio, pid, tid, uid, std::move(tag), std::move(msg));
  bypass_liblog_ = false;
}

bool Device::repeat_line(std::string_view pkg, std::size_t lines, std::string message) {
  advance();
  for (auto& a : apps_) {
    if (a.cfg.package != pkg || a.pid == 0) continue;
    for (std::size_t i = 0; i < lines; ++i) {
      log_at(sim_time_ + static_cast<std::int64_t>(i) * kMs, LogId::main, 'W', a.pid, a.pid + 17, a.uid,
             "OpenGLRenderer", message);
    }
    return true;
  }
  return false;
}

namespace {

// HWUI reads debug.hwui.profile when a window's renderer starts ("true" or
// "visual_bars" print tables); 4.x/5.x size their buffer by
// debug.hwui.profile.maxframes (128 by default; 5.x clamps it to 1-4096).
void start_profile(AppState& a, int sdk, const std::optional<std::string>& prop,
                   const std::optional<std::string>& maxframes) {
  a.profiling = a.cfg.hwui_profile || sdk <= 22 || (prop && (*prop == "true" || *prop == "visual_bars"));
  long slots = 128;
  if (maxframes) slots = std::clamp(std::strtol(maxframes->c_str(), nullptr, 10), 1L, 4096L);
  for (std::size_t k = 0; k < a.windows.size(); ++k) {
    SimWindow& w = a.windows[k];
    w.view_root = a.view_root + static_cast<std::uint32_t>(k) * 0x2f1u;
    w.gfx = a.gfx;  // a new process: counters from zero, since its start
    w.recent.clear();
    w.profile_logged = 0;
    w.slots.assign(a.profiling && sdk <= 22 ? static_cast<std::size_t>(slots) : 0, std::nullopt);
    w.slot = 0;
  }
}

// A frame the window drew: into its framestats ring and, when profiled, its
// profile buffer. A profiled frame pushed out unprinted is lost.
void window_frame(AppState& a, SimWindow& w, const FrameRecord& f, int sdk) {
  if (a.profiling) ++w.profile.frames;
  w.recent.push_back(f);
  if (w.recent.size() > 120) {
    if (a.profiling && sdk >= 23 && w.recent.front().intended > w.profile_logged) ++w.profile.lost;
    w.recent.pop_front();
  }
  if (w.slots.empty()) return;
  auto& slot = w.slots[w.slot];
  if (slot) ++w.profile.lost;
  slot = f;
  w.slot = (w.slot + 1) % w.slots.size();
}

}  // namespace

void Device::start_app(AppState& a, std::int32_t pid) {
  const std::int64_t t = sim_time_;
  next_pid_ += std::uniform_int_distribution<std::int32_t>(3, 60)(rng_);
  if (next_pid_ > 32000) next_pid_ = 3000;
  a.pid = pid > 0 ? pid : next_pid_;
  next_pid_ = std::max(next_pid_, a.pid + kTidSpan);  // its threads' ids
  a.truth.gfx_dumped_before += a.truth.gfx_last_dumped;  // a new process: new gfxinfo counters
  a.truth.gfx_last_dumped = 0;
  a.truth.gfx_janky_dumped_before += std::exchange(a.truth.gfx_janky_last_dumped, 0);
  // Choreographer reads the limit once per process (class init).
  a.threshold = 30;
  if (auto v = getprop("debug.choreographer.skipwarning")) {
    char* end = nullptr;
    long x = std::strtol(v->c_str(), &end, 10);
    if (end != v->c_str() && *end == '\0') a.threshold = static_cast<std::int32_t>(x);
  }
  a.restart_at = -1;
  a.stall_began.reset();
  a.next_frame = t + interval_ns();
  a.next_crash = a.cfg.crash_per_min > 0 ? t + exp_delay(a.cfg.crash_per_min / 60.0) : -1;
  a.gfx = GfxCounters{};
  a.gfx.since_mono_ns = t;
  graphicsstats_start(a, t);
  a.recent.clear();
  a.view_root = static_cast<std::uint32_t>(rng_());
  drop_profile_buffers(a);  // a reboot ends processes without kill_app
  start_profile(a, cfg_.sdk, getprop("debug.hwui.profile"), getprop("debug.hwui.profile.maxframes"));
  ++a.truth.starts;
  new_layers(a);
  a.next_game = t + interval_ns();
  // One binder thread per app, so that simultaneous starts have distinct headers.
  const auto binder = static_cast<std::int32_t>(&a - apps_.data());
  log_at(t, LogId::system, 'I', system_server_pid_, system_server_pid_ + 40 + 2 * binder, 1000, "ActivityManager",
         fmt("Start proc %d:%s/u0a%d for top-activity {%s/%s.MainActivity}", a.pid,
             a.cfg.package.c_str(), a.uid - 10000, a.cfg.package.c_str(), a.cfg.package.c_str()));
  cpu_app_started(a);
}

void Device::kill_app(AppState& a, std::string_view reason, bool restart_soon) {
  if (a.pid == 0) return;
  log_at(sim_time_, LogId::system, 'I', system_server_pid_,
         system_server_pid_ + 41 + 2 * static_cast<std::int32_t>(&a - apps_.data()), 1000,
         "ActivityManager",
         fmt("Process %s (pid %d) has died: %.*s", a.cfg.package.c_str(), a.pid,
             static_cast<int>(reason.size()), reason.data()));
  cpu_app_ended(a);
  graphicsstats_save(a, sim_time_);
  a.pid = 0;
  drop_profile_buffers(a);
  a.restart_at = restart_soon ? sim_time_ + 800 * kMs : -1;
  // The process's surfaces go with it.
  a.window_layer = {};
  a.game_layer = {};
}

void Device::new_layers(AppState& a) {
  // A task, its ActivityRecord and window container, then the buffer
  // layer; a game adds the SurfaceView container and its BLAST child.
  next_layer_id_ += 4;
  a.window_layer = {};
  a.window_layer.id = next_layer_id_;
  a.game_layer = {};
  if (a.cfg.game_fps > 0) {
    next_layer_id_ += 2;
    a.game_layer.id = next_layer_id_;
  }
  // A new instance: nothing is judged across it.
  for (LayerTruth* t : {&a.window_truth, &a.game_truth}) {
    t->last_present = 0;
    t->recent.clear();
  }
}

namespace {

// The frame time `ft` judged as a perfect reader of the layer's presents
// would: PerfDog's Jank/BigJank (over twice the mean of the previous three,
// and over two, or three, frames of a 24 fps film) and the refresh-aware
// jank (two or more periods beyond the expected count).
void judge(LayerTruth& t, std::int64_t ft, std::int64_t period_ns) {
  // Android vitals: rendered in more than 16 ms (a frame on time shows one
  // period of gap), frozen over 700 ms; slow at the panel's rate: a vsync
  // missed beyond the layer's cadence (below).
  if (ft - period_ns > 16 * kMs) ++t.slow;
  if (ft > 700 * kMs) ++t.frozen;
  const double f = static_cast<double>(ft);
  double mean = 0;
  for (const std::int64_t r : t.recent) mean += static_cast<double>(r);
  if (!t.recent.empty()) mean /= static_cast<double>(t.recent.size());
  if (t.recent.size() == 3 && f > 2 * mean && f > 2e9 / 24) {
    ++t.jank;
    t.jank_ns += ft;
    if (f > 3e9 / 24) ++t.big_jank;
  }
  const double period = static_cast<double>(period_ns);
  const double expected = t.recent.empty() ? 1 : std::max(1.0, std::round(mean / period));
  if (std::round(f / period) >= expected + 2) ++t.refresh_jank;
  if (std::round(f / period) >= expected + 1) ++t.slow_refresh;
  t.active_ns += ft;
  t.recent.push_back(ft);
  if (t.recent.size() > 3) t.recent.pop_front();
}

// Adds [begin, end] to the app's active time: the union of its layers'
// spans, each instant once (spans older than a minute are forgotten).
void add_active(AppState& a, std::int64_t begin, std::int64_t end) {
  std::int64_t b = begin, e = end, covered = 0;
  auto it = a.active_spans.upper_bound(b);
  if (it != a.active_spans.begin() && std::prev(it)->second >= b) --it;
  while (it != a.active_spans.end() && it->first <= e) {
    covered += std::max<std::int64_t>(0, std::min(end, it->second) - std::max(begin, it->first));
    b = std::min(b, it->first);
    e = std::max(e, it->second);
    it = a.active_spans.erase(it);
  }
  a.active_spans.emplace(b, e);
  a.active_ns += (end - begin) - covered;
  while (a.active_spans.size() > 1 && a.active_spans.begin()->second < end - 60'000'000'000) {
    a.active_spans.erase(a.active_spans.begin());
  }
}

// An app that drew nothing for a while (dark screen, static screen, a pause)
// draws again from `now`.
void draw_from(AppState& a, std::int64_t now) {
  // A stall pending meanwhile ends as long as it began.
  if (a.stall_began) *a.stall_began += std::max<std::int64_t>(0, now - a.next_frame);
  a.next_frame = std::max(a.next_frame, now);
  a.next_game = std::max(a.next_game, now);
}

// Profiled frames of the window still waiting in its buffer for a dump.
std::uint64_t profile_pending(const AppState& a, const SimWindow& w, int sdk) {
  if (!a.profiling) return 0;
  std::uint64_t n = 0;
  if (sdk >= 23) {
    for (const auto& f : w.recent) n += f.intended > w.profile_logged ? 1 : 0;
  }
  for (const auto& slot : w.slots) n += slot ? 1 : 0;
  return n;
}

// Hundredths of a millisecond as milliseconds (c / 100 is the double nearest
// to the decimal "c.cc").
double centi_ms(std::uint64_t c) { return static_cast<double>(c) / 100; }

// "windows":[…]: each window's frames and janky frames (over one refresh
// interval) over the app's processes, and its profile rows.
Json windows_truth(const AppState& a) {
  Json out = Json::array();
  for (const SimWindow& w : a.windows) {
    out.push_back({{"title", w.title}, {"frames", w.frames}, {"janky", w.janky}, {"profile_rows", w.profile.rows}});
  }
  return out;
}

// "profile":{…}: the app's windows summed (frames = rows + lost + pending).
Json profile_truth(const AppState& a, int sdk) {
  ProfileTruth t;
  std::uint64_t pending = 0;
  for (const SimWindow& w : a.windows) {
    t.frames += w.profile.frames;
    t.rows += w.profile.rows;
    t.lost += w.profile.lost;
    for (std::size_t i = 0; i < t.centi_ms.size(); ++i) t.centi_ms[i] += w.profile.centi_ms[i];
    pending += profile_pending(a, w, sdk);
  }
  return {{"on", a.profiling},           {"frames", t.frames},
          {"rows", t.rows},               {"lost", t.lost},
          {"pending", pending},           {"draw_ms", centi_ms(t.centi_ms[0])},
          {"prepare_ms", centi_ms(t.centi_ms[1])}, {"process_ms", centi_ms(t.centi_ms[2])},
          {"execute_ms", centi_ms(t.centi_ms[3])}};
}

}  // namespace

void Device::drop_profile_buffers(AppState& a) {
  for (SimWindow& w : a.windows) {
    if (!a.profiling) continue;
    for (const auto& f : w.recent) w.profile.lost += cfg_.sdk >= 23 && f.intended > w.profile_logged ? 1 : 0;
    for (auto& slot : w.slots) w.profile.lost += std::exchange(slot, std::nullopt) ? 1 : 0;
    w.recent.clear();
    w.slot = 0;
  }
}

Device::Presented Device::queue_present(AppState& a, bool game, std::int64_t desired, std::int64_t ready,
                                        std::int64_t present, std::int64_t busy_since) {
  SimLayer& layer = game ? a.game_layer : a.window_layer;
  const std::int64_t iv = interval_ns();
  Presented out;
  // One buffer per vsync at most: a frame that is ready early waits its turn.
  if (!layer.rows.empty()) {
    present = std::max(present, layer.rows.back()[1] + iv);
    out.last_latch = layer.rows.back()[1] - iv;  // latched one period before its present
  }
  // SurfaceFlinger composes it; a missed composition presents a period late.
  SimDisplayFrame& df = display_frame(present);
  present += df.actual_present - df.expected_present;
  out.present = present;
  out.display = &df;
  layer.rows.push_back({desired, present, ready});
  if (layer.rows.size() > 127) layer.rows.pop_front();
  LayerTruth& t = game ? a.game_truth : a.window_truth;
  ++t.presented;
  if (t.last_present != 0) {
    const std::int64_t ft = present - t.last_present;
    // Over SurfaceFlinger's 1.2 s active window a gap is a frame only when
    // the app was busy through it (a freeze); otherwise the layer rested.
    const bool frozen = busy_since != 0 && busy_since <= t.last_present;
    if (ft > 1'200'000'000 && !frozen) {
      t.recent.clear();
    } else {
      if (ft > 1'200'000'000) ++t.freezes;
      judge(t, ft, iv);
      add_active(a, t.last_present, present);
    }
  }
  t.last_present = present;
  return out;
}

void Device::game_frame(std::size_t idx, std::int64_t t) {
  AppState& a = apps_[idx];
  const std::int64_t iv = interval_ns();
  // A throttled device takes proportionally more vsyncs per frame.
  const auto every =
      static_cast<std::int64_t>(std::ceil(std::max(1.0, std::round(refresh_hz_ / a.cfg.game_fps)) * throttle_at(t)));
  // The engine renders for most of its slot and presents at the slot's end.
  const std::int64_t busy_since = std::exchange(a.game_frozen_at, 0);
  const Presented p = queue_present(a, true, t, t + every * iv * 7 / 10, t + every * iv, busy_since);
  if (cfg_.sdk >= 31) {
    // The engine's buffers carry no vsync id: FrameTimeline lists them unjudged.
    SimSurfaceFrame f;
    f.app = idx;
    f.game = true;
    f.layer_id = a.game_layer.id;
    f.pid = a.pid;
    f.actual_start = t;
    f.actual_end = t + every * iv * 7 / 10;
    f.actual_present = p.present;
    f.last_latch = p.last_latch;
    p.display->surface_frames.push_back(f);
  }
  std::int64_t late = 0;
  if (std::uniform_real_distribution<double>(0, 1)(game_rng_) < a.cfg.hitch_prob) {
    late = std::uniform_int_distribution<std::int64_t>(3, 10)(game_rng_);
  }
  a.next_game = t + (every + late) * iv;
}

void Device::set_screen(Screen screen) {
  advance();
  const bool was_on = screen_ == Screen::on;
  screen_ = screen;
  if (!was_on && screen == Screen::on) {
    for (auto& a : apps_) draw_from(a, now_mono());
  }
  sync_cpu();
}

bool Device::set_idle(std::string_view pkg, bool idle) {
  advance();
  for (auto& a : apps_) {
    if (a.cfg.package != pkg) continue;
    if (a.idle && !idle) draw_from(a, now_mono());
    a.idle = idle;
    sync_cpu();
    return true;
  }
  return false;
}

void Device::frame(std::size_t idx, std::int64_t t) {
  AppState& a = apps_[idx];
  const std::int64_t iv = interval_ns();
  std::uniform_real_distribution<double> u(0, 1);
  if (!a.stall_began) {
    // A vsync arrives: decide whether the main thread is blocked.
    std::uint32_t n = a.forced_skip;
    a.forced_skip = 0;
    if (n == 0 && u(rng_) < std::min(1.0, a.cfg.stall_prob * a.jank_factor)) n = sample_skip(a.cfg, a.jank_factor);
    if (n > 0) {
      a.stall_began = t;
      a.next_frame = t + static_cast<std::int64_t>(n) * iv;
      return;
    }
  }
  // Choreographer divides the stall by the period it runs at when the frame
  // starts, which a refresh-rate change during the stall makes another count
  // than the one drawn at its start; the stall's length is the time it took.
  const std::int64_t intended = a.stall_began.value_or(t);
  const auto skipped = static_cast<std::uint32_t>((t - intended) / iv);
  a.stall_began.reset();
  // Work of the frame itself: mostly within budget, sometimes a bit over.
  // The jank factor makes frames over budget more frequent and longer.
  double work = u(rng_) < std::min(1.0, 0.06 * a.jank_factor) ? (1.0 + u(rng_) * 0.8 * a.jank_factor)
                                                               : (0.3 + u(rng_) * 0.6);
  const std::int64_t own = static_cast<std::int64_t>(work * throttle_at(t) * static_cast<double>(iv));
  const std::int64_t waited = render_wait(a, t, own);  // behind a gfxinfo dump on the RenderThread
  const std::int64_t duration = (t - intended) + own + waited;
  if (waited > 0 && duration > iv && duration - waited <= iv) ++a.observer_janky;
  const std::int64_t gpu = static_cast<std::int64_t>((0.1 + u(rng_) * 0.4) * static_cast<double>(iv));

  AppTruth& tr = a.truth;
  ++tr.frames_rendered;
  if (skipped > 0) {
    tr.skipped_frames += skipped;
    ++tr.skip_events;
    // Choreographer only logs when N reaches the limit read at process start.
    if (static_cast<std::int64_t>(skipped) >= a.threshold) {
      ++tr.skip_lines;
      tr.skipped_frames_logged += skipped;
      log_at(t, LogId::main, 'I', a.pid, a.pid, a.uid, "Choreographer",
             fmt("Skipped %u frames!  The application may be doing too much work on its main thread.", skipped),
             static_cast<std::int32_t>(idx), skipped);
    }
  }
  // The frame's vsync id (FrameTimeline token): Android 12 keeps the id of
  // the vsync the frame was meant for; from 13 a frame that starts a period
  // or more late takes the newest vsync's id and deadline (Choreographer's
  // FrameData.update), so its wait before it started is no missed deadline.
  const std::int64_t timeline = cfg_.sdk >= 33 ? t : intended;
  const std::int64_t vsync_id = token_of(timeline);
  if (duration >= 700 * kMs) {
    ++tr.davey;
    const std::int64_t done = intended + duration;
    log_at(t, LogId::main, 'I', a.pid, a.pid + 17, a.uid, "OpenGLRenderer",
           fmt("Davey! duration=%" PRId64 "ms; Flags=0, FrameTimelineVsyncId=%" PRId64
               ", IntendedVsync=%" PRId64 ", Vsync=%" PRId64 ", InputEventId=0, HandleInputStart=%" PRId64
               ", AnimationStart=%" PRId64 ", PerformTraversalsStart=%" PRId64 ", DrawStart=%" PRId64
               ", FrameDeadline=%" PRId64 ", FrameInterval=%" PRId64 ", FrameStartTime=%" PRId64
               ", SyncQueued=%" PRId64 ", SyncStart=%" PRId64 ", IssueDrawCommandsStart=%" PRId64
               ", SwapBuffers=%" PRId64 ", FrameCompleted=%" PRId64 ", DequeueBufferDuration=%" PRId64
               ", QueueBufferDuration=%" PRId64 ", GpuCompleted=%" PRId64 ", SwapBuffersCompleted=%" PRId64
               ", DisplayPresentTime=0, CommandSubmissionCompleted=%" PRId64 ", ",
               duration / kMs, vsync_id, intended, t, t + 300'000, t + 310'000, t + own / 3, t + own / 2,
               intended + iv, iv, t + 200'000, t + own * 6 / 10, t + own * 7 / 10, t + own * 8 / 10,
               t + own * 9 / 10, done, std::int64_t{20'000}, std::int64_t{250'000}, done,
               done - 100'000, t + own * 9 / 10),
           static_cast<std::int32_t>(idx), 0, true);
  }
  // The app's windows take turns (the process's counters hold them all).
  SimWindow& w = a.windows[(tr.frames_rendered - 1) % a.windows.size()];
  ++w.frames;
  if (duration > iv) ++w.janky;
  GfxCounters* const service = graphicsstats_counts(a, t);
  if (service != nullptr) {
    auto& [service_frames, service_janky] = a.gs_truth[a.gs_buffer->version_code];
    ++service_frames;
    if (duration > iv) ++service_janky;
  }
  for (GfxCounters* gp : {&a.gfx, &w.gfx, service}) {
    if (gp == nullptr) continue;
    GfxCounters& g = *gp;
    ++g.total;
    if (duration > iv) {
      ++g.janky;
    }
    if (duration > 16 * kMs + kMs / 2) ++g.janky_legacy;
    if (skipped > 0) {
      ++g.missed_vsync;
      ++g.slow_ui;
    }
    if (skipped == 0 && duration > iv) ++g.slow_draw;
    if (duration / kMs > 16) ++g.vitals_slow;
    if (duration / kMs >= 700) ++g.vitals_frozen;
    ++g.hist[hist_index(duration / kMs)];
    ++g.gpu_hist[std::min<std::size_t>(static_cast<std::size_t>(std::max<std::int64_t>(gpu / kMs, 1)) - 1, 24)];
  }
  a.recent.push_back(FrameRecord{static_cast<std::uint64_t>(vsync_id), intended, t, duration, iv, gpu});
  if (a.recent.size() > 120) a.recent.pop_front();
  window_frame(a, w, a.recent.back(), cfg_.sdk);
  // SurfaceFlinger latches the buffer at the vsync after it is ready and
  // presents it one vsync later.
  const std::int64_t ready = intended + duration;
  const std::int64_t natural = intended + ((duration + iv - 1) / iv + 1) * iv;
  SimSurfaceFrame f;
  f.app = idx;
  f.layer_id = a.window_layer.id;
  f.pid = a.pid;
  f.token = vsync_id;
  // SurfaceFlinger's prediction for the vsync: done within a period, shown the period after.
  f.expected_start = timeline;
  f.expected_end = timeline + iv;
  f.expected_present = timeline + 2 * iv;
  f.actual_start = t;
  f.actual_end = ready;
  const SimLayer& layer = a.window_layer;
  const bool must_wait = !layer.rows.empty() && natural < layer.rows.back()[1] + iv;
  if (must_wait && cfg_.drop_prob > 0 && std::uniform_real_distribution<double>(0, 1)(ft_rng_) < cfg_.drop_prob) {
    // Dropped at latch: a newer buffer replaces it before it is shown.
    f.dropped = true;
    if (cfg_.sdk >= 31) {
      display_frame(natural).surface_frames.push_back(f);
      count_ft_truth(a, ft_jank::kDropped);
      count_timestats(a, f);
    }
  } else {
    const Presented p = queue_present(a, false, intended, ready, natural, skipped > 0 ? intended : 0);
    f.actual_present = p.present;
    f.last_latch = p.last_latch;
    f.jank = classify(f, p.display->jank);
    if (cfg_.sdk >= 31) {
      p.display->surface_frames.push_back(f);
      count_ft_truth(a, f.jank);
      count_timestats(a, f);
    }
  }
  a.next_frame = t + iv;
}

void Device::noise(std::int64_t t) {
  const auto& n = kNoise[std::uniform_int_distribution<std::size_t>(0, std::size(kNoise) - 1)(rng_)];
  log_at(t, n.id, n.prio, system_server_pid_, system_server_pid_ + 12, 1000, n.tag, n.msg);
}

void Device::advance() {
  if (held_ > 0) return;
  const std::int64_t now = now_mono();
  // Perfetto runs on its own clock, paused or not: a pause freezes frames, not traced.
  perfetto_.advance(now);
  if (paused_) {
    sim_time_ = std::max(sim_time_, now);
    return;
  }
  update_thermal(now);
  update_battery(now);
  for (;;) {
    // Discrete events in time order: frames, crashes, restarts, noise.
    std::int64_t best = now + 1;
    int kind = -1;
    std::size_t which = 0;
    for (std::size_t i = 0; i < apps_.size(); ++i) {
      const AppState& a = apps_[i];
      if (a.pid != 0 && draws(a) && a.next_frame < best) best = a.next_frame, kind = 0, which = i;
      if (a.pid != 0 && draws(a) && a.cfg.game_fps > 0 && a.next_game < best) best = a.next_game, kind = 4, which = i;
      if (a.pid != 0 && a.next_crash >= 0 && a.next_crash < best) best = a.next_crash, kind = 1, which = i;
      if (a.pid == 0 && a.restart_at >= 0 && a.restart_at < best) best = a.restart_at, kind = 2, which = i;
    }
    if (next_noise_ < best) best = next_noise_, kind = 3;
    if (const std::int64_t exit = cpu_.next_exit(); exit < best) best = exit, kind = 5;
    if (kind < 0) break;
    sim_time_ = std::max(sim_time_, best);
    AppState& a = apps_[which];
    switch (kind) {
      case 0: frame(which, best); break;
      case 1: {
        ++a.truth.crashes;
        const std::int32_t pid = a.pid;
        log_at(best, LogId::crash, 'E', pid, pid, a.uid, "AndroidRuntime", "FATAL EXCEPTION: main");
        log_at(best, LogId::crash, 'E', pid, pid, a.uid, "AndroidRuntime",
               fmt("Process: %s, PID: %d", a.cfg.package.c_str(), pid));
        log_at(best, LogId::crash, 'E', pid, pid, a.uid, "AndroidRuntime",
               "java.lang.IllegalStateException: simulated crash");
        kill_app(a, "fg  TOP", true);
        break;
      }
      case 2: start_app(a); break;
      case 3:
        noise(best);
        next_noise_ = best + exp_delay(cfg_.noise_lines_per_sec);
        break;
      case 4: game_frame(which, best); break;
      case 5: sync_cpu(); break;  // a thread exits (devsim/resources.cc)
      default: break;
    }
  }
  sim_time_ = now;
}

void Device::set_paused(bool p) {
  advance();
  if (paused_ && !p) {
    // Resume: nothing happened while paused, so move pending events to now.
    const std::int64_t now = now_mono();
    for (auto& a : apps_) {
      draw_from(a, now);
      if (a.next_crash >= 0) a.next_crash = std::max(a.next_crash, now);
      if (a.restart_at >= 0) a.restart_at = std::max(a.restart_at, now);
    }
    next_noise_ = std::max(next_noise_, now);
    thermal_at_ = now;  // frozen while paused
    battery_.at = now;
  }
  paused_ = p;
  sync_cpu();
}

std::optional<std::string> Device::getprop(std::string_view key) const {
  auto it = props_.find(key);
  if (it == props_.end()) return std::nullopt;
  return it->second;
}

SetpropResult Device::setprop(std::string_view key, std::string_view value) {
  advance();
  auto fail = [&] {
    return SetpropResult{1, fmt("Failed to set property '%.*s' to '%.*s'.\nSee dmesg for error reason.\n",
                                static_cast<int>(key.size()), key.data(), static_cast<int>(value.size()),
                                value.data())};
  };
  if (key.starts_with("ctl.")) {
    // shell has no ctl.* rights; a root build (adb root) does.
    if (!cfg_.root_build) return fail();
    if (key == "ctl.restart" && value == "zygote") restart_zygote();
    return {};
  }
  if (key.starts_with("ro.") && props_.count(key)) return fail();
  const bool shell_ok = key.starts_with("debug.") || key.starts_with("persist.") ||
                        key.starts_with("log.") || key.starts_with("ro.");
  if (!shell_ok && !cfg_.root_build) return fail();
  props_[std::string(key)] = std::string(value);
  if (key == "persist.traced.enable") perfetto_.traced_property_set(value);
  return {};
}

void Device::restart_zygote() {
  advance();
  for (auto& a : apps_) kill_app(a, "fg  TOP", false);
  log_at(sim_time_, LogId::main, 'I', 1, 1, 0, "init", "Service 'zygote' (pid 1) received signal 9");
  zygote_pid_ = next_pid_ + 1;
  system_server_pid_ = zygote_pid_ + 120;
  zygote_started_ns_ = sim_time_;
  next_pid_ = system_server_pid_ + 10;
  log_at(sim_time_, LogId::main, 'I', zygote_pid_, zygote_pid_, 0, "Zygote", "System server process has been created");
  for (auto& a : apps_) start_app(a);
}

void Device::set_model(std::string model) {
  props_["ro.product.model"] = model;
  boot_props_["ro.product.model"] = model;
  cfg_.model = std::move(model);
}

bool Device::install_app(std::string_view pkg, std::string version_name, std::int64_t version_code,
                         double jank_factor) {
  advance();
  for (auto& a : apps_) {
    if (a.cfg.package != pkg) continue;
    // The package manager stops the old build's process; the new build's
    // starts (a launcher or test harness opens it again at once here).
    kill_app(a, "fg  TOP", false);
    a.version_name = std::move(version_name);
    a.version_code = version_code;
    a.jank_factor = jank_factor;
    a.last_update_wall = wall_now();
    start_app(a);
    return true;
  }
  return false;
}

bool Device::restart_app(std::string_view pkg, std::int32_t pid) {
  advance();
  for (auto& a : apps_) {
    if (a.cfg.package != pkg) continue;
    kill_app(a, "fg  TOP", false);
    start_app(a, pid);
    return true;
  }
  return false;
}

void Device::flood(std::size_t lines) {
  advance();
  // A microsecond apart, as a chatty process would.
  for (std::size_t i = 0; i < lines; ++i) noise(sim_time_ + static_cast<std::int64_t>(i) * 1000);
}

bool Device::crash_app(std::string_view pkg) {
  advance();
  for (auto& a : apps_) {
    if (a.cfg.package != pkg || a.pid == 0) continue;
    a.next_crash = sim_time_;
    advance();
    return true;
  }
  return false;
}

bool Device::force_skip(std::string_view pkg, std::uint32_t frames) {
  advance();
  for (auto& a : apps_) {
    if (a.cfg.package != pkg) continue;
    a.forced_skip = frames;
    return true;
  }
  return false;
}

// A freeze blocks the main thread for its whole length (Choreographer.java
// doFrame logs one skip when it runs again; FrameInfo keeps the intended
// vsync, so framestats and Davey show the whole stall) and the game loop
// (SurfaceView's producer queues no buffer, so FrameTracker adds no row).
bool Device::freeze(std::string_view pkg, double seconds) {
  advance();
  for (auto& a : apps_) {
    if (a.cfg.package != pkg) continue;
    const auto ns = static_cast<std::int64_t>(seconds * 1e9);
    a.forced_skip = static_cast<std::uint32_t>(ns / interval_ns());
    if (a.cfg.game_fps > 0) {
      // The loop was due at next_game and runs again once the freeze is over.
      // Busy since its last present: the frame it was working on never came.
      const std::int64_t now = now_mono();
      a.game_frozen_at = a.game_truth.last_present != 0 ? std::min(now, a.game_truth.last_present) : now;
      a.next_game = std::max(a.next_game, now + ns);
    }
    return true;
  }
  return false;
}

void Device::set_refresh_hz(double hz) {
  advance();
  if (hz >= 1 && hz <= 1000) refresh_hz_ = hz;
}

bool Device::set_foreground(std::optional<std::string_view> pkg) {
  if (!pkg) {
    foreground_.reset();
    return true;
  }
  for (std::size_t i = 0; i < apps_.size(); ++i) {
    if (apps_[i].cfg.package == *pkg) {
      foreground_ = i;
      return true;
    }
  }
  return false;
}

const AppState* Device::focused_app() const {
  if (!foreground_ || apps_[*foreground_].pid == 0) return nullptr;
  return &apps_[*foreground_];
}

const AppState* Device::app(std::string_view pkg) const {
  for (const auto& a : apps_) {
    if (a.cfg.package == pkg) return &a;
  }
  return nullptr;
}

Json Device::truth() const {
  Json d;
  d["name"] = cfg_.name;
  d["refresh_hz"] = fixed(refresh_hz_, 2);
  d["lines_written"] = lines_written();
  d["lines_lost"] = lines_lost();
  d["reader_lost_lines"] = reader_lost_lines_;
  d["reader_unknown_lines"] = reader_unknown_lines_;
  d["reader_pending_lines"] = reader_pending_lines();
  d["reader_history_lines"] = reader_history_lines_;
  d["boot_id"] = boot_id_;
  d["shell"] = {{"commands", shell_commands_}, {"streams", shell_streams_}, {"output_bytes", shell_output_bytes_}};
  d["reboots"] = reboots_;
  d["logd_restarts"] = logd_restarts_;
  d["logd_pid"] = logd_pid_;
  d["clock_offset_s"] = fixed(static_cast<double>(clock_offset_ns()) / 1e9, 3);
  d["screen"] = screen_ == Screen::on ? "on" : screen_ == Screen::doze ? "doze" : "off";
  d["lines_filtered"] = lines_filtered_;
  d["lines_squashed"] = lines_squashed_;
  d["lines_refused"] = lines_refused_;
  Json buffers = Json::object();
  for (std::size_t i = 0; i < kLogIdCount; ++i) {
    const auto id = static_cast<LogId>(i);
    const BufferStats& st = logs_.stats(id);
    buffers[std::string(log_id_name(id))] = {{"total", st.written},
                                             {"now", logs_.entries(id).size()},
                                             {"read_upto", reader_[i].read_upto},
                                             {"unheld", st.unheld},
                                             {"summaries", st.summaries},
                                             {"held_back", logs_.held_back(id) ? 1 : 0}};
  }
  d["buffers"] = std::move(buffers);
  Json apps = Json::array();
  for (std::size_t i = 0; i < apps_.size(); ++i) {
    const auto& a = apps_[i];
    const auto& t = a.truth;
    Json app;
    app["package"] = a.cfg.package;
    app["pid"] = a.pid;
    app["threshold"] = a.threshold;
    app["frames_rendered"] = t.frames_rendered;
    app["skipped_frames"] = t.skipped_frames;
    app["skip_events"] = t.skip_events;
    app["skip_lines"] = t.skip_lines;
    app["skipped_frames_logged"] = t.skipped_frames_logged;
    app["skip_lines_lost"] = t.skip_lines_lost;
    app["davey"] = t.davey;
    app["crashes"] = t.crashes;
    app["starts"] = t.starts;
    app["gfx_total_frames"] = a.gfx.total;
    app["gfx_janky_frames"] = a.gfx.janky;
    app["gfx_slow_frames"] = a.gfx.vitals_slow;
    app["gfx_frozen_frames"] = a.gfx.vitals_frozen;
    app["observer_janky_frames"] = a.observer_janky;
    {
      Json service = Json::array();
      for (const auto& [version, counts] : a.gs_truth) {
        service.push_back({{"version_code", version}, {"frames", counts.first}, {"janky_frames", counts.second}});
      }
      app["graphicsstats"] = std::move(service);
    }
    app["reader_lost_skip_lines"] = t.reader_lost_skip_lines;
    app["reader_lost_skipped_frames"] = t.reader_lost_skipped_frames;
    app["reader_lost_davey"] = t.reader_lost_davey;
    app["reader_unknown_skip_lines"] = t.reader_unknown_skip_lines;
    app["reader_unknown_skipped_frames"] = t.reader_unknown_skipped_frames;
    app["reader_unknown_davey"] = t.reader_unknown_davey;
    app["reader_history_skip_lines"] = t.reader_history_skip_lines;
    app["reader_history_skipped_frames"] = t.reader_history_skipped_frames;
    app["reader_history_davey"] = t.reader_history_davey;
    app["gfx_frames_dumped"] = t.gfx_dumped_before + t.gfx_last_dumped;
    app["gfx_janky_frames_dumped"] = t.gfx_janky_dumped_before + t.gfx_janky_last_dumped;
    app["unheld_skip_lines"] = t.unheld_skip_lines;
    app["unheld_skipped_frames"] = t.unheld_skipped_frames;
    app["unheld_davey"] = t.unheld_davey;
    {
      // Held back by logd now (the last of a run of identical lines): no
      // reader sees it until a different line comes to its buffer.
      std::uint64_t lines = 0, frames = 0, davey = 0;
      for (std::size_t b = 0; b < kLogIdCount; ++b) {
        const LogEntry* e = logs_.held_back(static_cast<LogId>(b));
        if (e == nullptr || e->app != static_cast<std::int32_t>(i)) continue;
        if (e->skipped > 0) ++lines, frames += e->skipped;
        if (e->davey) ++davey;
      }
      app["held_back_skip_lines"] = lines;
      app["held_back_skipped_frames"] = frames;
      app["held_back_davey"] = davey;
    }
    // Any bytes a test gave the version name: one character per byte.
    app["version_name"] = latin1_to_utf8(a.version_name);
    app["version_code"] = a.version_code;
    app["jank_factor"] = fixed(a.jank_factor, 3);
    app["profile"] = profile_truth(a, cfg_.sdk);
    app["windows"] = windows_truth(a);
    // FrameTimeline (Android 12+): the app window's frames with a vsync id,
    // each once with SurfaceFlinger's verdict, counted when the frame is made
    // (so a reader sees them all once their presents are past).
    {
      static constexpr const char* kLabels[] = {"none",          "display_hal",     "sf_cpu_deadline_missed",
                                                "sf_gpu_deadline_missed", "app_deadline_missed", "prediction_error",
                                                "sf_scheduling", "buffer_stuffing", "unknown",
                                                "sf_stuffing",   "dropped"};
      const FrameTimelineTruth& ft = a.ft_truth;
      app["ft_frames"] = ft.frames;
      app["ft_janky"] = ft.janky;
      Json by_jank = Json::object();
      for (std::size_t l = 0; l < ft.by_label.size(); ++l) by_jank[kLabels[l]] = ft.by_label[l];
      app["ft_by_jank"] = std::move(by_jank);
    }
    app["active_ns"] = a.active_ns;
    // What a perfect reader of each layer's presents counts (stable names:
    // without the unique suffix).
    Json layers = Json::array();
    for (const bool game : {false, true}) {
      if (game && a.cfg.game_fps <= 0) continue;
      const LayerTruth& lt = game ? a.game_truth : a.window_truth;
      std::string name = layer_name(a, game);
      name.erase(name.rfind('#'));
      layers.push_back({{"layer", name},
                        {"presented", lt.presented},
                        {"jank", lt.jank},
                        {"big_jank", lt.big_jank},
                        {"refresh_jank", lt.refresh_jank},
                        {"active_ns", lt.active_ns},
                        {"jank_ns", lt.jank_ns},
                        {"freezes", lt.freezes},
                        {"slow", lt.slow},
                        {"slow_refresh", lt.slow_refresh},
                        {"frozen", lt.frozen}});
    }
    app["layers"] = std::move(layers);
    app["proc"] = proc_truth(i);
    apps.push_back(std::move(app));
  }
  d["apps"] = std::move(apps);
  d["thermal"] = thermal_truth();
  d["battery"] = battery_truth();
  d["resources"] = resources_truth();
  d["perfetto"] = perfetto_.truth();
  d["observer"] = observer_truth();
  return d;
}

std::string Device::truth_json() const { return dump(truth()); }

std::vector<Device::Process> Device::processes() const {
  std::vector<Process> out = {{"root", 1, 0, "init"},
                              {"logd", logd_pid_, 1, "logd"},
                              {"root", zygote_pid_, 1, "zygote64"},
                              {"system", system_server_pid_, zygote_pid_, "system_server"}};
  for (const auto& a : apps_) {
    if (a.pid != 0) out.push_back({fmt("u0_a%d", a.uid - 10000), a.pid, zygote_pid_, a.cfg.package});
  }
  if (perfetto_.traced_pid()) {
    out.push_back({"nobody", perfetto_.traced_pid(), 1, "traced"});
    out.push_back({"nobody", perfetto_.traced_probes_pid(), 1, "traced_probes"});
  }
  // A background perfetto is a daemon of the shell user: init is its parent.
  for (const std::int32_t pid : perfetto_.pids()) out.push_back({"shell", pid, 1, "perfetto"});
  return out;
}

std::string Device::ps(const std::vector<std::string>& args, int* exit) const {
  *exit = 0;
  const std::vector<Process> all = processes();
  if (cfg_.sdk >= 26) {
    // toybox ps (8.0 on): -A lists every process; without it only the
    // caller's session, here the ps itself.
    std::string s = "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME                       \n";
    auto row = [&](const std::string& user, std::int32_t pid, std::int32_t ppid, const std::string& name, char state) {
      s += fmt("%-10s %7d %5d %7d %6d %-16s %4d %c %s\n", user.c_str(), pid, ppid, 12345678, 98765,
               state == 'R' ? "0" : "do_epoll_wait", 0, state, name.c_str());
    };
    const bool every = std::find(args.begin(), args.end(), "-A") != args.end();
    if (!every) {
      row("shell", next_pid_, system_server_pid_ + 1, "ps", 'R');
      return s;
    }
    for (const auto& p : all) row(p.user, p.pid, p.ppid, p.name, 'S');
    return s;
  }
  // toolbox ps (until 7.1). An argument that is not a number or a flag it
  // knows: a name-prefix filter until 6.0 (core toolbox/ps.c ps_main,
  // namefilter), a pid since 7.0, where the name filter was removed:
  // "bad pid '-A'" on stdout, status 1 (toolbox/ps.c:295-303 @ android-7.0.0_r1).
  std::string filter;
  if (!args.empty()) {
    if (cfg_.sdk >= 24) {
      *exit = 1;
      return "bad pid '" + args.front() + "'\n";
    }
    filter = args.front();
  }
  // 6.0 prints the wait channel's name and a 64-bit PC; 5.x both as 8 hex digits.
  const bool wide = cfg_.sdk >= 23;
  std::string s = wide ? fmt("USER      PID   PPID  VSIZE  RSS   WCHAN      %10s  NAME\n", "PC")
                       : std::string("USER     PID   PPID  VSIZE  RSS     WCHAN    PC        NAME\n");
  for (const auto& p : all) {
    if (p.name.compare(0, filter.size(), filter) != 0) continue;
    s += fmt("%-9s %-5d %-5d %-6d %-5d", p.user.c_str(), p.pid, p.ppid, 12056, 3948);
    s += wide ? fmt(" %10.10s %010x S %s\n", "SyS_epoll_", 0u, p.name.c_str())
              : fmt(" %08x %08x S %s\n", 0u, 0u, p.name.c_str());
  }
  return s;
}

std::string Device::dumpsys_display() const {
  const double hz = refresh_hz_;
  const std::int64_t period = interval_ns();
  return fmt(
      "DISPLAY MANAGER (dumpsys display)\n"
      "  mOnlyCode=false\n  mSafeMode=false\n\nDisplay Devices: size=1\n"
      "  DisplayDeviceInfo{\"Built-in Screen\": uniqueId=\"local:0\", 1080 x 2400, modeId 1, defaultModeId 1, "
      "supportedModes [{id=1, width=1080, height=2400, fps=%.6f, alternativeRefreshRates=[]}], density 420, "
      "appVsyncOff 1000000, presDeadline %" PRId64 ", type INTERNAL, state ON}\n"
      "\nLogical Displays: size=1\n  Display 0:\n"
      "    mBaseDisplayInfo=DisplayInfo{\"Built-in Screen\", displayId 0, real 1080 x 2400, mode 1, defaultMode 1, "
      "modes [{id=1, width=1080, height=2400, fps=%.6f, alternativeRefreshRates=[]}], renderFrameRate %.6f, "
      "state ON, type INTERNAL}\n",
      hz, period, hz, hz);
}

std::string Device::dumpsys_surfaceflinger() const {
  const std::int64_t period = interval_ns();
  return fmt(
      "Build configuration: [sf PRESENT_TIME_OFFSET=0 FORCE_HWC_FOR_RBG_TO_YUV=1 MAX_VIRT_DISPLAY_DIM=0 "
      "RUNNING_WITHOUT_SYNC_FRAMEWORK=0 NUM_FRAMEBUFFER_SURFACE_BUFFERS=3]\n\n"
      "Display identification data:\nDisplay 0 (HWC display 0): no identification data\n\n"
      "Scheduler:\n  app phase:      1000000 ns\t         SF phase:      1000000 ns\n"
      "      present offset:         0 ns\t     VSYNC period: %" PRId64 " ns\n\n"
      "Display 0 (active) HWC layers:\n"
      "  refresh-rate              : %.2f Hz\n",
      period, refresh_hz_);
}

}  // namespace jank::devsim
