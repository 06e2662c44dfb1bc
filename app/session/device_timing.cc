#include "app/session/device_timing.h"

#include <string_view>

#include "parsers/text_scan.h"

namespace jank::app {
namespace {

constexpr std::string_view kStamp = "@jank_exporter_time ";

// "1700000000.123456" as microseconds; mksh prints "%u.%06u".
std::optional<std::int64_t> epoch_us(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos || text.size() - dot - 1 != 6) return std::nullopt;
  std::int64_t seconds = 0, micros = 0;
  if (!parsers::scan::parse_into(text.substr(0, dot), seconds) ||
      !parsers::scan::parse_into(text.substr(dot + 1), micros) || seconds < 0 || micros < 0 ||
      seconds > 100'000'000'000) {
    return std::nullopt;
  }
  return seconds * 1'000'000 + micros;
}

// The text of a stamp line at `line`'s start ("@jank_exporter_time X[ Y]\n"), or nullopt.
std::optional<std::string_view> stamp_of(std::string_view line) {
  if (!line.starts_with(kStamp)) return std::nullopt;
  line.remove_prefix(kStamp.size());
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  return line;
}

}  // namespace

std::string timed_command(const std::string& command) {
  return "echo \"" + std::string(kStamp) + "$EPOCHREALTIME\" >&2; " + command + "; echo \"" + std::string(kStamp) +
         "$? $EPOCHREALTIME\" >&2";
}

DeviceTime take_device_time(ingest::ShellResult& answer, std::chrono::steady_clock::duration host_took) {
  DeviceTime out;
  // The opening stamp: the first line of stderr.
  std::optional<std::int64_t> start;
  std::string& err = answer.error_output;
  const std::size_t first_end = err.find('\n');
  if (const auto opening = stamp_of(std::string_view(err).substr(0, first_end)); opening && first_end != std::string::npos) {
    start = epoch_us(*opening);
    err.erase(0, first_end + 1);
  }
  // The closing stamp ends stderr, "STATUS EPOCH" (after the command's own
  // last line, on it when that had no line end).
  std::optional<std::int64_t> end;
  std::string& tail = answer.error_tail;
  std::string_view t = tail;
  while (!t.empty() && t.back() == '\n') t.remove_suffix(1);
  const std::size_t found = t.rfind(kStamp);
  const std::size_t line_start = found == std::string_view::npos ? t.size() : found;
  // Only "STATUS EPOCH" closes: the opening stamp has no status.
  const auto closing = stamp_of(t.substr(line_start));
  const std::size_t space = closing ? closing->find(' ') : std::string_view::npos;
  if (space != std::string_view::npos) {
    int status = 0;
    answer.exit_code.reset();
    if (parsers::scan::parse_into(closing->substr(0, space), status) && status >= 0 && status <= 255) {
      answer.exit_code = status;
    }
    end = epoch_us(closing->substr(space + 1));
    // Out of the command's stderr too, when it is there whole.
    const std::string line = std::string(t.substr(line_start)) + "\n";
    if (err.ends_with(line)) err.erase(err.size() - line.size());
    tail.erase(line_start);
  }
  if (!start || !end) return out;
  const auto took = std::chrono::microseconds(*end - *start);
  if (took.count() < 0 || took > std::chrono::duration_cast<std::chrono::microseconds>(host_took)) {
    out.result = DeviceTimeResult::implausible;
    return out;
  }
  out.result = DeviceTimeResult::timed;
  out.took = took;
  return out;
}

}  // namespace jank::app
