// dumpsys gfxinfo (framestats included) parser on arbitrary text.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "parsers/gfxinfo.h"
#include "parsers/input_kind.h"

namespace {

using jank::parsers::GfxWindow;

// Profile rows reach metrics as durations: each kept one must be a finite,
// non-negative time, and no window may hold more than the cap.
void check_profile(const std::vector<GfxWindow>& windows) {
  for (const auto& w : windows) {
    if (!w.has_profile_table && !w.profile_rows.empty()) std::abort();
    if (w.profile_rows.size() > jank::parsers::kMaxProfileRowsPerWindow) std::abort();
    for (const auto& r : w.profile_rows) {
      for (double v : {r.draw_ms, r.prepare_ms.value_or(0.0), r.process_ms, r.execute_ms}) {
        if (!std::isfinite(v) || v < 0) std::abort();
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)jank::parsers::detect_input_kind(text);
  const auto dump = jank::parsers::parse_gfxinfo(text);
  check_profile(dump.orphan_windows);
  for (const auto& p : dump.processes) check_profile(p.windows);
  return 0;
}
