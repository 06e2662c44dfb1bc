// Guesses what a recorded input is, for `jank_exporter replay`.
#pragma once

#include <cstdint>
#include <string_view>

namespace jank::parsers {

enum class InputKind : std::uint8_t {
  logcat, gfxinfo, sf_latency, sf_layer_list, power_state, frametimeline, timestats, thermal
};


// `text` is decoded UTF-8 (see decode_to_utf8), possibly the head of a longer
// input (an unterminated last line is not judged). In this order:
//  - gfxinfo (framestats included) when it has a "** Graphics info for pid"
//    header, "Applications Graphics Acceleration Info:", a ---PROFILEDATA---
//    marker or a line starting with "Stats since: <n>ns" (headerless excerpts);
//  - frametimeline (`dumpsys SurfaceFlinger --frametimeline`) when a line
//    starts with "Display Frame <n>" and another with "Prediction State" or
//    "Layer - " (after indentation);
//  - timestats (`dumpsys SurfaceFlinger --timestats -dump`) when a line is
//    "SurfaceFlinger TimeStats:";
//  - power_state when a line starts with "mWakefulness=" or "Display Power:
//    state=" (after indentation), or it is a "POWER MANAGER (dumpsys power)" dump;
//  - thermal (dumpsys thermalservice) when a line starts with "Thermal Status:"
//    or "IsStatusOverride:" or is "Current temperatures from HAL:" or
//    "Cached temperatures:" (after indentation);
//  - sf_latency when, after up to two leading non-numeric lines (a shell
//    prompt), the data is one or more --latency outputs: a lone integer (the
//    period) followed by rows of three integers, outputs separated by their
//    period lines or by command lines containing "--latency";
//  - sf_layer_list when, after up to two leading lines, every line is a
//    layer name SurfaceFlinger prints with its unique suffix ("name#N") or
//    wrapped in RequestedLayerState{…} (Android 15+);
//  - logcat otherwise.
InputKind detect_input_kind(std::string_view text);

}  // namespace jank::parsers
