#include "app/session/logcat_script.h"

#include <cstdio>

#include "ingest/protocol.h"

namespace jank::app {
namespace {

// One -b per buffer: logcat takes a comma list only from Android 7.1 on
// (before, "Unable to open log device 'main,system'"), repeated -b on every
// release. -v epoch from 7.0; 6.0 prints local MM-DD stamps, which only
// place events in time: the position never depends on a stamp
// (docs/ingest.md, "Android releases").
std::string script(const AndroidRelease& release, bool dump) {
  std::vector<std::string> args = {"-v", "threadtime"};
  if (release.epoch_stamps()) args.insert(args.end(), {"-v", "epoch"});
  args.insert(args.end(), {"-v", "usec", "-b", "main", "-b", "system", "-D"});
  // A dump is a one-shot command: its shell stays for the closing time stamp.
  if (dump) args.push_back("-d");
  return "cat /proc/sys/kernel/random/boot_id; pidof logd; logcat -S -b main -b system; echo " +
         std::string(kPreambleEnd) + "; " + ingest::logcat_command(args, !dump);
}

}  // namespace

const std::vector<std::string>& logcat_buffers() {
  static const std::vector<std::string> buffers = {"main", "system"};
  return buffers;
}

std::string cursor_declaration(const parsers::LogCursor& c) {
  if (!c.valid) return "";
  std::string out = "echo jank_exporter:cursor boot=" + (c.boot_id.empty() ? "-" : c.boot_id) +
                    " logd=" + std::to_string(c.logd_pid);
  for (const auto& [buffer, b] : c.buffers) {
    out += " " + buffer + "=" + std::to_string(b.index);
    if (b.last_hash != 0) {
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(b.last_hash));
      out += std::string(":") + hex;
    }
  }
  return out + "; ";
}

std::string follow_script(const parsers::LogCursor& cursor, const AndroidRelease& release) {
  return cursor_declaration(cursor) + script(release, false);
}

std::string ring_dump_script(const AndroidRelease& release) { return script(release, true); }

}  // namespace jank::app
