// One device's shell for a command-line tool: each call runs one command to
// its end (or its deadline) and returns its result. The daemon's sessions
// run commands asynchronously; a tool that measures one device in steps
// (`observer-test`) wants them one at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include <boost/asio/io_context.hpp>

#include "ingest/device_stream.h"
#include "ingest/endpoint.h"
#include "ingest/protocol.h"

namespace jank::app {

class DeviceShell {
 public:
  DeviceShell(ingest::AdbEndpoint endpoint, std::string serial, std::chrono::milliseconds timeout);

  // Asks the server for the device's features (shell protocol v2 or the
  // legacy one). False, with why(), when the server or the device does not answer.
  bool connect();
  const std::string& why() const { return why_; }

  ingest::ShellResult run(const std::string& command, std::size_t max_output);
  ingest::ShellProtocol protocol() const { return protocol_; }
  const std::string& serial() const { return serial_; }

 private:
  ingest::Deadline deadline() const { return std::chrono::steady_clock::now() + timeout_; }

  boost::asio::io_context io_;
  ingest::AdbEndpoint endpoint_;
  std::string serial_;
  std::chrono::milliseconds timeout_;
  ingest::ShellProtocol protocol_ = ingest::ShellProtocol::legacy;
  std::string why_;
};

}  // namespace jank::app
