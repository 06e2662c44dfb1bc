#include "parsers/frametimeline.h"

#include <array>

#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

// SurfaceFlinger keeps 64 display frames (2048 at most, through a root-only
// backdoor); the caps only guard against hostile input.
constexpr std::size_t kMaxDisplayFrames = 4096;
constexpr std::size_t kMaxSurfaceFramesPerDisplayFrame = 1024;
constexpr std::size_t kMaxLayerNameBytes = 1024;

struct JankName {
  std::string_view text;
  std::uint32_t bit;
};
// Every name jankTypeBitmaskToString printed on Android 12-16.
constexpr std::array<JankName, 13> kJankNames = {{
    {"Display HAL", kJankDisplayHal},
    {"SurfaceFlinger CPU Deadline Missed", kJankSfCpuDeadlineMissed},           // 12, 13
    {"SurfaceFlinger deadline missed (while in HWC)", kJankSfCpuDeadlineMissed},  // 14+
    {"SurfaceFlinger GPU Deadline Missed", kJankSfGpuDeadlineMissed},           // 12, 13
    {"SurfaceFlinger deadline missed (while in GPU comp)", kJankSfGpuDeadlineMissed},  // 14+
    {"App Deadline Missed", kJankAppDeadlineMissed},
    {"Prediction Error", kJankPredictionError},
    {"SurfaceFlinger Scheduling", kJankSfScheduling},
    {"Buffer Stuffing", kJankBufferStuffing},
    {"Unknown jank", kJankUnknown},
    {"Unknown Jank", kJankUnknown},  // Perfetto's spelling, in hand-made captures
    {"SurfaceFlinger Stuffing", kJankSfStuffing},
    {"Dropped Frame", kJankDropped},  // 15+
}};

std::optional<FtPrediction> prediction_of(std::string_view v) {
  if (v == "Valid") return FtPrediction::valid;
  if (v == "Expired") return FtPrediction::expired;
  if (v == "None") return FtPrediction::none;
  return std::nullopt;
}

std::optional<FtPresentTiming> present_timing_of(std::string_view v) {
  if (v == "On Time Present") return FtPresentTiming::on_time;
  if (v == "Late Present") return FtPresentTiming::late;
  if (v == "Early Present") return FtPresentTiming::early;
  if (v == "Unknown Present") return FtPresentTiming::unknown;
  return std::nullopt;
}

std::optional<FtPresentState> present_state_of(std::string_view v) {
  if (v == "Presented") return FtPresentState::presented;
  if (v == "Dropped") return FtPresentState::dropped;
  if (v == "Unknown") return FtPresentState::unknown;
  return std::nullopt;
}

// "App Deadline Missed, Buffer Stuffing" → bits; unknown names counted.
std::uint32_t jank_of(std::string_view v, bool& all_known, std::uint64_t& unknown_names) {
  all_known = true;
  if (v == "None") return 0;
  std::uint32_t bits = 0;
  while (!v.empty()) {
    const std::size_t comma = v.find(", ");
    const std::string_view name = scan::trim(v.substr(0, comma));
    v = comma == std::string_view::npos ? std::string_view() : v.substr(comma + 2);
    bool found = false;
    for (const auto& known : kJankNames) {
      if (known.text == name) {
        bits |= known.bit;
        found = true;
        break;
      }
    }
    if (!found) {
      all_known = false;
      ++unknown_names;
    }
  }
  return bits;
}

// Strips a trailing janky marker "[*]".
std::string_view without_marker(std::string_view s) {
  s = scan::trim(s);
  if (s.ends_with("[*]")) s = scan::trim(s.substr(0, s.size() - 3));
  return s;
}

class Parser {
 public:
  explicit Parser(FrameTimelineDump& out) : out_(out) {}

  void line(std::string_view line) {
    ++out_.lines;
    if (line.starts_with("Display Frame ")) return display_frame(line.substr(14));
    if (line.starts_with("Layer - ")) return surface_frame(line.substr(8));
    if (is_table_line(line)) return;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return malformed();
    const std::string_view key = scan::trim(line.substr(0, colon));
    const std::string_view value = scan::trim(line.substr(colon + 1));
    if (key == "Number of display frames") {
      const auto n = scan::parse_int<std::int64_t>(value);
      if (!n) return malformed();
      out_.display_frame_count = *n;
      return;
    }
    if (df_ == nullptr) return malformed();
    if (sf_ != nullptr) return surface_key(key, value);
    display_key(key, value);
  }

 private:
  static bool is_table_line(std::string_view line) {
    return line.starts_with("Start time") || line.starts_with("Expected") || line.starts_with("Actual") ||
           (line.starts_with("----") && line.find_first_not_of('-') == std::string_view::npos);
  }

  void malformed() { ++out_.malformed_lines; }

  void display_frame(std::string_view rest) {
    sf_ = nullptr;
    const auto index = scan::parse_int<std::int64_t>(without_marker(rest));
    if (!index || out_.display_frames.size() >= kMaxDisplayFrames) {
      df_ = nullptr;
      return malformed();
    }
    df_ = &out_.display_frames.emplace_back();
    df_->index = *index;
  }

  void surface_frame(std::string_view rest) {
    std::string_view name = without_marker(rest);
    if (name.starts_with("TX - ")) name.remove_prefix(5);
    if (df_ == nullptr || name.empty() || name.size() > kMaxLayerNameBytes ||
        df_->surface_frames.size() >= kMaxSurfaceFramesPerDisplayFrame) {
      sf_ = nullptr;
      return malformed();
    }
    sf_ = &df_->surface_frames.emplace_back();
    sf_->layer = std::string(name);
  }

  void display_key(std::string_view key, std::string_view value) {
    if (key == "Prediction State") {
      if (auto p = prediction_of(value)) return void(df_->prediction = *p);
    } else if (key == "Jank Type") {
      bool known = false;
      df_->jank = jank_of(value, known, out_.unknown_jank_names);
      return;
    } else if (key == "Present Metadata") {
      if (auto t = present_timing_of(value)) return void(df_->present_timing = *t);
    } else if (key == "Vsync Period") {
      if (auto v = scan::parse_double(value)) return void(df_->vsync_period_ms = *v);
    } else if (key == "Finish Metadata" || key == "Start Metadata" || key == "Present delta" ||
               key == "Present delta % refreshrate") {
      return;  // not used; their values are not checked
    }
    malformed();
  }

  void surface_key(std::string_view key, std::string_view value) {
    if (key == "Token") {
      if (auto v = scan::parse_int<std::int64_t>(value)) return void(sf_->token = *v);
    } else if (key == "Is Buffer?") {
      if (value == "0" || value == "1") return void(sf_->is_buffer = value == "1");
    } else if (key == "Owner Pid") {
      if (auto v = scan::parse_int<std::int64_t>(value)) return void(sf_->owner_pid = *v);
    } else if (key == "Scheduled rendering rate") {
      if (value.ends_with(" fps")) {
        if (auto v = scan::parse_int<int>(value.substr(0, value.size() - 4))) {
          if (*v > 0) sf_->render_rate_fps = *v;  // 0: not set
          return;
        }
      }
    } else if (key == "Layer ID") {
      if (auto v = scan::parse_int<std::int64_t>(value)) return void(sf_->layer_id = *v);
    } else if (key == "Present State") {
      if (auto s = present_state_of(value)) return void(sf_->present = *s);
    } else if (key == "Prediction State") {
      if (auto p = prediction_of(value)) return void(sf_->prediction = *p);
    } else if (key == "Jank Type") {
      sf_->jank = jank_of(value, sf_->jank_known, out_.unknown_jank_names);
      return;
    } else if (key == "Present Metadata") {
      if (auto t = present_timing_of(value)) return void(sf_->present_timing = *t);
    } else if (key == "Present delta") {
      if (auto v = scan::parse_double(value)) return void(sf_->present_delta_ms = *v);
    } else if (key == "Finish Metadata" || key == "Last latch time" || key == "Drop time") {
      return;  // not used
    }
    malformed();
  }

  FrameTimelineDump& out_;
  DisplayFrame* df_ = nullptr;
  SurfaceFrame* sf_ = nullptr;
};

}  // namespace

std::string_view jank_bit_name(std::uint32_t bit) {
  switch (bit) {
    case kJankDisplayHal:
      return "display_hal";
    case kJankSfCpuDeadlineMissed:
      return "sf_cpu_deadline_missed";
    case kJankSfGpuDeadlineMissed:
      return "sf_gpu_deadline_missed";
    case kJankAppDeadlineMissed:
      return "app_deadline_missed";
    case kJankPredictionError:
      return "prediction_error";
    case kJankSfScheduling:
      return "sf_scheduling";
    case kJankBufferStuffing:
      return "buffer_stuffing";
    case kJankUnknown:
      return "unknown";
    case kJankSfStuffing:
      return "sf_stuffing";
    case kJankDropped:
      return "dropped";
    default:
      return "";
  }
}

FrameTimelineDump parse_frametimeline(std::string_view text) {
  FrameTimelineDump out;
  Parser parser(out);
  scan::for_each_trimmed_line(text, [&](std::string_view line) { parser.line(line); });
  return out;
}

}  // namespace jank::parsers

namespace jank::parsers {

std::vector<std::string_view> split_frametimeline_polls(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;            // of the current poll
  bool frames = false;              // it has a display frame
  bool counted = false;             // it started with a count line
  std::int64_t last_index = -1;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    const std::string_view line = scan::trim(text.substr(at, (nl == std::string_view::npos ? text.size() : nl) - at));
    bool begins = false;
    if (line.starts_with("Number of display frames")) {
      begins = frames || counted;
      counted = true;
    } else if (line.starts_with("Display Frame ")) {
      const auto index = scan::parse_int<std::int64_t>(without_marker(line.substr(14)));
      if (index) {
        begins = frames && *index <= last_index;
        last_index = *index;
      }
    }
    if (begins && at > start) {
      out.push_back(text.substr(start, at - start));
      start = at;
      frames = false;
      counted = line.starts_with("Number of display frames");
      if (counted) last_index = -1;
    }
    if (line.starts_with("Display Frame ")) frames = true;
    at = end;
  }
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

}  // namespace jank::parsers
