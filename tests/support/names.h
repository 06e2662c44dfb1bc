// Names the tests print and compare, and that the exporter itself never
// needs: what a replay input was detected as, a logcat layout, a thermal
// refusal, a TimeStats game mode, a device-list change, the configuration's
// keys.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ingest/protocol.h"
#include "parsers/input_kind.h"
#include "parsers/logcat_line.h"
#include "parsers/thermal.h"
#include "parsers/timestats.h"

namespace jank::test {

std::string_view input_kind_name(parsers::InputKind kind);         // "logcat", "sf_latency", …
std::string_view layout_name(parsers::LogLayout layout);            // "threadtime", "long", …
std::string_view thermal_refusal_name(parsers::ThermalRefusal r);   // "none", "permission_denied", …
std::string_view ts_game_mode_name(parsers::TsGameMode mode);       // "standard", …; "" for not_printed
std::string_view device_change_name(ingest::DeviceChange change);   // "added", "changed", "removed"

// Every configuration key, dotted ("gfxinfo.poll_interval_seconds"), from
// the schema (config/schema.h).
std::vector<std::string> known_keys();

}  // namespace jank::test
