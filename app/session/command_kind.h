// What a device command is, by its text: the label of its cost series
// (jank_exporter_device_command_*{command}). A pure function of the text
// the session parts build, so each kind is named in one place.
#pragma once

#include <string_view>

namespace jank::app {

// "resources", "gfxinfo", "sf_latency", "sf_list", "frametimeline",
// "timestats", "surfaceflinger", "power", "thermal", "battery", "window",
// "display", "package", "getprop", "setprop", "ps", "logcat", "perfetto",
// "probe" (echo), or "other".
std::string_view command_kind(std::string_view command);
// Whether it reads a window that moves on within seconds (--latency,
// --frametimeline, gfxinfo with framestats): late, it loses frames
// (app/session/command_budget.h).
bool is_frame_by_frame(std::string_view command);

}  // namespace jank::app
