// `getprop` listings: one "[key]: [value]" per line; a value may span lines
// (persist.sys.boot.reason.history) and then continues until a line that ends
// with ']'. Pure function over decoded UTF-8 text (CRLF tolerated); values
// are kept byte for byte, non-ASCII included.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace jank::parsers {

struct Properties {
  std::map<std::string, std::string, std::less<>> values;  // a repeated key keeps its last value
  std::uint64_t malformed_lines = 0;   // non-empty lines that are not part of a property
  bool command_echo = false;           // the first line was a prompt/echoed `getprop`, not counted as malformed
};

Properties parse_properties(std::string_view getprop_output);

// The facts the daemon labels a device with. Absent or unparsable → nullopt.
struct DeviceFacts {
  std::optional<std::string> model;         // ro.product.model
  std::optional<std::string> manufacturer;  // ro.product.manufacturer
  std::optional<std::int32_t> sdk;          // ro.build.version.sdk
  std::optional<std::string> release;       // ro.build.version.release (may disagree with the fingerprint)
  std::optional<std::string> fingerprint;   // ro.build.fingerprint (never the vendor/system variants)
  std::optional<std::int32_t> choreographer_skipwarning;  // debug.choreographer.skipwarning (frames)
  std::optional<bool> debuggable;           // ro.debuggable == "1"
  std::optional<std::string> build_type;    // ro.build.type (user, userdebug, eng)
};

DeviceFacts device_facts(const Properties& props);

}  // namespace jank::parsers
