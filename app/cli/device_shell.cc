#include "app/cli/device_shell.h"

#include <optional>
#include <utility>

#include "ingest/client.h"

namespace jank::app {

DeviceShell::DeviceShell(ingest::AdbEndpoint endpoint, std::string serial, std::chrono::milliseconds timeout)
    : endpoint_(std::move(endpoint)), serial_(std::move(serial)), timeout_(timeout) {}

bool DeviceShell::connect() {
  std::optional<ingest::AdbError> failed;
  std::string payload;
  ingest::query(io_, endpoint_, ingest::features_request(serial_), deadline(),
                [&](ingest::AdbError error, std::string reply) {
                  if (error) failed = std::move(error);
                  payload = std::move(reply);
                });
  io_.restart();
  io_.run();
  if (failed) {
    why_ = "features of " + serial_ + ": " + failed->to_string();
    return false;
  }
  protocol_ = ingest::shell_protocol_for(ingest::parse_features(payload));
  return true;
}

ingest::ShellResult DeviceShell::run(const std::string& command, std::size_t max_output) {
  ingest::ShellResult result;
  ingest::run_shell(io_, endpoint_, serial_, protocol_, command, deadline(), max_output,
                    [&](ingest::ShellResult r) { result = std::move(r); });
  io_.restart();
  io_.run();
  return result;
}

}  // namespace jank::app
