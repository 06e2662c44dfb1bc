#include "devsim/simulator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <tuple>

#include "devsim/json.h"
#include "devsim/text.h"

namespace jank::devsim {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// {"devices":[…]}: a reply with one document per device.
std::string devices_reply(Json devices) {
  Json doc;
  doc["devices"] = std::move(devices);
  return dump(doc);
}

// Runs fn on every device's strand in turn, then done(results) on the last one.
struct Chain : std::enable_shared_from_this<Chain> {
  std::vector<std::shared_ptr<SimDevice>> devs;
  std::function<std::string(SimDevice&)> fn;
  std::function<void(std::vector<std::string>)> done;
  std::vector<std::string> results;
  void step(std::size_t i) {
    if (i == devs.size()) return done(std::move(results));
    auto self = shared_from_this();
    asio::post(devs[i]->strand(), [self, i] {
      self->results.push_back(self->fn(*self->devs[i]));
      self->step(i + 1);
    });
  }
};

void for_devices(std::vector<std::shared_ptr<SimDevice>> devs, std::function<std::string(SimDevice&)> fn,
                 std::function<void(std::vector<std::string>)> done) {
  auto c = std::make_shared<Chain>();
  c->devs = std::move(devs);
  c->fn = std::move(fn);
  c->done = std::move(done);
  c->step(0);
}

using text::parse_number;

// "C3A9FF" as the bytes it spells; nullopt unless it is pairs of hex digits.
std::optional<std::string> hex_bytes(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = text::hex_value(hex[i]), lo = text::hex_value(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

class ControlSession : public std::enable_shared_from_this<ControlSession> {
 public:
  ControlSession(Simulator& sim, tcp::socket s) : sim_(sim), sock_(std::move(s)) {}
  void start() { read(); }

 private:
  void read() {
    auto self = shared_from_this();
    asio::async_read_until(sock_, buf_, '\n', [this, self](boost::system::error_code ec, std::size_t n) {
      if (ec) return;
      std::string line(asio::buffers_begin(buf_.data()), asio::buffers_begin(buf_.data()) + static_cast<std::ptrdiff_t>(n));
      buf_.consume(n);
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
      if (line == "quit") return;
      auto ex = sock_.get_executor();
      sim_.command(line, [this, self, ex](std::string reply) {
        asio::post(ex, [this, self, r = std::move(reply)]() mutable {
          out_ = std::move(r) + "\n";
          asio::async_write(sock_, asio::buffer(out_), [this, self](boost::system::error_code e, std::size_t) {
            if (!e) read();
          });
        });
      });
    });
  }

  Simulator& sim_;
  tcp::socket sock_;
  asio::streambuf buf_;
  std::string out_;
};

}  // namespace

bool parse_bands(const std::string& text, std::vector<SkipBand>* out) {
  out->clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    SkipBand b;
    unsigned lo = 0, hi = 0;
    double w = 1;
    int n = std::sscanf(item.c_str(), "%u-%u:%lf", &lo, &hi, &w);
    if (n < 2) {
      n = std::sscanf(item.c_str(), "%u:%lf", &lo, &w);
      if (n < 1) return false;
      hi = lo;
    }
    if (lo < 1 || hi < lo || w < 0) return false;
    b.lo = lo;
    b.hi = hi;
    b.weight = w;
    out->push_back(b);
  }
  return !out->empty();
}

bool parse_thermal_episodes(const std::string& text, ThermalEpisodes* out) {
  double every = 0, length = 0;
  int status = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lf:%lf:%d%c", &every, &length, &status, &tail) != 3) return false;
  if (!(every > 0 && length > 0 && length < every && every <= 86400) || status < 0 || status > 6) return false;
  *out = {every, length, status};
  return true;
}

Simulator::Simulator(asio::io_context& io, SimOptions opts, const Clock& clock)
    : io_(io), opts_(std::move(opts)), clock_(clock), control_(asio::make_strand(io)) {}

Simulator::~Simulator() = default;

namespace {

// The release name getprop reports for an API level.
std::string release_of(int sdk) {
  static const char* const kBefore28[] = {"4.1", "4.2", "4.3", "4.4", "4.4W", "5.0", "5.1",
                                          "6.0", "7.0", "7.1", "8.0", "8.1"};
  if (sdk >= 16 && sdk <= 27) return kBefore28[sdk - 16];
  switch (sdk) {
    case 28: return "9";
    case 29: return "10";
    case 30: return "11";
    case 31: return "12";
    case 32: return "12";
    default: return sdk >= 33 ? std::to_string(sdk - 20) : std::to_string(sdk);
  }
}

}  // namespace

void Simulator::start() {
  for (int i = 0; i < opts_.devices; ++i) {
    DeviceConfig c;
    c.name = opts_.name_prefix + std::to_string(i);
    c.model = opts_.model_prefix + " " + std::to_string(i);
    c.product = "janksim";
    c.device = "janksim" + std::to_string(i % 10);
    c.refresh_hz = opts_.refresh_hz[static_cast<std::size_t>(i) % opts_.refresh_hz.size()];
    c.root_build = opts_.root;
    c.log_buffer_bytes = opts_.buffer_kib * 1024;
    c.noise_lines_per_sec = opts_.log_rate;
    c.tz_offset_s = opts_.tz_offset_min * 60;
    c.sf_miss_prob = opts_.sf_miss_prob;
    c.drop_prob = opts_.drop_prob;
    c.seed = opts_.seed * 1000003u + static_cast<std::uint64_t>(i);
    c.initial_uptime_ns = (3600 + 97LL * i) * 1'000'000'000LL;
    c.thermal_episodes = opts_.thermal_episodes;
    auto app = [&](const std::string& package) -> AppConfig& {
      AppConfig& a = c.apps.emplace_back();
      a.package = package;
      a.stall_prob = opts_.stall_prob;
      a.bands = opts_.bands;
      a.crash_per_min = opts_.crash_per_min;
      a.hwui_profile = opts_.hwui_profile;
      for (const auto& [pkg, title] : opts_.windows) {
        if (pkg == package) a.extra_windows.push_back(title);
      }
      return a;
    };
    for (const auto& p : opts_.packages) app(p);
    for (const auto& [package, fps] : opts_.games) {
      AppConfig& g = app(package);
      g.game_fps = fps;
      g.hitch_prob = opts_.hitch_prob;
    }
    c.sdk = opts_.sdk[static_cast<std::size_t>(i) % opts_.sdk.size()];
    const auto cycle = [i](const auto& list) { return list[static_cast<std::size_t>(i) % list.size()]; };
    c.gpu = cycle(opts_.gpu);
    c.gpu_label = cycle(opts_.gpu_label);
    c.battery_label = cycle(opts_.battery_label);
    c.current_positive_discharging = cycle(opts_.current_positive_discharging);
    c.release = release_of(c.sdk);
    TransportOptions t;
    t.port = opts_.base_port ? static_cast<std::uint16_t>(opts_.base_port + i) : 0;
    // shell_v2 came with Android 7.0 (adb/transport.cpp:48,783-794 @ android-7.0.0_r1); before,
    // `shell:` runs under a PTY (adb/services.cpp:464-465 @ android-6.0.0_r1, adb/services.c:424-425 @ 5.0).
    t.shell_v2 = opts_.shell_v2 && c.sdk >= 24;
    t.unauthorized = opts_.unauthorized;
    t.tick_ms = opts_.tick_ms;
    auto d = std::make_shared<SimDevice>(io_, std::make_unique<Device>(std::move(c), clock_), t);
    d->start();
    devices_.push_back(std::move(d));
  }
  tcp::endpoint ep(asio::ip::address_v4::loopback(), opts_.control_port);
  control_.open(ep.protocol());
  control_.set_option(tcp::acceptor::reuse_address(true));
  control_.bind(ep);
  control_.listen();
  control_port_ = control_.local_endpoint().port();
  accept_control();
}

void Simulator::stop() {
  boost::system::error_code ec;
  control_.close(ec);
  for (auto& d : devices_) {
    asio::post(d->strand(), [d] { d->stop(); });
  }
}

void Simulator::accept_control() {
  control_.async_accept(asio::make_strand(io_), [this](boost::system::error_code ec, tcp::socket s) {
    if (ec) return;
    std::make_shared<ControlSession>(*this, std::move(s))->start();
    accept_control();
  });
}

std::string Simulator::ready_json() const {
  Json devices = Json::array();
  for (const auto& d : devices_) {
    const auto& c = d->model().config();
    devices.push_back({{"name", c.name}, {"port", d->port()}, {"model", c.model}});
  }
  Json ready;
  ready["devices"] = std::move(devices);
  ready["control"] = control_port_;
  return dump(ready);
}

std::vector<std::shared_ptr<SimDevice>> Simulator::select(const std::string& which) const {
  if (which == "*" || which == "all") return devices_;
  for (const auto& d : devices_) {
    if (d->model().config().name == which) return {d};
  }
  char* end = nullptr;
  const long idx = std::strtol(which.c_str(), &end, 10);
  if (!which.empty() && *end == '\0' && idx >= 0 && static_cast<std::size_t>(idx) < devices_.size()) {
    return {devices_[static_cast<std::size_t>(idx)]};
  }
  // A serial as adb prints it: 127.0.0.1:PORT or emulator-(PORT-1).
  for (const auto& d : devices_) {
    const std::string port = std::to_string(d->port());
    if (which == "127.0.0.1:" + port || which == "localhost:" + port ||
        which == "emulator-" + std::to_string(d->port() - 1)) {
      return {d};
    }
  }
  return {};
}

void Simulator::command(const std::string& line, std::function<void(std::string)> reply) {
  std::istringstream in(line);
  std::string cmd, dev;
  in >> cmd;
  if (cmd.empty()) return reply("ERR empty command");
  if (cmd == "help") {
    return reply("OK commands: devices truth log logd-write repeat skip freeze unplug replug kick hang unhang garbage corrupt cut "
                 "refresh restart crash flood setprop pause resume auth clock logd-restart reboot slow reader "
                 "screen idle thermal battery cpu cpufreq cpu-online sysfs-label command-cost install model foreground fail perfetto "
                 "shutdown quit (see docs/devsim.md)");
  }
  if (cmd == "devices") return reply("OK " + ready_json());
  if (cmd == "shutdown") {
    reply("OK");
    asio::post(io_, [this] { io_.stop(); });
    return;
  }
  in >> dev;
  if ((cmd == "truth" || cmd == "pause" || cmd == "resume") && dev.empty()) dev = "*";
  auto devs = select(dev);
  if (devs.empty()) return reply("ERR unknown device '" + dev + "'");
  std::vector<std::string> args;
  for (std::string w; in >> w;) args.push_back(w);
  auto arg = [&](std::size_t i) { return i < args.size() ? args[i] : std::string(); };
  auto num = [&](std::size_t i, double dflt) {
    return i < args.size() ? std::strtod(args[i].c_str(), nullptr) : dflt;
  };

  auto ok_all = [reply](std::vector<std::string> r) {
    for (const auto& e : r) {
      if (!e.empty()) return reply("ERR " + e);
    }
    reply("OK");
  };
  std::function<std::string(SimDevice&)> fn;
  if (cmd == "truth") {
    // Each device's document is made on its strand, one device after the
    // other (for_devices), into the one array the reply holds.
    auto docs = std::make_shared<Json>(Json::array());
    return for_devices(devs, [docs](SimDevice& d) {
      d.model().advance();
      Json t = d.model().truth();
      // The transport's facts after the model's.
      t["port"] = d.port();
      t["plugged"] = d.plugged();
      t["hung"] = d.hung();
      t["connections"] = d.connections();
      t["paused"] = d.model().paused();
      t["slow_s"] = fixed(d.slow_seconds(), 3);
      docs->push_back(std::move(t));
      return std::string();
    }, [reply, docs](const std::vector<std::string>&) { reply("OK " + devices_reply(std::move(*docs))); });
  } else if (cmd == "log" || cmd == "logd-write") {
    // log DEV BUFFER PRIO PID TAG MESSAGE… (logd-write: straight to logd's socket)
    std::istringstream ls(line);
    std::string w;
    for (int i = 0; i < 6 && ls >> w; ++i) {
    }
    std::string msg;
    std::getline(ls, msg);
    if (!msg.empty() && msg[0] == ' ') msg.erase(0, 1);
    std::string bad;
    auto mask = parse_log_mask(arg(0), &bad);
    if (!mask || args.size() < 4 || arg(1).size() != 1) {
      return reply("ERR usage: " + cmd + " DEV BUFFER PRIO PID TAG MESSAGE");
    }
    const bool raw = cmd == "logd-write";
    LogId id = LogId::main;
    for (std::size_t b = 0; b < kLogIdCount; ++b) {
      if (*mask & (LogMask{1} << b)) {
        id = static_cast<LogId>(b);
        break;
      }
    }
    const char prio = arg(1)[0];
    const auto pid = static_cast<std::int32_t>(num(2, 0));
    const std::string tag = arg(3);
    fn = [=](SimDevice& d) {
      if (raw) {
        d.model().log_to_logd(id, prio, pid, pid, 1000, tag, msg);
      } else {
        d.model().log(id, prio, pid, pid, 1000, tag, msg);
      }
      d.pump();
      return std::string();
    };
  } else if (cmd == "repeat") {
    // repeat DEV PKG N [MESSAGE…]
    std::istringstream ls(line);
    std::string w;
    for (int i = 0; i < 4 && ls >> w; ++i) {
    }
    std::string msg;
    std::getline(ls, msg);
    if (!msg.empty() && msg[0] == ' ') msg.erase(0, 1);
    if (msg.empty()) msg = "Unable to match the desired swap behavior.";
    const std::string pkg = arg(0);
    const auto n = static_cast<std::size_t>(num(1, 0));
    if (n == 0 || n > 1'000'000) return reply("ERR usage: repeat DEV PKG N [MESSAGE]");
    fn = [=](SimDevice& d) {
      if (!d.model().repeat_line(pkg, n, msg)) return "unknown or stopped package " + pkg;
      d.pump();
      return std::string();
    };
  } else if (cmd == "skip") {
    const std::string pkg = arg(0);
    const auto n = static_cast<std::uint32_t>(num(1, 0));
    if (n == 0) return reply("ERR usage: skip DEV PKG N");
    fn = [=](SimDevice& d) { return d.model().force_skip(pkg, n) ? std::string() : "unknown package " + pkg; };
  } else if (cmd == "freeze") {
    const std::string pkg = arg(0);
    const double secs = num(1, 0);
    if (!(secs > 0 && secs <= 3600)) return reply("ERR usage: freeze DEV PKG SECONDS (0 < SECONDS <= 3600)");
    fn = [=](SimDevice& d) { return d.model().freeze(pkg, secs) ? std::string() : "unknown package " + pkg; };
  } else if (cmd == "unplug") {
    const double secs = num(0, 0);
    fn = [=](SimDevice& d) { d.unplug(secs); return std::string(); };
  } else if (cmd == "replug") {
    fn = [](SimDevice& d) { d.replug(); return std::string(); };
  } else if (cmd == "kick") {
    fn = [](SimDevice& d) { d.kick(); return std::string(); };
  } else if (cmd == "hang" || cmd == "unhang") {
    const bool h = cmd == "hang";
    fn = [=](SimDevice& d) { d.set_hung(h); return std::string(); };
  } else if (cmd == "garbage") {
    const auto n = static_cast<std::size_t>(num(0, 64));
    fn = [=](SimDevice& d) { d.garbage(n); return std::string(); };
  } else if (cmd == "corrupt") {
    fn = [](SimDevice& d) { d.corrupt(); return std::string(); };
  } else if (cmd == "cut") {
    fn = [](SimDevice& d) { d.cut(); return std::string(); };
  } else if (cmd == "refresh") {
    const double hz = num(0, 0);
    if (hz < 1 || hz > 1000) return reply("ERR usage: refresh DEV HZ");
    fn = [=](SimDevice& d) { d.model().set_refresh_hz(hz); return std::string(); };
  } else if (cmd == "thermal") {
    // thermal DEV 0-6|auto [SECONDS]: a throttling episode, or its end.
    const std::string what = arg(0);
    const bool automatic = what == "auto";
    double status = 0, secs = -1;
    if ((!automatic && (!parse_number(what, &status) || status < 0 || status > 6 || status != std::floor(status))) ||
        (args.size() > 1 && (automatic || !parse_number(arg(1), &secs) || secs <= 0))) {
      return reply("ERR usage: thermal DEV 0-6|auto [SECONDS]");
    }
    fn = [=](SimDevice& d) {
      if (automatic) d.model().end_thermal_episode();
      else d.model().thermal_episode(static_cast<int>(status), secs);
      return std::string();
    };
  } else if (cmd == "battery") {
    // battery DEV [level=0-100] [temp=C|auto] [plugged=none|ac|usb|wireless|dock] [rate=PCT_PER_HOUR|auto]
    // (devsim/battery.cc): what dumpsys battery reports from now on.
    const auto control = parse_battery_control(args);
    if (!control) {
      return reply("ERR usage: battery DEV [level=0-100] [temp=-40..100|auto] "
                   "[plugged=none|ac|usb|wireless|dock] [rate=0-1000|auto]");
    }
    fn = [c = *control](SimDevice& d) { return d.model().set_battery(c); };
  } else if (cmd == "cpu") {
    // cpu DEV PKG [main=0..1|auto] [render=0..1|auto]: the busy share of the
    // app's main thread and RenderThread from now on (devsim/resources.cc).
    const std::string pkg = arg(0);
    std::optional<double> main, render;
    bool ok = args.size() >= 2;
    for (std::size_t i = 1; i < args.size() && ok; ++i) {
      const std::string& a = args[i];
      const std::size_t eq = a.find('=');
      const std::string key = a.substr(0, eq), value = eq == std::string::npos ? "" : a.substr(eq + 1);
      double v = -1;
      ok = eq != std::string::npos && (key == "main" || key == "render") &&
           (value == "auto" || (parse_number(value, &v) && v >= 0 && v <= 1));
      (key == "main" ? main : render) = value == "auto" ? -1.0 : v;
    }
    if (!ok) return reply("ERR usage: cpu DEV PKG [main=0..1|auto] [render=0..1|auto]");
    fn = [=](SimDevice& d) { return d.model().set_cpu_busy(pkg, main, render); };
  } else if (cmd == "command-cost") {
    // command-cost DEV [app=MS] [sf=MS]: the work each gfxinfo dump does on
    // the dumped app's RenderThread and each SurfaceFlinger dump on its
    // main thread from now on (devsim/observer_cost.cc; 0: free).
    std::optional<std::int64_t> app, sf;
    bool ok = !args.empty();
    for (std::size_t i = 0; i < args.size() && ok; ++i) {
      const std::string& a = args[i];
      const std::size_t eq = a.find('=');
      const std::string key = a.substr(0, eq), value = eq == std::string::npos ? "" : a.substr(eq + 1);
      double ms = -1;
      ok = eq != std::string::npos && (key == "app" || key == "sf") && parse_number(value, &ms) && ms >= 0 &&
           ms <= 10'000;
      (key == "app" ? app : sf) = static_cast<std::int64_t>(std::llround(ms * 1e6));
    }
    if (!ok) return reply("ERR usage: command-cost DEV [app=0..10000] [sf=0..10000] (milliseconds)");
    fn = [=](SimDevice& d) { d.model().set_command_cost(app, sf); return std::string(); };
  } else if (cmd == "cpufreq") {
    // cpufreq DEV policy=N max=KHZ|auto: cap policyN's scaling_max_freq.
    double policy = -1, khz = 0;
    const bool ok = args.size() == 2 && args[0].rfind("policy=", 0) == 0 && args[1].rfind("max=", 0) == 0 &&
                    parse_number(args[0].substr(7), &policy) && policy >= 0 && policy == std::floor(policy) &&
                    (args[1] == "max=auto" || (parse_number(args[1].substr(4), &khz) && khz > 0 &&
                                               khz == std::floor(khz) && khz < 4e9));
    if (!ok) return reply("ERR usage: cpufreq DEV policy=N max=KHZ|auto");
    fn = [=](SimDevice& d) {
      return d.model().set_cpufreq_cap(static_cast<int>(policy), static_cast<std::uint32_t>(khz));
    };
  } else if (cmd == "cpu-online") {
    // cpu-online DEV core=N on|off: hotplug a core.
    double core = -1;
    const bool ok = args.size() == 2 && args[0].rfind("core=", 0) == 0 && parse_number(args[0].substr(5), &core) &&
                    core >= 0 && core == std::floor(core) && core < 1024 && (args[1] == "on" || args[1] == "off");
    if (!ok) return reply("ERR usage: cpu-online DEV core=N on|off");
    const bool on = args[1] == "on";
    fn = [=](SimDevice& d) { return d.model().set_core_online(static_cast<int>(core), on); };
  } else if (cmd == "sysfs-label") {
    // sysfs-label DEV [gpu=LABEL] [battery=LABEL]: the SELinux types of the
    // GPU's and the battery's sysfs nodes from now on.
    std::optional<SysfsLabel> gpu, battery;
    bool ok = !args.empty();
    for (const auto& a : args) {
      const std::size_t eq = a.find('=');
      const std::string key = a.substr(0, eq);
      const auto label = eq == std::string::npos ? std::nullopt : sysfs_label_from_name(a.substr(eq + 1));
      ok = ok && label && (key == "gpu" || (key == "battery" && (*label == SysfsLabel::sysfs_batteryinfo ||
                                                                 *label == SysfsLabel::sysfs)));
      if (ok) (key == "gpu" ? gpu : battery) = label;
    }
    if (!ok) {
      return reply("ERR usage: sysfs-label DEV [gpu=auto|sysfs|sysfs_gpu|sysfs_devfreq_cur] "
                   "[battery=sysfs_batteryinfo|sysfs]");
    }
    fn = [=](SimDevice& d) {
      d.model().set_sysfs_labels(gpu, battery);
      return std::string();
    };
  } else if (cmd == "restart" || cmd == "crash") {
    const std::string pkg = arg(0);
    const bool crash = cmd == "crash";
    const auto pid = static_cast<std::int32_t>(num(1, 0));
    fn = [=](SimDevice& d) {
      const bool ok = crash ? d.model().crash_app(pkg) : d.model().restart_app(pkg, pid);
      d.pump();
      return ok ? std::string() : "unknown or dead package " + pkg;
    };
  } else if (cmd == "model") {
    // model DEV HEX: ro.product.model as these bytes (1 to 512).
    const auto bytes = hex_bytes(arg(0));
    if (args.size() != 1 || !bytes || bytes->empty() || bytes->size() > 512) return reply("ERR usage: model DEV HEX");
    fn = [model = *bytes](SimDevice& d) { d.model().set_model(model); return std::string(); };
  } else if (cmd == "fail") {
    // fail DEV on|off: every shell command answers an error (a test fixture).
    if (args.size() != 1 || (arg(0) != "on" && arg(0) != "off")) return reply("ERR usage: fail DEV on|off");
    const bool on = arg(0) == "on";
    fn = [=](SimDevice& d) {
      d.model().set_failing(on);
      return std::string();
    };
  } else if (cmd == "foreground") {
    // foreground DEV PKG|none: the app in front (dumpsys window), or none.
    const std::string pkg = arg(0);
    if (args.size() != 1) return reply("ERR usage: foreground DEV PKG|none");
    fn = [=](SimDevice& d) {
      d.model().advance();
      const bool ok = d.model().set_foreground(pkg == "none" ? std::nullopt : std::optional<std::string_view>(pkg));
      return ok ? std::string() : "unknown package " + pkg;
    };
  } else if (cmd == "install") {
    // install DEV PKG VERSION_NAME VERSION_CODE [JANK_FACTOR]
    const std::string pkg = arg(0);
    double code = 0, factor = 1;
    // hex:BYTES gives a name of any bytes (1 to 128), printed into dumpsys as
    // they are; otherwise a name of printable ASCII without space, '"' or '\'.
    std::string name = arg(1);
    bool name_ok = !name.empty() && name.size() <= 128 && std::all_of(name.begin(), name.end(), [](char c) {
      return c > ' ' && c < 127 && c != '"' && c != '\\';
    });
    if (name.rfind("hex:", 0) == 0) {
      const auto bytes = hex_bytes(std::string_view(name).substr(4));
      name_ok = bytes && !bytes->empty() && bytes->size() <= 128;
      if (name_ok) name = *bytes;
    }
    const bool code_ok = parse_number(arg(2), &code) && code >= 0 && code == std::floor(code) && code < 9e18;
    const bool factor_ok = args.size() < 4 || (parse_number(arg(3), &factor) && factor > 0 && factor <= 100);
    if (args.size() < 3 || args.size() > 4 || !name_ok || !code_ok || !factor_ok) {
      return reply("ERR usage: install DEV PKG VERSION_NAME VERSION_CODE [JANK_FACTOR]");
    }
    fn = [=](SimDevice& d) {
      const bool ok = d.model().install_app(pkg, name, static_cast<std::int64_t>(code), factor);
      d.pump();
      return ok ? std::string() : "unknown package " + pkg;
    };
  } else if (cmd == "screen") {
    const std::string state = arg(0);
    if (state != "on" && state != "off" && state != "doze") return reply("ERR usage: screen DEV on|off|doze");
    const Screen screen = state == "on" ? Screen::on : state == "off" ? Screen::off : Screen::doze;
    fn = [=](SimDevice& d) { d.model().set_screen(screen); d.pump(); return std::string(); };
  } else if (cmd == "idle") {
    const std::string pkg = arg(0), state = arg(1);
    if (state != "on" && state != "off") return reply("ERR usage: idle DEV PACKAGE on|off");
    fn = [=](SimDevice& d) {
      return d.model().set_idle(pkg, state == "on") ? std::string() : "unknown package " + pkg;
    };
  } else if (cmd == "timestats") {
    // timestats DEV pull-global|pull-layers: a statsd pull of that atom.
    const std::string what = arg(0);
    if (what != "pull-global" && what != "pull-layers") return reply("ERR usage: timestats DEV pull-global|pull-layers");
    fn = [=](SimDevice& d) { d.model().timestats_pull(what == "pull-global"); return std::string(); };
  } else if (cmd == "flood") {
    const auto n = static_cast<std::size_t>(num(0, 0));
    if (n == 0 || n > 10'000'000) return reply("ERR usage: flood DEV LINES");
    fn = [=](SimDevice& d) { d.model().flood(n); d.pump(); return std::string(); };
  } else if (cmd == "setprop") {
    const std::string k = arg(0), v = arg(1);
    fn = [=](SimDevice& d) {
      auto r = d.model().setprop(k, v);
      d.pump();
      return r.exit ? std::string("setprop failed") : std::string();
    };
  } else if (cmd == "pause" || cmd == "resume") {
    const bool p = cmd == "pause";
    fn = [=](SimDevice& d) { d.model().set_paused(p); d.pump(); return std::string(); };
  } else if (cmd == "clock") {
    // clock DEV step|glitch SECONDS
    const std::string what = arg(0);
    double secs = 0;
    if ((what != "step" && what != "glitch") || !parse_number(arg(1), &secs)) {
      return reply("ERR usage: clock DEV step|glitch SECONDS");
    }
    const auto ns = static_cast<std::int64_t>(std::llround(secs * 1e9));
    fn = [=](SimDevice& d) {
      if (what == "step") d.model().clock_step(ns);
      else d.model().clock_glitch(ns);
      return std::string();
    };
  } else if (cmd == "logd-restart") {
    fn = [](SimDevice& d) { d.logd_restart(); return std::string(); };
  } else if (cmd == "reboot") {
    // reboot DEV [AWAY_SECONDS] [CLOCK_OFFSET_SECONDS]
    double away = 3, offset = 0;
    if ((args.size() > 0 && !parse_number(arg(0), &away)) || (args.size() > 1 && !parse_number(arg(1), &offset)) ||
        away < 0) {
      return reply("ERR usage: reboot DEV [AWAY_SECONDS] [CLOCK_OFFSET_SECONDS]");
    }
    fn = [=](SimDevice& d) { d.reboot(away, offset); return std::string(); };
  } else if (cmd == "slow") {
    double secs = 0;
    if (!parse_number(arg(0), &secs) || secs < 0) return reply("ERR usage: slow DEV SECONDS");
    fn = [=](SimDevice& d) { d.set_slow(secs); return std::string(); };
  } else if (cmd == "reader") {
    // reader DEV BUFFER=INDEX[:HASH] …: the reader went back to a checkpoint
    // (HASH: of the entry's first line, hex, naming it as in a cursor declaration).
    std::vector<std::tuple<LogId, std::uint64_t, std::uint64_t>> to;
    for (const auto& a : args) {
      const std::size_t eq = a.find('=');
      const std::size_t colon = a.find(':', eq == std::string::npos ? 0 : eq);
      std::string bad;
      auto mask = eq == std::string::npos ? std::nullopt : parse_log_mask(a.substr(0, eq), &bad);
      const std::string num_text = eq == std::string::npos ? std::string() : a.substr(eq + 1, colon - eq - 1);
      const std::string hash_text = colon == std::string::npos ? std::string() : a.substr(colon + 1);
      char* end = nullptr;
      char* hash_end = nullptr;
      const unsigned long long index = std::strtoull(num_text.c_str(), &end, 10);
      const unsigned long long hash = std::strtoull(hash_text.c_str(), &hash_end, 16);
      const LogMask m = mask.value_or(0);
      if (std::popcount(m) != 1 || num_text.empty() || *end != '\0' || *hash_end != '\0' || hash_text.size() > 16) {
        return reply("ERR usage: reader DEV BUFFER=INDEX[:HASH] [BUFFER=INDEX[:HASH]…]");
      }
      to.emplace_back(static_cast<LogId>(std::countr_zero(m)), index, hash);
    }
    if (to.empty()) return reply("ERR usage: reader DEV BUFFER=INDEX[:HASH] [BUFFER=INDEX[:HASH]…]");
    fn = [=](SimDevice& d) {
      for (const auto& [id, index, hash] : to) {
        if (!d.model().reader_rollback(id, d.model().reader_index_of(id, index, hash))) {
          return "no follow stream ever read " + std::string(log_id_name(id));
        }
      }
      return std::string();
    };
  } else if (cmd == "perfetto") {
    // perfetto DEV fail-pull N | hang-pull | unhang-pull | trace-bytes N |
    // write-speed BYTES_PER_S | foreign [SECONDS] [UNIQUE_NAME] | end
    const std::string what = arg(0);
    double v = 0;
    const bool has_num = args.size() >= 2 && parse_number(arg(1), &v) && v >= 0 && v == std::floor(v);
    if (what == "fail-pull" && has_num && args.size() == 2 && v <= 1e9) {
      fn = [=](SimDevice& d) {
        d.model().advance();
        d.model().perfetto().fail_pulls(static_cast<std::uint32_t>(v));
        return std::string();
      };
    } else if ((what == "hang-pull" || what == "unhang-pull") && args.size() == 1) {
      const bool on = what == "hang-pull";
      fn = [=](SimDevice& d) {
        d.model().perfetto().hang_pulls(on);
        return std::string();
      };
    } else if (what == "trace-bytes" && has_num && args.size() == 2 && v <= 4.0 * 1024 * 1024 * 1024) {
      fn = [=](SimDevice& d) {
        d.model().perfetto().set_trace_bytes(static_cast<std::uint64_t>(v));
        return std::string();
      };
    } else if (what == "write-speed" && has_num && args.size() == 2 && v <= 1e12) {
      fn = [=](SimDevice& d) {
        d.model().perfetto().set_write_speed(static_cast<std::uint64_t>(v));
        return std::string();
      };
    } else if ((what == "foreign" && args.size() <= 3 && (args.size() < 2 || has_num)) ||
               (what == "end" && args.size() == 1)) {
      const double secs = args.size() >= 2 ? v : 0;
      const std::string unique = arg(2);
      const bool unique_ok = std::all_of(unique.begin(), unique.end(), [](char c) {
        return c > ' ' && c < 127 && c != '"' && c != '\\';
      });
      if (!unique_ok) return reply("ERR usage: perfetto DEV foreign [SECONDS] [UNIQUE_NAME]");
      auto docs = std::make_shared<Json>(Json::array());
      return for_devices(devs, [=](SimDevice& d) {
        d.model().advance();
        Json one = {{"name", d.model().config().name}};
        if (what == "end") {
          one["ended"] = d.model().perfetto().end_ours();
        } else {
          bool refused = false;
          one["pid"] = d.model().perfetto().start_foreign(secs, unique, &refused);
          one["refused"] = refused;
        }
        docs->push_back(std::move(one));
        return std::string();
      }, [reply, docs](const std::vector<std::string>&) { reply("OK " + devices_reply(std::move(*docs))); });
    } else {
      return reply("ERR usage: perfetto DEV fail-pull N|hang-pull|unhang-pull|trace-bytes N|write-speed BYTES_PER_S|"
                   "foreign [SECONDS] [UNIQUE_NAME]|end");
    }
  } else if (cmd == "auth") {
    const bool unauthorized = arg(0) == "off";
    fn = [=](SimDevice& d) { d.set_unauthorized(unauthorized); return std::string(); };
  } else {
    return reply("ERR unknown command '" + cmd + "'");
  }
  for_devices(devs, fn, ok_all);
}

}  // namespace jank::devsim
