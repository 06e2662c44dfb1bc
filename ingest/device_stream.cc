#include "ingest/device_stream.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include <boost/asio/steady_timer.hpp>

#include "ingest/shell_v2.h"

namespace jank::ingest {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

class DeviceStream::Impl : public std::enable_shared_from_this<DeviceStream::Impl>, private ShellV2Sink {
 public:
  Impl(asio::io_context& io, ShellProtocol protocol, StreamCallbacks callbacks, StreamOptions options = {})
      : io_(io), socket_(io), batch_timer_(io), protocol_(protocol), callbacks_(std::move(callbacks)),
        options_(options) {}

  void start(const AdbEndpoint& endpoint, const std::string& serial, const std::string& command, Deadline deadline) {
    auto service = shell_service(protocol_, command);
    if (!service) {
      auto self = shared_from_this();
      asio::post(io_, [self] { self->finish({AdbError{AdbErrorKind::invalid_request, "bad shell command"}, {}, {}, {}}); });
      return;
    }
    auto weak = weak_from_this();
    request_ = open_device_service(io_, endpoint, serial, *service, deadline,
                                   [weak](AdbError error, tcp::socket socket) {
                                     if (auto self = weak.lock()) self->opened(std::move(error), std::move(socket));
                                   });
  }

  void close() {
    closed_ = true;
    request_.cancel();
    batch_timer_.cancel();
    boost::system::error_code ignored;
    socket_.close(ignored);
    callbacks_ = {};  // they may own whoever owns us
    release_buffer();
  }

  std::string error_output;  // the first kMaxErrorOutput bytes of stderr
  std::string error_tail;    // its last kErrorTail bytes (more until trimmed)

 private:
  void opened(AdbError error, tcp::socket socket) {
    if (closed_) return;
    if (error) return finish({std::move(error), {}, {}, {}});
    socket_ = std::move(socket);
    read();
  }

  void read() {
    // Not zeroed: a read fills what it reports, and untouched pages cost no memory.
    if (!buffer_) buffer_ = std::make_unique_for_overwrite<char[]>(kReadBuffer);
    reading_ = true;
    auto self = shared_from_this();
    socket_.async_read_some(asio::buffer(buffer_.get(), kReadBuffer),
                            [self](boost::system::error_code ec, std::size_t n) { self->on_read(ec, n); });
  }

  void on_read(boost::system::error_code ec, std::size_t n) {
    // reading_ stays set while the chunk is handed on: a callback may close us.
    if (closed_) return done_reading();
    if (n > 0) {
      const std::string_view chunk(buffer_.get(), n);
      if (protocol_ == ShellProtocol::v2) {
        if (demux_.feed(chunk, *this) != ShellV2Error::none) {
          done_reading();
          return finish({AdbError{AdbErrorKind::protocol, "bad shell v2 stream"}, {}, {}, {}});
        }
      } else if (callbacks_.on_data) {
        callbacks_.on_data(chunk);
      }
      if (closed_) return done_reading();  // a callback closed us
    }
    reading_ = false;
    if (ec) {
      // EOF: legacy shell has no other end; v2 should have sent its exit packet.
      StreamEnd end;
      end.error_output = error_output;
      end.error_tail = tail();
      if (protocol_ == ShellProtocol::v2 && exit_code_) {
        end.exit_code = exit_code_;
      } else if (protocol_ == ShellProtocol::legacy && ec == asio::error::eof) {
        // normal end of a legacy command
      } else {
        end.error = AdbError{ec == asio::error::eof ? AdbErrorKind::eof : AdbErrorKind::io, ec.message()};
      }
      return finish(std::move(end));
    }
    if (options_.read_batch.count() > 0 && n < kReadBuffer / 2) return read_later();
    read();
  }

  // Timers land on shared ticks so that many streams are served per wake-up.
  void read_later() {
    using namespace std::chrono;
    const auto batch = options_.read_batch;
    const auto tick = std::max(batch / 4, milliseconds(1));
    const auto due = steady_clock::now().time_since_epoch() + batch;
    const auto aligned = (duration_cast<milliseconds>(due) / tick + 1) * tick;
    batch_timer_.expires_at(steady_clock::time_point(aligned));
    auto self = shared_from_this();
    batch_timer_.async_wait([self](boost::system::error_code ec) {
      if (ec || self->closed_) return;
      self->read();
    });
  }

  void on_stdout(std::string_view bytes_in) override {
    if (callbacks_.on_data) callbacks_.on_data(bytes_in);
  }
  void on_stderr(std::string_view bytes_in) override {
    const std::size_t room = kMaxErrorOutput - std::min(kMaxErrorOutput, error_output.size());
    error_output.append(bytes_in.substr(0, room));
    // Trimmed when twice its size: a flood of stderr costs no quadratic copying.
    error_tail.append(bytes_in.substr(bytes_in.size() - std::min(bytes_in.size(), kErrorTail)));
    if (error_tail.size() > 2 * kErrorTail) error_tail.erase(0, error_tail.size() - kErrorTail);
  }

 public:
  std::string tail() const {
    return error_tail.size() > kErrorTail ? error_tail.substr(error_tail.size() - kErrorTail) : error_tail;
  }

 private:
  void on_exit(std::uint8_t code) override { exit_code_ = code; }

  void finish(StreamEnd end) {
    if (closed_) return;
    closed_ = true;
    batch_timer_.cancel();
    boost::system::error_code ignored;
    socket_.close(ignored);
    release_buffer();
    auto callbacks = std::move(callbacks_);
    callbacks_ = {};
    if (callbacks.on_end) callbacks.on_end(end);
  }

  asio::io_context& io_;
  tcp::socket socket_;
  asio::steady_timer batch_timer_;
  ShellProtocol protocol_;
  StreamCallbacks callbacks_;
  StreamOptions options_;
  AdbRequest request_;
  ShellV2Demuxer demux_;
  // The read buffer is held only while the stream reads: its owner often
  // keeps a finished command's stream until the next command, and a device
  // has several such parts (issue 31: 64 KiB each, 136 MiB at 500 devices).
  // A pending read owns it until its handler runs.
  void release_buffer() {
    if (!reading_) buffer_.reset();
  }
  void done_reading() {
    reading_ = false;
    release_buffer();
  }
  static constexpr std::size_t kReadBuffer = 64 * 1024;

  std::optional<int> exit_code_;
  std::unique_ptr<char[]> buffer_;
  bool reading_ = false;  // an async_read_some is pending: it may write into buffer_
  bool closed_ = false;
};

std::shared_ptr<DeviceStream> DeviceStream::open(asio::io_context& io, const AdbEndpoint& endpoint,
                                                 const std::string& serial, ShellProtocol protocol,
                                                 const std::string& command, Deadline open_deadline,
                                                 StreamCallbacks callbacks, StreamOptions options) {
  auto impl = std::make_shared<Impl>(io, protocol, std::move(callbacks), options);
  impl->start(endpoint, serial, command, open_deadline);
  return std::make_shared<DeviceStream>(impl);
}

void DeviceStream::close() {
  if (impl_) impl_->close();
}


std::string DeviceStream::error_output() const { return impl_ ? impl_->error_output : std::string(); }

namespace {

// Collects a command's output under one deadline.
struct ShellCall : std::enable_shared_from_this<ShellCall> {
  ShellCall(asio::io_context& io, std::size_t max, std::function<void(ShellResult)> on_done)
      : timer(io), max_output(max), handler(std::move(on_done)) {}
  asio::steady_timer timer;
  std::size_t max_output;
  std::function<void(ShellResult)> handler;
  ShellResult result;
  std::shared_ptr<DeviceStream> stream;
  bool done = false;

  void complete() {
    if (done) return;
    done = true;
    timer.cancel();
    if (stream && result.error_output.empty()) result.error_output = stream->error_output();  // cut short
    if (stream) stream->close();
    stream.reset();
    auto h = std::move(handler);
    h(std::move(result));
  }
};

}  // namespace

std::shared_ptr<DeviceStream> run_shell(asio::io_context& io, const AdbEndpoint& endpoint, const std::string& serial,
                                        ShellProtocol protocol, const std::string& command, Deadline deadline,
                                        std::size_t max_output, std::function<void(ShellResult)> handler) {
  auto call = std::make_shared<ShellCall>(io, max_output, std::move(handler));
  StreamCallbacks callbacks;
  callbacks.on_data = [call](std::string_view bytes) {
    if (call->result.truncated) return;
    const std::size_t room = call->max_output - std::min(call->max_output, call->result.output.size());
    call->result.output.append(bytes.substr(0, room));
    if (bytes.size() > room) {
      // Past the cap: stop reading rather than drain a runaway output until the
      // deadline. Completed from the io_context, not inside the stream's callback.
      call->result.truncated = true;
      asio::post(call->timer.get_executor(), [call] { call->complete(); });
    }
  };
  callbacks.on_end = [call](const StreamEnd& end) {
    call->result.error = end.error;
    call->result.exit_code = end.exit_code;
    call->result.error_output = end.error_output;
    call->result.error_tail = end.error_tail;
    call->complete();
  };
  call->stream = DeviceStream::open(io, endpoint, serial, protocol, command, deadline, std::move(callbacks));
  call->timer.expires_at(deadline);
  call->timer.async_wait([call](boost::system::error_code ec) {
    if (ec) return;
    call->result.error = AdbError{AdbErrorKind::timeout, "device did not finish the command in time"};
    call->complete();
  });
  return call->stream;
}

std::string failure_text(const AdbError& error, std::optional<int> exit_code, std::string_view error_output) {
  std::string out;
  if (error) out = error.to_string();
  if (exit_code && *exit_code != 0) out += (out.empty() ? "" : ", ") + std::string("exit status ") + std::to_string(*exit_code);
  // The first line that says something: tools print their reason first.
  std::string_view line;
  while (!error_output.empty() && line.empty()) {
    const auto nl = error_output.find('\n');
    line = error_output.substr(0, nl);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    error_output = nl == std::string_view::npos ? std::string_view() : error_output.substr(nl + 1);
  }
  if (!line.empty()) out += (out.empty() ? "" : ": ") + std::string(line);
  return out;
}

std::string_view shell_result_name(const ShellResult& r) {
  if (r.error.kind == AdbErrorKind::timeout) return "timeout";
  if (r.error) return "error";
  return r.truncated ? "truncated" : "ok";
}

}  // namespace jank::ingest
