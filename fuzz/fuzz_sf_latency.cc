// dumpsys SurfaceFlinger --latency parser on arbitrary text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parsers/sf_latency.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)jank::parsers::parse_sf_latency(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
