#include "app/core/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "parsers/utf8.h"

namespace jank::app {
namespace {
std::atomic<LogLevel> g_level{LogLevel::info};
std::mutex g_mutex;
}  // namespace

void set_log_level(LogLevel level) { g_level = level; }

bool parse_log_level(std::string_view name, LogLevel& out) {
  if (name == "debug") out = LogLevel::debug;
  else if (name == "info") out = LogLevel::info;
  else if (name == "warning") out = LogLevel::warning;
  else if (name == "error") out = LogLevel::error;
  else return false;
  return true;
}

void log(LogLevel level, std::string_view message) {
  if (level < g_level.load()) return;
  // Under systemd, "<N>" prefixes carry the syslog priority to the journal.
  static const bool journal = std::getenv("JOURNAL_STREAM") != nullptr;
  static constexpr const char* kJournal[] = {"<7>", "<6>", "<4>", "<3>"};
  static constexpr const char* kName[] = {"debug: ", "", "warning: ", "error: "};
  const int i = static_cast<int>(level);
  // Messages quote devices and clients: a newline or an escape sequence in a
  // model name must not forge a log record or drive the reader's terminal.
  const std::string text = parsers::terminal_text(message);
  std::lock_guard<std::mutex> lock(g_mutex);
  std::fprintf(stderr, "%s%s%.*s\n", journal ? kJournal[i] : "", kName[i], static_cast<int>(text.size()), text.data());
  std::fflush(stderr);
}

}  // namespace jank::app
