// Device shell commands over the host protocol: a long-lived output stream
// (logcat) and one-shot commands with a deadline and an output cap. Output is
// demultiplexed from shell protocol v2 when the device speaks it.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>

#include "ingest/client.h"
#include "ingest/endpoint.h"
#include "ingest/protocol.h"

namespace jank::ingest {

// What a command wrote to stderr is kept up to this many bytes: enough for
// the reason a tool gives ("Unable to open log device 'main,system'"), never
// a flood's worth.
inline constexpr std::size_t kMaxErrorOutput = 512;
// And its last bytes up to this many, where a timed command's closing stamp
// is (app/session/device_timing.h) whatever the command wrote before it.
inline constexpr std::size_t kErrorTail = 256;

struct StreamEnd {
  AdbError error;                 // none when the command ended by itself
  std::optional<int> exit_code;   // shell v2 only
  std::string error_output;       // stderr, shell v2 only (legacy merges it into stdout)
  std::string error_tail;         // its last kErrorTail bytes
};

struct StreamOptions {
  // After a read that did not fill half the buffer, wait until the next
  // multiple of `batch / 4` at least `batch` away before reading again: data
  // piles up in the socket and streams share wake-ups. 0: read at once.
  std::chrono::milliseconds read_batch{0};
};

struct StreamCallbacks {
  std::function<void(std::string_view stdout_bytes)> on_data;
  std::function<void(const StreamEnd&)> on_end;  // exactly once, unless close() came first
};

class DeviceStream : public std::enable_shared_from_this<DeviceStream> {
 public:
  // Opens `command` on `serial`; `open_deadline` bounds the transport switch
  // and the service OPEN. Callbacks run on the io_context.
  static std::shared_ptr<DeviceStream> open(boost::asio::io_context& io, const AdbEndpoint& endpoint,
                                            const std::string& serial, ShellProtocol protocol,
                                            const std::string& command, Deadline open_deadline,
                                            StreamCallbacks callbacks, StreamOptions options = {});
  // Stops reading and closes the socket; no callback runs afterwards.
  void close();
  // What the command wrote to stderr so far (shell v2), at most kMaxErrorOutput bytes.
  std::string error_output() const;

  class Impl;
  explicit DeviceStream(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<Impl> impl_;
};

struct ShellResult {
  AdbError error;                // timeout, transport errors …
  std::optional<int> exit_code;  // shell v2 only
  std::string output;            // stdout (legacy shell: stdout and stderr merged)
  bool truncated = false;        // output beyond max_output was dropped
  std::string error_output;      // stderr (shell v2), at most kMaxErrorOutput bytes
  std::string error_tail;        // the last kErrorTail bytes of stderr (shell v2)
};
// The result as a metric label: "ok", "timeout", "error" or "truncated".
std::string_view shell_result_name(const ShellResult& result);

// Why a command or stream failed, for a person: the transport's error, the
// exit status and the first line of what the device wrote to stderr
// ("exit status 1: Unable to open log device 'main,system'"); "" when none.
std::string failure_text(const AdbError& error, std::optional<int> exit_code, std::string_view error_output);
inline std::string failure_text(const ShellResult& r) { return failure_text(r.error, r.exit_code, r.error_output); }
inline std::string failure_text(const StreamEnd& e) { return failure_text(e.error, e.exit_code, e.error_output); }

// Runs one command; the handler runs once, on the io_context. The deadline
// covers everything: a device that stops answering cannot hold the call.
std::shared_ptr<DeviceStream> run_shell(boost::asio::io_context& io, const AdbEndpoint& endpoint,
                                        const std::string& serial, ShellProtocol protocol,
                                        const std::string& command, Deadline deadline, std::size_t max_output,
                                        std::function<void(ShellResult)> handler);

}  // namespace jank::ingest
