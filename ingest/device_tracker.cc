#include "ingest/device_tracker.h"

#include <array>
#include <optional>
#include <random>
#include <utility>

#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>

namespace jank::ingest {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

class DeviceTracker::Impl : public std::enable_shared_from_this<Impl> {
 public:
  Impl(asio::io_context& io, DeviceTrackerOptions options, DeviceTrackerCallbacks callbacks,
       std::function<double()> unit_random)
      : io_(io),
        options_(std::move(options)),
        callbacks_(std::move(callbacks)),
        random_(std::move(unit_random)),
        backoff_(options_.backoff),
        retry_timer_(io),
        poll_timer_(io) {
    if (!random_) {
      random_ = [engine = std::mt19937_64{std::random_device{}()}]() mutable {
        return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
      };
    }
  }

  void start() {
    if (started_) return;
    started_ = true;
    connect();
  }

  void stop() {
    stopped_ = true;
    ++session_;
    teardown();
    retry_timer_.cancel();
  }

  const std::vector<DeviceInfo>& devices() const { return current_; }
  bool up() const { return up_; }
  const DeviceTrackerStats& stats() const { return stats_; }
  const AdbEndpoint& endpoint() const { return options_.endpoint; }

 private:
  Deadline deadline() const { return std::chrono::steady_clock::now() + options_.request_timeout; }

  void connect() {
    auto session = ++session_;
    connecting_ = open_host_stream(io_, options_.endpoint, "host:track-devices-l", deadline(),
                                   [self = shared_from_this(), session](AdbError error, tcp::socket socket) {
                                     if (self->stale(session)) return;
                                     if (error) return self->lose(std::move(error));
                                     self->on_stream(std::move(socket));
                                   });
  }

  bool stale(std::uint64_t session) const { return stopped_ || session != session_; }

  void on_stream(tcp::socket socket) {
    stream_.emplace(std::move(socket));
    up_ = true;
    poll_failures_ = 0;
    ++stats_.connects;
    if (callbacks_.on_server) callbacks_.on_server(ServerEvent{true, {}, {}, backoff_.attempts()});
    if (stopped_) return;
    read_block_length();
    schedule_poll();
  }

  void read_block_length() {
    asio::async_read(*stream_, asio::buffer(head_.data(), head_.size()),
                     [self = shared_from_this(), session = session_](error_code ec, std::size_t) {
                       if (self->stale(session)) return;
                       if (ec) return self->lose(stream_error(ec));
                       auto length = parse_hex4(std::string_view(self->head_.data(), self->head_.size()));
                       if (!length) {
                         return self->lose({AdbErrorKind::protocol, "bad track-devices block length"});
                       }
                       self->read_block(*length);
                     });
  }

  void read_block(std::size_t length) {
    block_.assign(length, '\0');
    asio::async_read(*stream_, asio::buffer(block_), [self = shared_from_this(), session = session_](error_code ec, std::size_t) {
      if (self->stale(session)) return;
      if (ec) return self->lose(stream_error(ec));
      ++self->stats_.blocks;
      // Backoff restarts only once the server has proved itself with a block.
      self->backoff_.reset();
      self->apply(parse_device_list(self->block_, ListFormat::long_));
      if (self->stale(session)) return;
      self->read_block_length();
    });
  }

  static AdbError stream_error(error_code ec) {
    if (ec == asio::error::eof) return {AdbErrorKind::eof, "track-devices stream closed by the server"};
    return {AdbErrorKind::io, "track-devices stream: " + ec.message()};
  }

  void schedule_poll() {
    poll_timer_.expires_after(options_.poll_interval);
    poll_timer_.async_wait([self = shared_from_this(), session = session_](error_code ec) {
      if (ec || self->stale(session)) return;
      self->poll(session);
    });
  }

  void poll(std::uint64_t session) {
    auto blocks_before = stats_.blocks;
    polling_ = query(io_, options_.endpoint, "host:devices-l", deadline(),
                     [self = shared_from_this(), session, blocks_before](AdbError error, std::string payload) {
                       if (self->stale(session)) return;
                       if (error) {
                         ++self->stats_.polls_failed;
                         self->report_stats();
                         if (self->stale(session)) return;
                         if (++self->poll_failures_ >= self->options_.poll_failures_before_loss) {
                           error.message = "device poll: " + error.message;
                           return self->lose(std::move(error));
                         }
                       } else {
                         self->poll_failures_ = 0;
                         ++self->stats_.polls_ok;
                         // An answer older than a block already applied would undo it.
                         if (self->stats_.blocks == blocks_before) {
                           self->apply(parse_device_list(payload, ListFormat::long_));
                         } else {
                           ++self->stats_.polls_discarded;
                           self->report_stats();
                         }
                       }
                       if (!self->stale(session)) self->schedule_poll();
                     });
  }

  void report_stats() {
    if (callbacks_.on_stats) callbacks_.on_stats(stats_);
  }

  void apply(DeviceList list) {
    stats_.lines += list.lines;
    stats_.malformed_lines += list.malformed_lines;
    report_stats();
    auto events = diff_device_lists(current_, list.devices);
    current_ = std::move(list.devices);
    emit(events);
  }

  void emit(const std::vector<DeviceEvent>& events) {
    auto session = session_;
    for (const auto& event : events) {
      if (stale(session)) return;  // a callback stopped us
      if (callbacks_.on_device) callbacks_.on_device(event);
    }
  }

  void teardown() {
    connecting_.cancel();
    polling_.cancel();
    poll_timer_.cancel();
    if (stream_) {
      error_code ignored;
      stream_->shutdown(tcp::socket::shutdown_both, ignored);
      stream_->close(ignored);
      stream_.reset();
    }
  }

  // The server went away (or never answered): every device it had is gone.
  void lose(AdbError error) {
    ++session_;  // invalidates every callback of the old connection
    teardown();
    if (up_) ++stats_.losses;
    up_ = false;
    auto events = diff_device_lists(current_, {});
    current_.clear();
    emit(events);
    if (stopped_) return;
    auto delay = backoff_.next(random_());
    if (callbacks_.on_server) callbacks_.on_server(ServerEvent{false, std::move(error), delay, backoff_.attempts()});
    if (stopped_) return;
    retry_timer_.expires_after(delay);
    retry_timer_.async_wait([self = shared_from_this(), session = session_](error_code ec) {
      if (ec || self->stale(session)) return;
      self->connect();
    });
  }

  asio::io_context& io_;
  DeviceTrackerOptions options_;
  DeviceTrackerCallbacks callbacks_;
  std::function<double()> random_;
  Backoff backoff_;
  asio::steady_timer retry_timer_;
  asio::steady_timer poll_timer_;
  std::optional<tcp::socket> stream_;
  AdbRequest connecting_;
  AdbRequest polling_;
  std::array<char, 4> head_{};
  std::string block_;
  std::vector<DeviceInfo> current_;
  DeviceTrackerStats stats_;
  std::uint64_t session_ = 0;
  std::uint32_t poll_failures_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  bool up_ = false;
};

DeviceTracker::DeviceTracker(asio::io_context& io, DeviceTrackerOptions options, DeviceTrackerCallbacks callbacks,
                             std::function<double()> unit_random)
    : impl_(std::make_shared<Impl>(io, std::move(options), std::move(callbacks), std::move(unit_random))) {}

DeviceTracker::~DeviceTracker() { impl_->stop(); }

void DeviceTracker::start() { impl_->start(); }
void DeviceTracker::stop() { impl_->stop(); }
const std::vector<DeviceInfo>& DeviceTracker::devices() const { return impl_->devices(); }
bool DeviceTracker::server_up() const { return impl_->up(); }
const DeviceTrackerStats& DeviceTracker::stats() const { return impl_->stats(); }
const AdbEndpoint& DeviceTracker::endpoint() const { return impl_->endpoint(); }

}  // namespace jank::ingest
