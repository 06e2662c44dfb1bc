// The adb host ("smart socket") protocol as pure functions: request framing,
// status words, device lists and their differences, shell quoting and
// service strings. No I/O, no exceptions for bad input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jank::ingest {

// Four hex digits give the length; the server also rejects 0.
inline constexpr std::size_t kMaxRequestBytes = 65535;
// A device service plus its NUL must fit in one OPEN packet of an old device
// (maxdata 4096); the 29.0.6 server aborts otherwise.
inline constexpr std::size_t kMaxServiceBytes = 4095;

// "000chost:version" for "host:version"; nullopt when empty or longer than
// kMaxRequestBytes.
std::optional<std::string> encode_request(std::string_view payload);

// Four hex digits (either case) as a length; nullopt for anything else.
std::optional<std::uint16_t> parse_hex4(std::string_view text);

enum class Status : std::uint8_t { okay, fail, invalid };
// The 4-byte status word that starts every reply.
Status parse_status(std::string_view word);

// Requests this library builds.
std::string transport_request(std::string_view serial);  // host:transport:<serial>
std::string features_request(std::string_view serial);   // host-serial:<serial>:features

// ---- device lists (host:devices, host:devices-l and their track- streams) ----

struct DeviceInfo {
  std::string serial;
  std::string state;     // device, offline, unauthorized, "no permissions (...)", ...
  std::string usb;       // devpath without "usb:" (USB devices only)
  std::string product;
  std::string model;
  std::string device;
  std::optional<std::uint64_t> transport_id;
  std::vector<std::string> features;                         // if a server lists them
  std::vector<std::pair<std::string, std::string>> extra;    // keys this code does not know
  friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

enum class ListFormat : std::uint8_t {
  plain,  // host:devices: "serial\tstate\n"
  long_,  // host:devices-l: "%-22s %s" serial/state, then " key:value"...
};

struct DeviceList {
  std::vector<DeviceInfo> devices;  // in server order, one per serial (first wins)
  std::size_t lines = 0;            // non-empty lines read
  std::size_t malformed_lines = 0;  // of those, lines skipped because they did not parse
  std::size_t duplicate_serials = 0;
};

DeviceList parse_device_list(std::string_view payload, ListFormat format);

enum class DeviceChange : std::uint8_t { added, changed, removed };

struct DeviceEvent {
  DeviceChange change = DeviceChange::added;
  std::string serial;
  std::string old_state;  // empty when added
  std::string new_state;  // empty when removed
  DeviceInfo info;        // the new facts, or the last known ones when removed
};

// Events that turn `before` into `after`, ordered by serial. A device whose
// state is unchanged but whose facts differ (a new transport_id after a fast
// replug, say) is reported as changed.
std::vector<DeviceEvent> diff_device_lists(const std::vector<DeviceInfo>& before,
                                           const std::vector<DeviceInfo>& after);

// "host-serial:<s>:features" reply: comma-separated names.
std::vector<std::string> parse_features(std::string_view payload);
bool has_feature(const std::vector<std::string>& features, std::string_view name);

// ---- shell commands and services ----

// POSIX single quotes, as adb's escape_arg: ' becomes '\''.
std::string shell_quote(std::string_view arg);
// Each argument quoted, joined by spaces.
std::string quote_args(std::initializer_list<std::string_view> args);
std::string quote_args(const std::vector<std::string>& args);
// What `adb logcat ARGS` runs: ANDROID_LOG_TAGS is reset so a device-side
// default filter cannot hide lines. `replace_shell`: logcat replaces the
// shell (`exec`), as for a stream; a one-shot dump keeps it, so that what the
// script does after logcat (a command's closing time stamp) still runs.
std::string logcat_command(const std::vector<std::string>& args, bool replace_shell = true);


enum class ShellProtocol : std::uint8_t { v2, legacy };
// v2 when the device's features list shell_v2.
ShellProtocol shell_protocol_for(const std::vector<std::string>& features);
// "shell,v2,raw:<cmd>" or "shell:<cmd>"; nullopt when the command is empty,
// contains NUL, or the service would exceed kMaxServiceBytes.
std::optional<std::string> shell_service(ShellProtocol protocol, std::string_view command);

}  // namespace jank::ingest
