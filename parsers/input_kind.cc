#include "parsers/input_kind.h"

#include <array>

#include "parsers/sf_layers.h"
#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

// Leading lines that are not data (a shell prompt with the command, an echo)
// tolerated before the period line of an sf_latency capture.
constexpr int kMaxPreambleLines = 2;

int count_int_tokens(std::string_view line) {
  int count = 0;
  scan::Tokens tokens(line);
  std::string_view tok;
  while (tokens.next(tok)) {
    if (!scan::parse_int<std::int64_t>(tok)) return -1;
    ++count;
  }
  return count;
}

// The head of an input may end inside a line: judge complete lines only.
std::string_view complete_lines(std::string_view text) {
  const std::size_t nl = text.rfind('\n');
  return nl == std::string_view::npos ? text : text.substr(0, nl + 1);
}

bool looks_like_sf_latency(std::string_view text) {
  scan::Lines lines(text);
  std::string_view raw;
  int preamble = 0;
  bool have_period = false;
  while (lines.next(raw)) {
    std::string_view line = scan::trim(raw);
    if (line.empty()) continue;
    int n = count_int_tokens(line);
    if (n == 1) {
      have_period = true;  // the first output's, or the next one's
    } else if (n == 3 && have_period) {
      continue;
    } else if (n < 0 && line.find("--latency") != std::string_view::npos) {
      continue;  // the command of the output that follows
    } else if (have_period || ++preamble > kMaxPreambleLines) {
      return false;
    }
  }
  return have_period;
}

bool looks_like_sf_layer_list(std::string_view text) {
  scan::Lines lines(text);
  std::string_view raw;
  int preamble = 0;
  bool have_layer = false;
  while (lines.next(raw)) {
    std::string_view line = scan::trim(raw);
    if (line.empty()) continue;
    if ((line.starts_with("RequestedLayerState{") && line.ends_with("}")) || strip_layer_suffix(line).size() < line.size()) {
      have_layer = true;
    } else if (have_layer || ++preamble > kMaxPreambleLines) {
      return false;
    }
  }
  return have_layer;
}

bool looks_like_power_state(std::string_view text) {
  if (text.find("POWER MANAGER (dumpsys power)") != std::string_view::npos) return true;
  scan::Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    std::string_view line = scan::trim(raw);
    if (line.starts_with("mWakefulness=") || line.starts_with("Display Power: state=")) return true;
  }
  return false;
}

bool looks_like_frametimeline(std::string_view text) {
  scan::Lines lines(text);
  std::string_view raw;
  bool display_frame = false, frame_key = false;
  while (lines.next(raw)) {
    const std::string_view line = scan::trim(raw);
    if (line.starts_with("Display Frame ") && line.size() > 14 && line[14] >= '0' && line[14] <= '9') display_frame = true;
    if (line.starts_with("Prediction State") || line.starts_with("Layer - ")) frame_key = true;
    if (display_frame && frame_key) return true;
  }
  return false;
}

bool looks_like_timestats(std::string_view text) {
  scan::Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    if (scan::trim(raw) == "SurfaceFlinger TimeStats:") return true;
  }
  return false;
}

bool looks_like_gfxinfo(std::string_view text) {
  static constexpr std::array<std::string_view, 3> kMarkers = {
      "** Graphics info for pid", "Applications Graphics Acceleration Info:", "---PROFILEDATA---"};
  for (std::string_view m : kMarkers) {
    if (text.find(m) != std::string_view::npos) return true;
  }
  // Excerpts that kept only a stats block: no logcat line starts with this.
  scan::Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    std::string_view line = scan::trim(raw);
    if (line.starts_with("Stats since:") && line.ends_with("ns")) return true;
  }
  return false;
}

bool looks_like_thermal(std::string_view text) {
  scan::Lines lines(text);
  std::string_view raw;
  while (lines.next(raw)) {
    std::string_view line = scan::trim(raw);
    if (line.starts_with("Thermal Status:") || line.starts_with("IsStatusOverride:") ||
        line == "Current temperatures from HAL:" || line == "Cached temperatures:") {
      return true;
    }
  }
  return false;
}

}  // namespace

InputKind detect_input_kind(std::string_view text) {
  text = complete_lines(scan::strip_utf8_bom(text));
  if (looks_like_gfxinfo(text)) return InputKind::gfxinfo;
  if (looks_like_frametimeline(text)) return InputKind::frametimeline;
  if (looks_like_timestats(text)) return InputKind::timestats;
  if (looks_like_power_state(text)) return InputKind::power_state;
  if (looks_like_thermal(text)) return InputKind::thermal;
  if (looks_like_sf_latency(text)) return InputKind::sf_latency;
  if (looks_like_sf_layer_list(text)) return InputKind::sf_layer_list;
  return InputKind::logcat;
}

}  // namespace jank::parsers
