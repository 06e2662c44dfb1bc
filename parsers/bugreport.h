// An Android bug report (`adb bugreport`: dumpstate's text, or the .txt a
// bugreport zip holds) split into its sections, for `jank_exporter replay`.
// Layout (frameworks/native cmds/dumpstate): a "== dumpstate: DATE" banner,
// then sections "------ NAME (COMMAND) ------", each ended by "------ Ns was
// the duration of 'NAME' ------" (or by the next); inside the DUMPSYS
// sections, one block per service, "DUMP OF SERVICE [CRITICAL |HIGH ]NAME:",
// ended by "--------- Ns was the duration of dumpsys NAME, ending at: …" or
// a line of dashes and the next block. Pure: the sections are views of the
// text given.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

struct BugreportSection {
  std::string name;       // "SYSTEM LOG", or "dumpsys gfxinfo" for a service's block
  std::string service;    // the service's name for a dumpsys block ("gfxinfo"), else empty
  std::string_view text;  // its lines, without its header and end marker
};

struct Bugreport {
  std::vector<BugreportSection> sections;  // in the report's order
  // DUMPSYS sections themselves are not listed: their services are.
};

// Whether `head` (the first KiB of a decoded input) is a bug report: its
// banner "== dumpstate: " within the first lines.
bool looks_like_bugreport(std::string_view head);
Bugreport split_bugreport(std::string_view text);

}  // namespace jank::parsers
