#include "parsers/names.h"

#include <algorithm>

namespace jank::parsers {

bool valid_package_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxPackageNameBytes || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == ':' || c == '-';
  });
}

}  // namespace jank::parsers
