#include "app/session/command_kind.h"

#include <array>
#include <string>
#include <utility>

namespace jank::app {

std::string_view command_kind(std::string_view command) {
  // The words without their quotes: session parts quote arguments ('dumpsys' 'gfxinfo' …).
  std::string words;
  words.reserve(std::min<std::size_t>(command.size(), 96));
  for (const char c : command.substr(0, 96)) {
    if (c != '\'') words += c;
  }
  const std::string_view w = words;
  // Most specific first: every SurfaceFlinger command starts alike.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 22> kPrefixes = {{
      {"grep -s -H ^cpu ", "resources"},
      {"dumpsys gfxinfo ", "gfxinfo"},
      {"dumpsys SurfaceFlinger --latency", "sf_latency"},
      {"dumpsys SurfaceFlinger --list", "sf_list"},
      {"dumpsys SurfaceFlinger --frametimeline", "frametimeline"},
      {"dumpsys SurfaceFlinger --timestats", "timestats"},
      {"dumpsys SurfaceFlinger", "surfaceflinger"},
      {"dumpsys power", "power"},
      {"dumpsys thermalservice", "thermal"},
      {"dumpsys battery", "battery"},
      {"dumpsys graphicsstats", "graphicsstats"},
      {"dumpsys window", "window"},
      {"dumpsys display", "display"},
      {"dumpsys package ", "package"},
      {"getprop", "getprop"},
      {"setprop ", "setprop"},
      {"ps", "ps"},
      {"pidof perfetto", "perfetto"},
      {"trigger_perfetto", "perfetto"},
      {"rm -f /data/misc/perfetto-traces/", "perfetto"},
      {"cat /data/misc/perfetto-traces/", "perfetto"},
      {"echo alive", "probe"},
  }};
  for (const auto& [prefix, kind] : kPrefixes) {
    if (w.starts_with(prefix) && (prefix != "ps" || w.size() == 2 || w[2] == ' ')) return kind;
  }
  if (w.find("logcat") != std::string_view::npos) return "logcat";
  if (w.starts_with("cat /proc/") || w.starts_with("kill ")) return "perfetto";  // the recorder's process checks
  return "other";
}

bool is_frame_by_frame(std::string_view command) {
  const std::string_view kind = command_kind(command);
  return kind == "sf_latency" || kind == "frametimeline" ||
         (kind == "gfxinfo" && command.find("framestats") != std::string_view::npos);
}

}  // namespace jank::app
