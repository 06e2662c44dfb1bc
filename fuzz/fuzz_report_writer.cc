// `jank_exporter report`'s page (exporters/run_report.h) from arbitrary
// results: the input is one runs file, or baseline NUL candidate [NUL
// verdict] (JSON text holds no NUL byte). No crash, no exception, and the
// page (or the error) is valid UTF-8 whatever the bytes in.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "exporters/run_report.h"
#include "parsers/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t nul = input.find('\0', start);
    parts.emplace_back(input.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start));
    if (nul == std::string_view::npos || parts.size() == 3) break;
    start = nul + 1;
  }
  jank::exporters::RunReportRequest request;
  // A title from the command line may hold any bytes too.
  request.title = "fuzz \xff\xfe </title><script>";
  if (parts.size() == 1) {
    request.runs.push_back({"runs.json", parts[0]});
  } else {
    request.baseline.push_back({"baseline.json", parts[0]});
    request.candidate.push_back({"candidate.json", parts[1]});
    if (parts.size() == 3) request.verdict = jank::exporters::results::InputFile{"verdict.json", parts[2]};
  }
  const auto result = jank::exporters::render_run_report(request);
  if (result.ok() == result.html.empty()) std::abort();
  if (!jank::parsers::is_valid_utf8(result.html) || !jank::parsers::is_valid_utf8(result.error)) std::abort();
  return 0;
}
