// Minimal leveled logging to stderr (journald adds time and unit). Thread-safe.
#pragma once

#include <string_view>

namespace jank::app {

enum class LogLevel { debug, info, warning, error };

void set_log_level(LogLevel level);
bool parse_log_level(std::string_view name, LogLevel& out);
void log(LogLevel level, std::string_view message);

inline void log_debug(std::string_view m) { log(LogLevel::debug, m); }
inline void log_info(std::string_view m) { log(LogLevel::info, m); }
inline void log_warning(std::string_view m) { log(LogLevel::warning, m); }
inline void log_error(std::string_view m) { log(LogLevel::error, m); }

}  // namespace jank::app
