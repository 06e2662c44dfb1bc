// The kernel file parsers (/proc/stat, /proc/PID/stat, smaps_rollup, sysfs
// numbers) on arbitrary text: never more malformed lines than lines, every
// core numbered, sums that cannot wrap, a task's id and name within what the
// kernel allows, and the same text with CRLF line ends reads the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "parsers/proc_stat.h"
#include "tests/support/crlf.h"

namespace {

void check(const jank::parsers::ProcStat& s) {
  if (s.malformed_lines > s.lines) std::abort();
  if (s.all && s.all->core) std::abort();
  for (const auto& c : s.cores) {
    if (!c.core || *c.core < 0 || c.total() < c.busy()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jank::parsers;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string crlf = jank::test::crlf(text);

  const ProcStat lf = parse_proc_stat(text), cr = parse_proc_stat(crlf);
  check(lf);
  check(cr);
  if (lf.lines != cr.lines || lf.malformed_lines != cr.malformed_lines || lf.cores.size() != cr.cores.size() ||
      lf.context_switches != cr.context_switches) {
    std::abort();
  }

  const MemoryRollup m = parse_smaps_rollup(text), mc = parse_smaps_rollup(crlf);
  if (m.malformed_lines > m.lines || m.pss_bytes != mc.pss_bytes || m.malformed_lines != mc.malformed_lines) {
    std::abort();
  }
  if (m.pss_bytes && *m.pss_bytes % 1024 != 0) std::abort();

  if (const auto t = parse_task_stat(text)) {
    if (t->id <= 0 || t->id > (1 << 22) || t->name.size() > 64) std::abort();
    if (t->user_ticks > std::numeric_limits<std::uint64_t>::max() / 4) std::abort();
  }
  parse_sysfs_number(text);
  return 0;
}
