// dumpsys gfxinfo (framestats included) parser on arbitrary text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parsers/gfxinfo.h"
#include "parsers/input_kind.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)jank::parsers::detect_input_kind(text);
  (void)jank::parsers::parse_gfxinfo(text);
  return 0;
}
