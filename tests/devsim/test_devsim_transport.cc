// The device transport seen by an adb server: a minimal host over a loopback
// socket. The model runs on a ManualClock; only the slow-device and reboot
// cases wait (a few hundred milliseconds of real time), because those delays
// are the transport's own timers.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>

#include "devsim/transport.h"
#include "tests/rig/fnv.h"
#include "tests/rig/json.h"

using namespace jank::devsim;
using steady = std::chrono::steady_clock;

namespace {

constexpr std::uint32_t kCnxn = 0x4e584e43, kOpen = 0x4e45504f, kOkay = 0x59414b4f, kWrte = 0x45545257,
                        kClse = 0x45534c43;

struct Packet {
  std::uint32_t cmd = 0, a0 = 0, a1 = 0;
  std::string data;
};

// One connection of a host to the device, blocking with deadlines.
class Host {
 public:
  explicit Host(std::uint16_t port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    if (!connected_) return;
    send(kCnxn, 0x01000001, 256 * 1024, std::string("host::\0", 7));
    Packet p;
    connected_ = recv(p) && p.cmd == kCnxn;
  }
  ~Host() { close(fd_); }
  bool connected() const { return connected_; }

  void send(std::uint32_t cmd, std::uint32_t a0, std::uint32_t a1, const std::string& data = {}) {
    std::string s;
    auto put = [&](std::uint32_t v) {
      for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
    };
    std::uint32_t sum = 0;
    for (char c : data) sum += static_cast<unsigned char>(c);
    put(cmd), put(a0), put(a1), put(static_cast<std::uint32_t>(data.size())), put(sum), put(cmd ^ 0xffffffffu);
    s += data;
    REQUIRE(::send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size()));
  }

  // The device handles a connection's packets in order: once an OPEN of an
  // unknown service is refused, everything sent before it was handled.
  // (Only when no stream has output on the way.)
  bool barrier() {
    send(kOpen, 0x7fff, 0, std::string("barrier:\0", 9));
    Packet p;
    return recv(p) && p.cmd == kClse && p.a1 == 0x7fff;
  }

  // False on EOF or when nothing came within the deadline.
  bool recv(Packet& p, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    const auto end = steady::now() + timeout;
    auto fill = [&](std::size_t n) {
      while (buf_.size() < n) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - steady::now()).count();
        pollfd pf{fd_, POLLIN, 0};
        if (left <= 0 || poll(&pf, 1, static_cast<int>(left)) <= 0) return false;
        char b[65536];
        const ssize_t got = ::recv(fd_, b, sizeof b, 0);
        if (got <= 0) return false;
        buf_.append(b, static_cast<std::size_t>(got));
      }
      return true;
    };
    if (!fill(24)) return false;
    auto get = [&](std::size_t at) {
      std::uint32_t v = 0;
      for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(buf_[at + static_cast<std::size_t>(i)]);
      return v;
    };
    const std::uint32_t len = get(12);
    if (!fill(24 + len)) return false;
    p = Packet{get(0), get(4), get(8), buf_.substr(24, len)};
    buf_.erase(0, 24 + len);
    return true;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string buf_;
};

// A shell v2 stream: opens CMD, collects stdout, stderr and the exit status.
struct Shell {
  Host& host;
  std::uint32_t local, remote = 0;
  std::string raw, out, err;
  int exit = -1;
  bool closed = false;

  Shell(Host& h, std::uint32_t id, const std::string& cmd) : host(h), local(id) {
    host.send(kOpen, local, 0, "shell,v2,raw:" + cmd + std::string(1, '\0'));
  }
  // Waits for the OKAY of the open.
  bool opened() {
    Packet p;
    if (!host.recv(p) || p.cmd != kOkay) return false;
    remote = p.a0;
    return true;
  }
  // Receives one WRTE (acknowledging it when `ack`) or the CLSE.
  bool step(bool ack = true, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
    Packet p;
    if (!host.recv(p, timeout)) return false;
    if (p.cmd == kClse) {
      closed = true;
      return true;
    }
    if (p.cmd != kWrte) return false;
    raw += p.data;
    if (ack) host.send(kOkay, local, remote);
    // Shell protocol v2: id, little-endian length, data.
    while (raw.size() >= 5) {
      std::uint32_t len = 0;
      for (int i = 4; i >= 1; --i) len = len << 8 | static_cast<unsigned char>(raw[static_cast<std::size_t>(i)]);
      if (raw.size() < 5 + len) break;
      const std::string d = raw.substr(5, len);
      if (raw[0] == 1) out += d;
      if (raw[0] == 2) err += d;
      if (raw[0] == 3) exit = static_cast<unsigned char>(d.at(0));
      raw.erase(0, 5 + len);
    }
    return true;
  }
  bool until_closed() {
    while (!closed) {
      if (!step()) return false;
    }
    return true;
  }
};

// One simulated device on its own io thread; the test reaches it on its strand.
struct Rig {
  boost::asio::io_context io;
  ManualClock clock;
  std::shared_ptr<SimDevice> dev;
  std::thread thread;

  // A device of that API level; below 24 (Android 7.0) without shell_v2.
  explicit Rig(int sdk = 33) {
    DeviceConfig c;
    c.sdk = sdk;
    c.noise_lines_per_sec = 0;
    c.log_buffer_bytes = 64 * 1024;
    AppConfig a;
    a.package = "com.example.feed";
    a.stall_prob = 0;
    c.apps.push_back(a);
    TransportOptions t;
    t.shell_v2 = sdk >= 24;
    dev = std::make_shared<SimDevice>(io, std::make_unique<Device>(c, clock), t);
    dev->start();
    thread = std::thread([this] { io.run(); });
  }
  template <typename F>
  auto on(F f) {
    auto done = std::make_shared<std::promise<decltype(f(*dev))>>();
    boost::asio::post(dev->strand(), [this, f, done] { done->set_value(f(*dev)); });
    return done->get_future().get();
  }
  ~Rig() {
    on([](SimDevice& d) { d.stop(); return 0; });
    io.stop();
    thread.join();
  }
  void log(const std::string& msg) {
    on([msg](SimDevice& d) {
      d.model().log(LogId::main, 'I', 7, 7, 1000, "Test", msg);
      d.pump();
      return 0;
    });
  }
};

// What an opened stream `local` carries until the device closes it: its
// OPEN's OKAY, then each WRTE (acknowledged), then CLSE.
std::string read_stream(Host& host, std::uint32_t local) {
  Packet p;
  REQUIRE(host.recv(p));
  REQUIRE(p.cmd == kOkay);
  std::string raw;
  while (host.recv(p) && p.cmd == kWrte) {
    raw += p.data;
    host.send(kOkay, local, p.a0);
  }
  CHECK(p.cmd == kClse);
  return raw;
}

}  // namespace

TEST_CASE("transport: a line is read once the host acknowledged it, a cut line never is") {
  Rig rig;
  Host host(rig.dev->port());
  REQUIRE(host.connected());
  Shell s(host, 1, "logcat -v threadtime -b main,system -D");
  REQUIRE(s.opened());
  REQUIRE(s.step());  // the ring
  rig.log("acknowledged");
  while (s.out.find("acknowledged") == std::string::npos) REQUIRE(s.step());
  REQUIRE(host.barrier());
  const auto total = [&] { return rig.on([](SimDevice& d) { return d.model().logs().stats(LogId::main).written; }); };
  const auto upto = [&] { return rig.on([](SimDevice& d) { return d.model().read_upto(LogId::main); }); };
  CHECK(upto() == total());

  // Written out, not acknowledged: not read.
  rig.log("in flight");
  REQUIRE(s.step(false));
  CHECK(s.out.find("in flight") != std::string::npos);
  CHECK(upto() == total() - 1);
  host.send(kOkay, s.local, s.remote);
  REQUIRE(host.barrier());
  CHECK(upto() == total());

  // Cut in the middle: half a line, the stream ends without an exit status.
  rig.on([](SimDevice& d) { d.cut(); return 0; });
  rig.log("this line is cut in the middle");
  REQUIRE(s.until_closed());
  CHECK(s.exit == -1);
  CHECK(s.out.back() != '\n');
  CHECK(upto() == total() - 1);
  rig.on([](SimDevice& d) { d.model().flood(3000); return 0; });
  rig.on([](SimDevice& d) { d.model().statistics_read(); return 0; });  // the reader asks logd: the loss is known
  CHECK(rig.on([](SimDevice& d) { return d.model().reader_lost_lines(); }) >= 1);
  CHECK(rig.on([](SimDevice& d) { return d.model().app("com.example.feed")->truth.reader_lost_skip_lines; }) == 0);
}

namespace {

// Opens following logcat `s`, then logd restarts with one line written out
// and received but not acknowledged, and one queued behind it.
void restart_logd_under_stream(Rig& rig, Shell& s) {
  REQUIRE(s.opened());
  REQUIRE(s.step());
  rig.log("in flight");
  REQUIRE(s.step(false));
  rig.log("queued");
  rig.on([](SimDevice& d) { d.logd_restart(); return 0; });
}

}  // namespace

TEST_CASE("transport: a logd restart ends a following logcat like logcat does, the connection stays") {
  Rig rig;
  Host host(rig.dev->port());
  REQUIRE(host.connected());
  Shell s(host, 1, "logcat -b main,system -D");
  restart_logd_under_stream(rig, s);
  // Both reach the host, so they are read, not unknown.
  host.send(kOkay, s.local, s.remote);
  REQUIRE(s.until_closed());
  CHECK(s.out.find("in flight") != std::string::npos);
  CHECK(s.out.find("queued") != std::string::npos);
  CHECK(s.err == "logcat: Unexpected EOF!\n");
  CHECK(s.exit == 1);
  CHECK(rig.on([](SimDevice& d) { return d.model().reader_unknown_lines(); }) == 0);
  Shell again(host, 2, "pidof logd");
  REQUIRE(again.opened());
  REQUIRE(again.until_closed());
  CHECK(again.out == std::to_string(rig.on([](SimDevice& d) { return d.model().logd_pid(); })) + "\n");
  CHECK(again.exit == 0);
}

TEST_CASE("transport: lines on their way when logd dies are unknown once the host gives up on their stream") {
  Rig rig;
  Host host(rig.dev->port());
  REQUIRE(host.connected());
  Shell s(host, 1, "logcat -b main,system -D");
  restart_logd_under_stream(rig, s);
  CHECK(rig.on([](SimDevice& d) { return d.model().reader_unknown_lines(); }) == 0);  // still on their way
  host.send(kClse, s.local, s.remote);  // the host gives up: neither was taken, and logd's ring is gone
  Shell after(host, 2, "pidof logd");  // the device handles packets in order: the close came first
  REQUIRE(after.opened());
  REQUIRE(after.until_closed());
  CHECK(rig.on([](SimDevice& d) { return d.model().reader_unknown_lines(); }) == 2);
  CHECK(rig.on([](SimDevice& d) { return d.model().reader_lost_lines(); }) == 0);
}

TEST_CASE("transport: a slow device answers every command only after the delay") {
  Rig rig;
  Host host(rig.dev->port());
  REQUIRE(host.connected());
  rig.on([](SimDevice& d) { d.set_slow(0.5); return 0; });
  const auto t0 = steady::now();
  Shell s(host, 1, "echo alive; date +%s");
  REQUIRE(s.opened());
  CHECK(steady::now() - t0 < std::chrono::milliseconds(400));  // adbd took the stream at once
  REQUIRE(s.step());
  CHECK(steady::now() - t0 >= std::chrono::milliseconds(500));
  REQUIRE(s.until_closed());
  CHECK(s.out.rfind("alive\n", 0) == 0);
  CHECK(s.exit == 0);
  // Silent commands answer late too: their exit comes after the delay.
  const auto t1 = steady::now();
  Shell quiet(host, 2, "true");
  REQUIRE(quiet.opened());
  REQUIRE(quiet.until_closed());
  CHECK(steady::now() - t1 >= std::chrono::milliseconds(500));
  CHECK(quiet.exit == 0);
  rig.on([](SimDevice& d) { d.set_slow(0); return 0; });
  const auto t2 = steady::now();
  Shell fast(host, 3, "true");
  REQUIRE(fast.opened());
  REQUIRE(fast.until_closed());
  CHECK(steady::now() - t2 < std::chrono::milliseconds(400));
}

TEST_CASE("transport: a reboot drops the connection, the device comes back with a new boot") {
  Rig rig;
  const std::string boot0 = rig.on([](SimDevice& d) { return d.model().boot_id(); });
  {
    Host host(rig.dev->port());
    REQUIRE(host.connected());
    Shell s(host, 1, "logcat -b main,system -D");
    REQUIRE(s.opened());
    REQUIRE(s.step());
    rig.on([](SimDevice& d) { d.reboot(0.2, -86400); return 0; });
    while (!s.closed && s.step()) {
    }
    CHECK(s.exit == -1);  // no exit status: the device went away
    CHECK_FALSE(rig.on([](SimDevice& d) { return d.plugged(); }));
  }
  const auto end = steady::now() + std::chrono::seconds(5);
  while (!rig.on([](SimDevice& d) { return d.plugged(); }) && steady::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Host host(rig.dev->port());
  REQUIRE(host.connected());
  Shell s(host, 1, "cat /proc/sys/kernel/random/boot_id");
  REQUIRE(s.opened());
  REQUIRE(s.until_closed());
  CHECK(s.out != boot0 + "\n");
  CHECK(s.out == rig.on([](SimDevice& d) { return d.model().boot_id(); }) + "\n");
  CHECK(rig.on([](SimDevice& d) { return d.model().reboots(); }) == 1);
}

namespace {

const std::string kTrace = "/data/misc/perfetto-traces/jank_exporter.pftrace";

// Arms a session, triggers it and lets it write a trace of `bytes` bytes.
std::string write_trace(Rig& rig, Host& host, std::uint64_t bytes) {
  rig.on([bytes](SimDevice& d) {
    d.model().perfetto().set_trace_bytes(bytes);
    d.model().perfetto().set_write_speed(1ull << 40);
    return 0;
  });
  Shell arm(host, 10, "rm -f " + kTrace +
                          "; printf %s 'unique_session_name: \"jank_exporter\" trigger_config { trigger_mode: "
                          "STOP_TRACING trigger_timeout_ms: 60000 triggers { name: \"jank_exporter\" stop_delay_ms: "
                          "100 } }' | perfetto --background --txt -c - -o " +
                          kTrace);
  REQUIRE(arm.opened());
  REQUIRE(arm.until_closed());
  REQUIRE(arm.exit == 0);
  Shell trigger(host, 11, "trigger_perfetto jank_exporter");
  REQUIRE(trigger.opened());
  REQUIRE(trigger.until_closed());
  rig.on([&](SimDevice& d) {
    rig.clock.advance_ms(1000);
    d.model().advance();
    return 0;
  });
  const std::string truth = rig.on([](SimDevice& d) { return d.model().truth_json(); });
  const auto j = jank::rig::parse_json(truth);
  REQUIRE(j);
  const jank::rig::Json& t = (*j)["perfetto"]["traces"][0];
  REQUIRE(t["complete"].b);
  REQUIRE(t["size"].u64() == bytes);
  return t["fnv1a64"].str;
}

}  // namespace

TEST_CASE("transport: a trace pulled with cat over shell v2 and exec is the exact binary file") {
  Rig rig;
  Host host(rig.dev->port());
  REQUIRE(host.connected());
  const std::string fnv = write_trace(rig, host, 200'000);
  Shell v2(host, 1, "cat " + kTrace);
  REQUIRE(v2.opened());
  REQUIRE(v2.until_closed());
  CHECK(v2.exit == 0);
  CHECK(v2.err.empty());
  CHECK(v2.out.size() == 200'000);
  CHECK(jank::rig::fnv1a64_hex(v2.out) == fnv);
  // exec: raw stdout, no framing.
  host.send(kOpen, 2, 0, "exec:cat " + kTrace + std::string(1, '\0'));
  CHECK(read_stream(host, 2) == v2.out);
}

TEST_CASE("transport: a trace over 4 MiB is streamed as the host takes it") {
  Rig rig;
  Host host(rig.dev->port());
  REQUIRE(host.connected());
  const std::uint64_t size = 12 * 1024 * 1024 + 5;
  const std::string fnv = write_trace(rig, host, size);
  Shell s(host, 1, "cat " + kTrace);
  REQUIRE(s.opened());
  // Unacknowledged, the device sends one WRTE and waits: nothing piles up.
  REQUIRE(s.step(false));
  CHECK_FALSE(s.step(false, std::chrono::milliseconds(200)));
  host.send(kOkay, s.local, s.remote);
  REQUIRE(s.until_closed());
  CHECK(s.exit == 0);
  CHECK(s.out.size() == size);
  CHECK(jank::rig::fnv1a64_hex(s.out) == fnv);
}

TEST_CASE("transport: a hung pull never answers and the device goes on serving other streams") {
  Rig rig;
  Host host(rig.dev->port());
  REQUIRE(host.connected());
  write_trace(rig, host, 50'000);
  rig.on([](SimDevice& d) { d.model().perfetto().hang_pulls(true); return 0; });
  Shell hung(host, 1, "cat " + kTrace);
  REQUIRE(hung.opened());
  Shell other(host, 2, "echo alive");
  REQUIRE(other.opened());
  REQUIRE(other.until_closed());
  CHECK(other.out == "alive\n");
  CHECK_FALSE(hung.step(true, std::chrono::milliseconds(300)));
  host.send(kClse, hung.local, hung.remote);  // the host gives up
  rig.on([](SimDevice& d) { d.model().perfetto().hang_pulls(false); return 0; });
  Shell again(host, 3, "cat " + kTrace);
  REQUIRE(again.opened());
  REQUIRE(again.until_closed());
  CHECK(again.out.size() == 50'000);
}

TEST_CASE("transport: a pre-N device's PTY carries the resource poll with CRLF and stderr merged") {
  // Android 6.0: `shell:` under a PTY (adb/services.cpp:464-465 @
  // android-6.0.0_r1): \n becomes \r\n, stderr comes in the same stream,
  // no exit status; a terminal line-buffers grep, so every error is in order.
  Rig rig(23);
  Host host(rig.dev->port());
  REQUIRE(host.connected());
  const std::string cmd = "grep -H ^cpu0 /proc/stat 2>&1; grep -H ^ /proc/99999/stat "
                          "/sys/class/power_supply/battery/current_now 2>&1; cat /proc/1/smaps_rollup";
  host.send(kOpen, 1, 0, "shell:" + cmd + std::string(1, '\0'));
  const std::string raw = read_stream(host, 1);
  const std::size_t cpu0 = raw.find("\r\n");
  REQUIRE(cpu0 != std::string::npos);
  CHECK(raw.rfind("/proc/stat:cpu0 ", 0) == 0);
  CHECK(raw.substr(cpu0) ==
        "\r\ngrep: /proc/99999/stat: No such file or directory\r\n"
        "/sys/class/power_supply/battery/current_now:-495000\r\n"
        "cat: /proc/1/smaps_rollup: No such file or directory\r\n");
  // A shell_v2 device keeps stderr apart and says the status.
  Rig v2rig(33);
  Host h2(v2rig.dev->port());
  REQUIRE(h2.connected());
  Shell v2(h2, 1, cmd);
  REQUIRE(v2.opened());
  REQUIRE(v2.until_closed());
  CHECK(v2.out.find('\r') == std::string::npos);
  CHECK(v2.out.find("grep: /proc/99999/stat: No such file or directory\n") != std::string::npos);
  CHECK(v2.err == "cat: /proc/1/smaps_rollup: Permission denied\n");
  CHECK(v2.exit == 1);
}
