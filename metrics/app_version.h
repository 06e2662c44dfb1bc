// An app's installed version as `dumpsys package <pkg>` prints it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace jank::metrics {

struct AppVersion {
  std::string name;                  // versionName (free text; may be empty)
  std::optional<std::int64_t> code;  // versionCode
  friend bool operator==(const AppVersion&, const AppVersion&) = default;
};

}  // namespace jank::metrics
