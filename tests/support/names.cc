#include "tests/support/names.h"

#include "config/schema.h"

namespace jank::test {

std::string_view input_kind_name(parsers::InputKind kind) {
  using parsers::InputKind;
  switch (kind) {
    case InputKind::logcat: return "logcat";
    case InputKind::gfxinfo: return "gfxinfo";
    case InputKind::thermal: return "thermal";
    case InputKind::sf_latency: return "sf_latency";
    case InputKind::sf_layer_list: return "sf_layer_list";
    case InputKind::power_state: return "power_state";
    case InputKind::frametimeline: return "frametimeline";
    case InputKind::timestats: return "timestats";
  }
  return "unknown";
}

std::string_view layout_name(parsers::LogLayout layout) {
  using parsers::LogLayout;
  switch (layout) {
    case LogLayout::unknown: return "unknown";
    case LogLayout::brief: return "brief";
    case LogLayout::process: return "process";
    case LogLayout::tag: return "tag";
    case LogLayout::thread: return "thread";
    case LogLayout::raw: return "raw";
    case LogLayout::time: return "time";
    case LogLayout::threadtime: return "threadtime";
    case LogLayout::long_header: return "long";
    case LogLayout::studio: return "studio";
    case LogLayout::studio_legacy: return "studio_legacy";
    case LogLayout::logcatapp: return "logcatapp";
  }
  return "unknown";
}

std::string_view thermal_refusal_name(parsers::ThermalRefusal r) {
  using parsers::ThermalRefusal;
  switch (r) {
    case ThermalRefusal::none: return "none";
    case ThermalRefusal::permission_denied: return "permission_denied";
    case ThermalRefusal::service_missing: return "service_missing";
  }
  return "none";
}

std::string_view ts_game_mode_name(parsers::TsGameMode mode) {
  using parsers::TsGameMode;
  switch (mode) {
    case TsGameMode::not_printed: return "";
    case TsGameMode::unsupported: return "unsupported";
    case TsGameMode::standard: return "standard";
    case TsGameMode::performance: return "performance";
    case TsGameMode::battery: return "battery";
    case TsGameMode::custom: return "custom";
    case TsGameMode::unspecified: return "unspecified";
    case TsGameMode::other: return "other";
  }
  return "";
}

std::string_view device_change_name(ingest::DeviceChange change) {
  using ingest::DeviceChange;
  switch (change) {
    case DeviceChange::added: return "added";
    case DeviceChange::changed: return "changed";
    case DeviceChange::removed: return "removed";
  }
  return "unknown";
}

std::vector<std::string> known_keys() {
  std::vector<std::string> keys;
  for (const auto& s : config::schema()) keys.push_back(s.key);
  return keys;
}

}  // namespace jank::test
