// The shell script behind every log stream of a device, as pure text: the
// cursor declaration, the preamble (boot id, logd's pid, logd's statistics,
// a marker) and logcat over main and system with no -T, so the position comes
// from the statistics and the last counted line, never from a time.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "app/session/android_release.h"
#include "parsers/logcat_cursor.h"

namespace jank::app {

// The buffers followed, in the order logcat is asked for them.
const std::vector<std::string>& logcat_buffers();
// Ends the preamble that precedes the log lines in the stream's output.
inline constexpr std::string_view kPreambleEnd = "jank_exporter:logcat-snapshot-end";
// The whole ring is at most a few MiB on a device set to large buffers.
inline constexpr std::size_t kRingDumpOutput = 64 << 20;

// "echo jank_exporter:cursor boot=<id> logd=<pid> main=<n>:<hash> system=<n>:<hash>; "
// (the hash of the last counted entry's first line, 16 hex digits, when known), or
// "" for an invalid cursor: where the stream starts, for whoever reads the
// device's shell history (the simulator's truth too). Numbers and a checked
// boot id only. Printed, it is one more preamble line, ignored.
std::string cursor_declaration(const parsers::LogCursor& cursor);

// The follow stream's script (the declaration, the preamble, logcat -D), as
// the release's logcat takes it.
std::string follow_script(const parsers::LogCursor& cursor, const AndroidRelease& release);
// The same preamble and the ring dumped once (logcat -d), for a continuity check.
std::string ring_dump_script(const AndroidRelease& release);

}  // namespace jank::app
