// The bug report splitter on arbitrary text: every section is a view of the
// input, in order and without overlap; a service's block is named after its
// service; and the same text with CRLF line ends gives the same sections.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parsers/bugreport.h"
#include "tests/support/crlf.h"

namespace {

void check(std::string_view text, const jank::parsers::Bugreport& r) {
  const char* at = text.data();
  for (const auto& s : r.sections) {
    if (!s.text.empty() && (s.text.data() < at || s.text.data() + s.text.size() > text.data() + text.size())) {
      std::abort();
    }
    if (!s.text.empty()) at = s.text.data() + s.text.size();
    if (!s.service.empty() && (s.name != "dumpsys " + s.service || s.service.find(' ') != std::string::npos)) {
      std::abort();
    }
    if (s.name.empty()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)jank::parsers::looks_like_bugreport(text.substr(0, 1024));
  const auto lf = jank::parsers::split_bugreport(text);
  check(text, lf);

  const std::string crlf = jank::test::crlf(text);
  const auto cr = jank::parsers::split_bugreport(crlf);
  check(crlf, cr);
  if (cr.sections.size() != lf.sections.size()) std::abort();
  for (std::size_t i = 0; i < cr.sections.size(); ++i) {
    if (cr.sections[i].name != lf.sections[i].name || cr.sections[i].service != lf.sections[i].service) std::abort();
  }
  return 0;
}
