#include "devsim/transport.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <random>

#include "devsim/shell.h"

namespace jank::devsim {
namespace {

constexpr std::uint32_t kCnxn = 0x4e584e43;
constexpr std::uint32_t kAuth = 0x48545541;
constexpr std::uint32_t kOpen = 0x4e45504f;
constexpr std::uint32_t kOkay = 0x59414b4f;
// A pipe holds 64 KiB: adbd reads (and sends as one shell v2 packet) at most that.
constexpr std::size_t kV2ChunkBytes = 64 * 1024;
constexpr std::uint32_t kWrte = 0x45545257;
constexpr std::uint32_t kClse = 0x45534c43;
constexpr std::uint32_t kVersion = 0x01000001;
constexpr std::uint32_t kMaxPayload = 1024 * 1024;
constexpr std::size_t kFollowHighWater = 64 * 1024;  // stop pulling logs past this backlog
// A streamed file is made in chunks while less than this is queued: memory
// stays bounded whatever its size.
constexpr std::size_t kFileHighWater = 1024 * 1024;
constexpr std::size_t kFileChunk = 256 * 1024;

void put32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}
std::uint32_t get32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

std::string packet(std::uint32_t cmd, std::uint32_t a0, std::uint32_t a1, std::string_view data = {}) {
  std::string s;
  s.reserve(24 + data.size());
  put32(s, cmd);
  put32(s, a0);
  put32(s, a1);
  put32(s, static_cast<std::uint32_t>(data.size()));
  std::uint32_t sum = 0;
  for (char c : data) sum += static_cast<unsigned char>(c);
  put32(s, sum);
  put32(s, cmd ^ 0xffffffffu);
  s.append(data);
  return s;
}

// Shell protocol v2 packet: id, little-endian length, data.
std::string v2(std::uint8_t id, std::string_view data) {
  std::string s;
  s += static_cast<char>(id);
  put32(s, static_cast<std::uint32_t>(data.size()));
  s.append(data);
  return s;
}

}  // namespace

struct Stream {
  std::uint32_t local = 0, remote = 0;
  enum class Kind { v2, raw, pty, exec } kind = Kind::v2;
  std::string pending;
  std::uint64_t sent = 0;  // bytes of output that left `pending` in WRTEs
  bool awaiting_ack = false;
  bool finished = false;  // no more data will be added
  std::optional<LogcatFollow> follow;
  bool cut = false;
  // Log entries in the output: the stream byte their text ends at. The host's
  // OKAY for the WRTE carrying that byte makes them read (Device::note_read).
  struct Mark {
    std::uint64_t end = 0;
    std::uint64_t gen = 0;
    LogId id = LogId::main;
    std::uint64_t index = 0;
  };
  std::deque<Mark> marks;
  std::shared_ptr<asio::steady_timer> delay;  // a slow device's command not yet run
  // A big file being sent (`cat` of a trace): bytes made as the host takes them.
  std::optional<FileStream> file;
  std::uint64_t file_at = 0;
  int file_exit = 0;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(SimDevice& dev, asio::ip::tcp::socket sock) : dev_(dev), sock_(std::move(sock)) {}

  void start() {
    asio::ip::tcp::no_delay nd(true);
    boost::system::error_code ec;
    sock_.set_option(nd, ec);
    read_header();
  }

  // A stream ends: entries it wrote out that the host never took were not delivered.
  void drop_stream(std::uint32_t local) {
    const auto it = streams_.find(local);
    if (it == streams_.end()) return;
    for (const Stream::Mark& m : it->second.marks) dev_.model().note_undelivered(m.gen, m.id, m.index);
    streams_.erase(it);
  }
  void drop_all_streams() {
    while (!streams_.empty()) drop_stream(streams_.begin()->first);
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ec;
    sock_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    sock_.close(ec);
    drop_all_streams();
  }

  void resume() {
    if (closed_) return;
    if (read_paused_) {
      read_paused_ = false;
      handle_packet();
    }
    do_write();
  }

  void send_raw(std::string bytes) {
    outq_.push_back(std::move(bytes));
    do_write();
  }

  // Moves log lines into following streams and flushes them.
  void pump() {
    if (closed_ || !online_) return;
    std::vector<std::uint32_t> ids;
    for (auto& [id, s] : streams_) {
      if (s.follow) ids.push_back(id);
    }
    for (std::uint32_t id : ids) pump_stream(id);
  }

  void pump_stream(std::uint32_t id) {
    auto it = streams_.find(id);
    if (it == streams_.end()) return;
    Stream& s = it->second;
    if (s.finished || s.pending.size() >= kFollowHighWater) return flush(s);
    bool done = false;
    std::vector<WrittenEntry> written;
    std::string text = pump_logcat(dev_.model(), *s.follow, kFollowHighWater, &done, &written);
    if (s.cut || dev_.take_cut()) {
      s.cut = true;
      const std::size_t nl = text.find('\n');
      if (nl != std::string::npos) {
        // Half a line, then EOF without an exit packet.
        add_log_output(s, text.substr(0, std::max<std::size_t>(1, nl / 2)), written);
        s.finished = true;
        return flush(s);
      }
    }
    add_log_output(s, text, written);
    if (done) {
      if (s.kind != Stream::Kind::exec) add_output(s, s.follow->err, 2);  // exec: stdout only
      finish(s, s.follow->exit);
    }
    flush(s);
  }

  void inject(std::string_view bytes) {
    for (auto& [id, s] : streams_) {
      if (s.follow && !s.finished) {
        add_output(s, bytes, 1);
        flush(s);
      }
    }
  }

  // True when some following stream was marked.
  bool mark_cut() {
    bool any = false;
    for (auto& [id, s] : streams_) {
      if (s.follow && !s.finished) s.cut = any = true;
    }
    return any;
  }

 private:
  void read_header() {
    auto self = shared_from_this();
    asio::async_read(sock_, asio::buffer(hdr_), [this, self](boost::system::error_code ec, std::size_t) {
      if (ec || closed_) return fail();
      const std::uint32_t cmd = get32(hdr_.data());
      const std::uint32_t len = get32(hdr_.data() + 12);
      const std::uint32_t magic = get32(hdr_.data() + 20);
      if ((cmd ^ 0xffffffffu) != magic || len > kMaxPayload) return fail();
      payload_.resize(len);
      asio::async_read(sock_, asio::buffer(payload_), [this, self](boost::system::error_code ec2, std::size_t) {
        if (ec2 || closed_) return fail();
        if (dev_.hung()) {
          read_paused_ = true;  // a wedged device: keep TCP up, answer nothing
          return;
        }
        handle_packet();
      });
    });
  }

  void fail() {
    close();
    dev_.forget(shared_from_this());
  }

  void handle_packet() {
    const std::uint32_t cmd = get32(hdr_.data());
    const std::uint32_t a0 = get32(hdr_.data() + 4);
    const std::uint32_t a1 = get32(hdr_.data() + 8);
    switch (cmd) {
      case kCnxn: on_cnxn(a1); break;
      case kAuth:
        // Signature (2) → ask again; public key (3) → the dialog is up, never accepted.
        if (dev_.options().unauthorized && a0 == 2) send_auth_token();
        break;
      case kOpen: if (online_) on_open(a0); break;
      case kOkay: if (online_) on_okay(a0, a1); break;
      case kWrte: if (online_) on_write(a0, a1); break;
      case kClse: if (online_) drop_stream(a1); break;
      default: break;
    }
    read_header();
  }

  void send_auth_token() {
    std::string token(20, '\0');
    for (auto& c : token) c = static_cast<char>(rng_() & 0xff);
    send_raw(packet(kAuth, 1, 0, token));
  }

  void on_cnxn(std::uint32_t host_maxdata) {
    // A (re)connect drops every stream of the previous session.
    drop_all_streams();
    max_payload_ = std::min<std::uint32_t>(host_maxdata ? host_maxdata : 4096, kMaxPayload);
    if (dev_.options().unauthorized) {
      online_ = false;
      send_auth_token();
      return;
    }
    online_ = true;
    send_raw(packet(kCnxn, kVersion, kMaxPayload, dev_.banner()));
  }

  // Adds logcat output and marks where its entries end (in stream bytes).
  void add_log_output(Stream& s, const std::string& text, const std::vector<WrittenEntry>& written) {
    const std::uint64_t base = s.sent + s.pending.size();
    const std::uint64_t gen = dev_.model().logd_generation();
    std::size_t newlines = 0, counted = 0;
    for (const WrittenEntry& w : written) {
      if (w.end > text.size()) break;  // cut off
      std::uint64_t end = base + w.end;
      if (s.kind == Stream::Kind::v2) {
        end += 5;  // the packet header
      } else if (s.kind == Stream::Kind::pty) {
        newlines += static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(counted),
                                                        text.begin() + static_cast<std::ptrdiff_t>(w.end), '\n'));
        counted = w.end;
        end += newlines;  // each \n went out as \r\n
      }
      s.marks.push_back(Stream::Mark{end, gen, w.id, w.index});
      dev_.model().note_in_flight(gen, w.id, w.index, w.first_line_hash);
    }
    add_output(s, text, 1);
  }

  void on_open(std::uint32_t remote) {
    std::string svc(payload_.begin(), payload_.end());
    while (!svc.empty() && svc.back() == '\0') svc.pop_back();
    Stream s;
    s.remote = remote;
    std::string cmd;
    const bool v2_ok = dev_.options().shell_v2;
    if (svc.rfind("shell,", 0) == 0 || svc.rfind("shell:", 0) == 0) {
      const std::size_t colon = svc.find(':');
      const std::string argstr = svc.substr(0, colon);
      cmd = svc.substr(colon + 1);
      const bool v2req = argstr.find(",v2") != std::string::npos;
      if (v2req && !v2_ok) return send_raw(packet(kClse, 0, remote));
      s.kind = v2req ? Stream::Kind::v2 : (v2_ok ? Stream::Kind::raw : Stream::Kind::pty);
    } else if (svc.rfind("exec:", 0) == 0) {
      cmd = svc.substr(5);
      s.kind = Stream::Kind::exec;
    } else {
      return send_raw(packet(kClse, 0, remote));  // host sees "closed"
    }
    s.local = next_id_++;
    send_raw(packet(kOkay, s.local, remote));
    const std::uint32_t id = s.local;
    auto [it, inserted] = streams_.emplace(s.local, std::move(s));
    const double slow = dev_.slow_seconds();
    if (slow <= 0) return run(id, cmd);
    // An overloaded device: the command runs, and answers, only later.
    auto t = std::make_shared<asio::steady_timer>(sock_.get_executor());
    it->second.delay = t;
    t->expires_after(std::chrono::microseconds(static_cast<std::int64_t>(slow * 1e6)));
    auto self = shared_from_this();
    t->async_wait([this, self, id, cmd](boost::system::error_code ec) {
      if (ec || closed_) return;
      auto found = streams_.find(id);
      if (found == streams_.end()) return;
      found->second.delay.reset();
      run(id, cmd);
    });
  }

  void run(std::uint32_t id, const std::string& cmd) {
    Stream& st = streams_.at(id);
    // adbd's PTY (shell: without shell_v2) is a terminal: the tools' stdout is line-buffered.
    ShellResult r = run_shell(dev_.model(), cmd, st.kind == Stream::Kind::pty);
    // adbd starts a process for every shell service (packages/modules/adb/
    // daemon/shell_service.cpp StartSubprocess; system/core/adb/daemon/ before
    // Android 11): what measuring costs the device, counted for the truth.
    dev_.model().note_shell(r.follow.has_value(), r.out.size() + r.err.size() + (r.file ? r.file->length : 0));
    if (st.kind == Stream::Kind::v2) {
      add_output(st, r.out, 1);  // in pipe-sized packets, as adbd sends them
      add_output(st, r.err, 2);
    } else if (st.kind == Stream::Kind::exec) {
      st.pending += r.out;
    } else {
      add_output(st, r.out + r.err, 1);
    }
    if (r.follow) {
      st.follow = std::move(r.follow);
      return pump_stream(st.local);
    }
    if (r.hang) return flush(st);  // what came before goes out; then silence, no exit
    if (r.file) {
      st.file = std::move(r.file);
      st.file_exit = r.exit;
      return pump_file(st);
    }
    finish(st, r.exit);
    flush(st);
  }

  void pump_file(Stream& s) {
    while (s.file && !s.finished && s.pending.size() < kFileHighWater) {
      const std::uint64_t left = s.file->length - s.file_at;
      if (left == 0) {
        s.file.reset();
        finish(s, s.file_exit);
        break;
      }
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(left, kFileChunk));
      add_output(s, s.file->content.slice(s.file_at, n), 1);
      s.file_at += n;
    }
    flush(s);
  }

  void add_output(Stream& s, std::string_view text, std::uint8_t id) {
    if (text.empty()) return;
    switch (s.kind) {
      case Stream::Kind::v2:
        // adbd sends what each read of the child's pipe brought: packets of
        // at most a pipe's capacity, never one packet for a whole file.
        for (std::size_t at = 0; at < text.size(); at += kV2ChunkBytes) {
          s.pending += v2(id, text.substr(at, kV2ChunkBytes));
        }
        break;
      case Stream::Kind::pty:
        // A pre-N device's PTY turns \n into \r\n.
        for (char c : text) {
          if (c == '\n') s.pending += '\r';
          s.pending += c;
        }
        break;
      default: s.pending.append(text); break;
    }
  }

  void finish(Stream& s, int exit_code) {
    if (s.finished) return;
    if (s.kind == Stream::Kind::v2) s.pending += v2(3, std::string(1, static_cast<char>(exit_code & 0xff)));
    s.finished = true;
  }

  void flush(Stream& s) {
    if (s.awaiting_ack) return;
    if (!s.pending.empty()) {
      const std::size_t n = std::min<std::size_t>(s.pending.size(), max_payload_);
      send_raw(packet(kWrte, s.local, s.remote, std::string_view(s.pending).substr(0, n)));
      s.pending.erase(0, n);
      s.sent += n;
      s.awaiting_ack = true;
      return;
    }
    if (s.finished) {
      send_raw(packet(kClse, s.local, s.remote));
      drop_stream(std::uint32_t{s.local});
    }
  }

  void on_okay(std::uint32_t remote, std::uint32_t local) {
    auto it = streams_.find(local);
    if (it == streams_.end()) return;
    it->second.remote = remote;
    it->second.awaiting_ack = false;
    Stream& s = it->second;
    // The host took everything sent so far.
    while (!s.marks.empty() && s.marks.front().end <= s.sent) {
      const Stream::Mark& m = s.marks.front();
      dev_.model().note_read(m.gen, m.id, m.index);
      s.marks.pop_front();
    }
    if (s.follow && !s.finished && s.pending.size() < kFollowHighWater / 2) return pump_stream(local);
    if (s.file && s.pending.size() < kFileHighWater / 2) return pump_file(s);
    flush(s);
  }

  void on_write(std::uint32_t remote, std::uint32_t local) {
    // stdin and close-stdin are acknowledged and otherwise ignored.
    if (streams_.count(local)) send_raw(packet(kOkay, local, remote));
  }

  void do_write() {
    if (writing_ || outq_.empty() || closed_ || dev_.hung()) return;
    writing_ = true;
    // Gather everything queued into one write.
    wbuf_.clear();
    while (!outq_.empty()) {
      wbuf_ += outq_.front();
      outq_.pop_front();
    }
    auto self = shared_from_this();
    asio::async_write(sock_, asio::buffer(wbuf_), [this, self](boost::system::error_code ec, std::size_t) {
      writing_ = false;
      if (ec) return fail();
      do_write();
    });
  }

  SimDevice& dev_;
  asio::ip::tcp::socket sock_;
  std::array<unsigned char, 24> hdr_{};
  std::vector<char> payload_;
  std::deque<std::string> outq_;
  std::string wbuf_;
  bool writing_ = false;
  bool closed_ = false;
  bool online_ = false;
  bool read_paused_ = false;
  std::uint32_t max_payload_ = 4096;
  std::uint32_t next_id_ = 1;
  std::map<std::uint32_t, Stream> streams_;
  std::mt19937 rng_{std::random_device{}()};
};

SimDevice::SimDevice(asio::io_context& io, std::unique_ptr<Device> model, TransportOptions opts)
    : strand_(asio::make_strand(io)),
      model_(std::move(model)),
      opts_(opts),
      acceptor_(strand_),
      tick_timer_(strand_),
      replug_timer_(strand_) {}

SimDevice::~SimDevice() = default;

std::string SimDevice::banner() const {
  const auto& c = model_->config();
  const std::string props =
      "device::ro.product.name=" + c.product + ";ro.product.model=" + c.model + ";ro.product.device=" + c.device;
  // Before 7.0 adbd announces no features: each property ends with ';'
  // (fill_connect_data, adb/adb.c:291-319 @ android-5.0.0_r1, adb/adb.cpp:291-319 @ android-6.0.0_r1).
  if (c.sdk < 24) return props + ";";
  // From 7.0 get_connection_string appends supported_features()
  // (adb/adb.cpp:180-204, adb/transport.cpp:783-794 @ android-7.0.0_r1);
  // the set grows with the releases (transport.cpp @ 8.0.0_r1:745-755,
  // @ 10.0.0_r1:1045-1063, @ 11.0.0_r1:1172-1193). adbd joins an
  // unordered_set: the real order is the hash's, here the declaration's.
  std::string features = "cmd";
  if (c.sdk >= 26) features += ",stat_v2";
  if (c.sdk >= 30) features += ",ls_v2";
  if (c.sdk >= 29) features += ",fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp,abb_exec";
  if (c.sdk >= 30) features += ",remount_shell,sendrecv_v2,sendrecv_v2_brotli";
  if (opts_.shell_v2) features = "shell_v2," + features;
  return props + ";features=" + features;
}

void SimDevice::listen() {
  using asio::ip::tcp;
  tcp::endpoint ep(asio::ip::address_v4::loopback(), port_ ? port_ : opts_.port);
  acceptor_.open(ep.protocol());
  acceptor_.set_option(tcp::acceptor::reuse_address(true));
  acceptor_.bind(ep);
  acceptor_.listen();
  port_ = acceptor_.local_endpoint().port();
  plugged_ = true;
}

void SimDevice::start() {
  listen();
  accept_loop();
  tick();
}

void SimDevice::stop() {
  stopped_ = true;
  boost::system::error_code ec;
  acceptor_.close(ec);
  tick_timer_.cancel();
  replug_timer_.cancel();
  kick();
}

void SimDevice::accept_loop() {
  auto self = shared_from_this();
  acceptor_.async_accept(strand_, [this, self](boost::system::error_code ec, asio::ip::tcp::socket s) {
    if (ec) {
      if (acceptor_.is_open() && ec != asio::error::operation_aborted) accept_loop();
      return;
    }
    auto c = std::make_shared<Connection>(*this, std::move(s));
    conns_.insert(c);
    c->start();
    accept_loop();
  });
}

void SimDevice::tick() {
  if (stopped_) return;
  model_->advance();
  pump();
  tick_timer_.expires_after(std::chrono::milliseconds(opts_.tick_ms));
  auto self = shared_from_this();
  tick_timer_.async_wait([this, self](boost::system::error_code ec) {
    if (!ec) tick();
  });
}

void SimDevice::pump(bool force) {
  if (!force && model_->logs().next_seq() == pumped_seq_) return;
  pumped_seq_ = model_->logs().next_seq();
  auto copy = conns_;
  for (auto& c : copy) c->pump();
}

void SimDevice::kick() {
  auto copy = conns_;
  conns_.clear();
  for (auto& c : copy) c->close();
}

void SimDevice::unplug(double seconds) {
  boost::system::error_code ec;
  acceptor_.close(ec);
  plugged_ = false;
  kick();
  replug_timer_.cancel();
  if (seconds > 0) {
    replug_timer_.expires_after(std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000)));
    auto self = shared_from_this();
    replug_timer_.async_wait([this, self](boost::system::error_code e) {
      if (!e) replug();
    });
  }
}

void SimDevice::replug() {
  if (plugged_ || stopped_) return;
  replug_timer_.cancel();
  listen();
  accept_loop();
}

void SimDevice::set_hung(bool hung) {
  hung_ = hung;
  if (!hung) {
    auto copy = conns_;
    for (auto& c : copy) c->resume();
  }
}

void SimDevice::garbage(std::size_t bytes) {
  std::mt19937 rng(static_cast<std::uint32_t>(model_->now_mono()));
  std::string junk;
  for (std::size_t i = 0; i < bytes; ++i) {
    char c = static_cast<char>(rng() & 0xff);
    junk += c == '\n' ? '\x80' : c;
  }
  junk += '\n';
  for (auto& c : conns_) c->inject(junk);
}

void SimDevice::corrupt() {
  for (auto& c : conns_) c->send_raw(std::string(24, '\xff'));
}

void SimDevice::cut() {
  bool any = false;
  for (auto& c : conns_) any = c->mark_cut() || any;
  // No stream yet: the next one to send a line gets cut.
  cut_armed_ = !any;
  pumped_seq_ = 0;
}

void SimDevice::logd_restart() {
  // logcat's output already written is not taken back by logd's death: the
  // host still gets it unless the stream dies first (Device::note_read and
  // note_undelivered of the old logd's entries). adb's protocol: the host
  // acknowledges each WRTE with OKAY, and a WRTE for a stream the host has
  // closed is ignored, its data never taken (system/core/adb/protocol.txt,
  // "WRITE(0, remote-id, "data")" and "CLOSE(local-id, remote-id, "")").
  model_->logd_restart();
  // Every following logcat reads EOF now.
  pump(true);
}

void SimDevice::reboot(double away_seconds, double clock_offset_seconds) {
  // adbd goes down with the device first; the model boots at once and runs
  // while the transport is away.
  unplug(std::max(away_seconds, 0.05));
  hung_ = false;  // a wedged adbd comes back healthy
  model_->reboot(static_cast<std::int64_t>(clock_offset_seconds * 1e9));
}

}  // namespace jank::devsim
