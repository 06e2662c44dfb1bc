// The time each command takes on the device, by the device's own shell:
// a command sent over shell protocol v2 runs between two stamps that mksh
// prints on stderr (`$EPOCHREALTIME`, seconds.microseconds of the device's
// wall clock; mksh R41 on, in every Android release with shell v2), the
// second with the command's exit status. stdout stays the command's own.
// docs/metrics.md, "Device commands".
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "ingest/device_stream.h"

namespace jank::app {

// `command` between the stamps; the shell's own exit status becomes the
// closing echo's, so the command's travels in the closing stamp.
std::string timed_command(const std::string& command);

enum class DeviceTimeResult : std::uint8_t {
  timed,       // both stamps read, a time within the host's bound
  unstamped,   // a stamp missing or unreadable (a shell without EPOCHREALTIME, a cut answer)
  implausible,  // negative or longer than the host waited: the device's clock moved meanwhile
};

struct DeviceTime {
  DeviceTimeResult result = DeviceTimeResult::unstamped;
  std::chrono::microseconds took{0};
};

// Takes the stamps out of `answer` (its stderr keeps the command's own
// text), sets its exit status from the closing stamp (without one, the
// script never got there: the shell's own status stands), and says how long the command took on the device. The host saw
// it take `host_took`: a device time beyond that is the device's clock moving.
DeviceTime take_device_time(ingest::ShellResult& answer, std::chrono::steady_clock::duration host_took);

}  // namespace jank::app
