// Guesses what a recorded input is, for `jank_exporter replay`.
#pragma once

#include <cstdint>
#include <string_view>

namespace jank::parsers {

enum class InputKind : std::uint8_t { logcat, gfxinfo, sf_latency };

std::string_view input_kind_name(InputKind kind);

// `text` is decoded UTF-8 (see decode_to_utf8). gfxinfo (framestats included)
// when it has a "** Graphics info for pid" header, "Applications Graphics
// Acceleration Info:", a ---PROFILEDATA--- marker or a line starting with
// "Stats since: <n>ns" (headerless excerpts); sf_latency when the first
// non-empty data line is a lone integer followed only by rows of three integers
// (up to two leading non-numeric lines, e.g. a shell prompt, are allowed);
// logcat otherwise.
InputKind detect_input_kind(std::string_view text);

}  // namespace jank::parsers
