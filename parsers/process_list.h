// `ps` process listings: toybox `ps -A` / plain `ps` (Android 8+), toolbox
// `ps` and `ps -P` (Android <= 7). Pure function over decoded UTF-8 text.
//
// Columns are found by name in the header line (USER PID PPID … NAME) and
// rows are split on runs of blanks, not on fixed widths: toybox lets long
// values overflow their column ("webview_zygote 2649", "binder_wait_for_work 0 S").
// NAME is the last column and keeps its inner spaces ("mtk charger_hv_").
// Toolbox prints an unlabelled state letter after PC; it is accounted for.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

struct ProcessEntry {
  std::int32_t pid = -1;
  std::int32_t ppid = -1;     // -1 when the listing has no PPID column
  std::string user;           // empty when the listing has no USER column
  std::string name;           // as printed; kernel threads keep their [brackets]
  bool kernel_thread = false; // name printed as "[name]" (toybox)
};

struct ProcessList {
  std::vector<ProcessEntry> processes;  // in printed order
  std::uint64_t header_lines = 0;       // header lines seen (several listings may be concatenated)
  std::uint64_t malformed_lines = 0;    // non-empty lines that are neither header nor row (prompts, footers)
  std::uint64_t dropped_rows = 0;       // rows beyond the memory cap
};

ProcessList parse_process_list(std::string_view ps_output);

}  // namespace jank::parsers
