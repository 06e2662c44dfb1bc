// `jank_exporter replay` of an Android bug report (`adb bugreport`: the zip,
// or dumpstate's text): every section replay can use, in one go — the
// system log (main, system and crash buffers: skips, Daveys, process
// starts), and the dumps of gfxinfo (every process), graphicsstats, power,
// thermalservice and battery — the rest named as skipped.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "app/cli/replay_options.h"
#include "metrics/store.h"

namespace jank::app {

// Whether `head` (an input's first bytes) is a zip archive.
bool looks_like_zip(std::string_view head);
// The bug report's text inside `zip` (the entry main_entry.txt names, else
// the largest bugreport*.txt), at most `max_bytes` of it; "" with `error` set
// when there is none or it cannot be read.
std::string bugreport_text_of_zip(const std::string& zip, std::size_t max_bytes, std::string& error);

// Records the sections of bug report `text` (decoded) named `name`; what was
// used and what was skipped go to `err`. Returns an error message or "".
std::string replay_bugreport(const std::string& name, std::string_view text, const ReplayOptions& o,
                             metrics::Store& store, metrics::DeviceMetrics& device, std::ostream& err);

}  // namespace jank::app
