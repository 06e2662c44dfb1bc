// Where an adb server listens, as given by --adb, ADB_SERVER_SOCKET or
// ANDROID_ADB_SERVER_PORT.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jank::ingest {

struct AdbEndpoint {
  std::string host = "127.0.0.1";  // IP literal (v4 or v6, no brackets) or a host name
  std::uint16_t port = 5037;

  // "HOST:PORT", with brackets around IPv6 literals.
  std::string to_string() const;
  friend bool operator==(const AdbEndpoint&, const AdbEndpoint&) = default;
};

// Accepts "HOST:PORT", "[V6]:PORT", and ADB_SERVER_SOCKET's "tcp:HOST:PORT" and
// "tcp:PORT" (host 127.0.0.1). Bare IPv6 without brackets is ambiguous and rejected.
std::optional<AdbEndpoint> parse_endpoint(std::string_view text);

struct EndpointChoice {
  std::optional<AdbEndpoint> endpoint;  // empty when the variable is set but invalid
  std::string error;                    // why, naming the variable
};

// The default server as the adb CLI finds it: ADB_SERVER_SOCKET, else
// 127.0.0.1:$ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037. Arguments are the
// variables' values (null when unset) so that this stays pure.
EndpointChoice default_endpoint(const char* adb_server_socket, const char* android_adb_server_port);
// Same, reading the process environment.
EndpointChoice default_endpoint_from_environment();

}  // namespace jank::ingest
