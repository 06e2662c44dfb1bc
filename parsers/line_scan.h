// Fast pre-filter for logcat text: finds the few lines that can carry a metric
// (they contain one of a handful of trigger words) so that only those are
// parsed in full. Counting everything else costs about as much as `wc -l`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace jank::parsers {

// The words that make a line worth parsing: "Skipped " (Choreographer),
// "Davey!" (HWUI) and the process lifecycle messages.
bool line_has_trigger(std::string_view line);

enum LineFlag : std::uint8_t {
  kLineTrigger = 1,  // contains a trigger word
  kLineNul = 2,      // contains a NUL byte
  kLineExtra = 4,    // wanted by a log pattern's pre-filter (parsers/log_patterns.h)
};

// Receives the lines of a region. Plain lines (no flag, non-empty, not
// starting with '[', not longer than the cap) are only counted.
class LineVisitor {
 public:
  virtual ~LineVisitor() = default;
  virtual void visit(std::string_view line, unsigned flags) = 0;
};

struct ScanResult {
  std::uint64_t plain_lines = 0;
};

// `region` must end with '\n'. Lines are passed without the '\n' (a CR before
// it is kept: the visitor strips it). Lines longer than max_line_bytes are
// always visited so that the caller can discard them.
ScanResult scan_lines(std::string_view region, std::size_t max_line_bytes, LineVisitor& visitor);

// Same contract, portable byte loop; used where AVX2 is missing and to check
// the vector paths in tests.
ScanResult scan_lines_scalar(std::string_view region, std::size_t max_line_bytes, LineVisitor& visitor);

// The implementations: scan_lines() uses the widest this CPU supports.
enum class ScanKernel : std::uint8_t { scalar, avx2, avx512 };
std::vector<ScanKernel> supported_scan_kernels();  // narrowest first, scalar always
ScanResult scan_lines_with(ScanKernel kernel, std::string_view region, std::size_t max_line_bytes,
                           LineVisitor& visitor);

}  // namespace jank::parsers
