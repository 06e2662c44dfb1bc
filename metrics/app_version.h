// An app's installed version as `dumpsys package <pkg>` prints it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jank::metrics {

struct AppVersion {
  std::string name;                  // versionName (free text; may be empty)
  std::optional<std::int64_t> code;  // versionCode
  friend bool operator==(const AppVersion&, const AppVersion&) = default;
};

// The package a process belongs to: its name without the ":suffix" of a
// secondary process ("com.example.feed:remote" → "com.example.feed").
inline std::string_view base_package(std::string_view process) {
  return process.substr(0, process.find(':'));
}

}  // namespace jank::metrics
