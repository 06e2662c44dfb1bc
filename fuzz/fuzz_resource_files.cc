// The resource poll's answer (grep -H over /proc and sysfs) on arbitrary
// text: never more malformed lines than lines, never more processes than the
// bound, values within what a kernel prints, and CRLF reads the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/resource_files.h"
#include "tests/support/crlf.h"

namespace {

void check(const jank::parsers::ResourceAnswer& a) {
  if (a.malformed_lines > a.lines || a.processes.size() > 256 || a.boot_id.size() > 64) std::abort();
  for (const auto& [first, p] : a.cpufreq) {
    if (first < 0 || (p.cur_khz && *p.cur_khz > 100'000'000)) std::abort();
  }
  if (a.gpu.busy && (!a.gpu.busy_total || *a.gpu.busy > *a.gpu.busy_total)) std::abort();
  if (a.battery_current_ua && (*a.battery_current_ua < -100'000'000 || *a.battery_current_ua > 100'000'000)) {
    std::abort();
  }
  for (const auto& [pid, f] : a.processes) {
    if (pid <= 0 || (f.process && f.process->id != pid)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jank::parsers;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ResourceAnswer lf = parse_resource_answer(text), cr = parse_resource_answer(jank::test::crlf(text));
  check(lf);
  check(cr);
  if (lf.lines != cr.lines || lf.malformed_lines != cr.malformed_lines || lf.processes.size() != cr.processes.size() ||
      lf.cpufreq.size() != cr.cpufreq.size() || lf.battery_current_ua != cr.battery_current_ua) {
    std::abort();
  }
  return 0;
}
