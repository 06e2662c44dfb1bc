// The ---PROFILEDATA--- CSV parser on arbitrary text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "parsers/framestats.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto table = jank::parsers::parse_framestats_block(text);
  for (const auto& row : table.rows) {
    if (row.size() != table.columns.size()) std::abort();  // rows are mapped by header
  }
  return 0;
}
