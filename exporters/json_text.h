// The one way a JSON document is written: strings from outside (device
// models, app versions, process names, run names, state files) may hold
// bytes that are not UTF-8, and nlohmann's default dump() throws on those,
// which on a server thread would end the daemon. Each such byte is written
// as U+FFFD instead (parsers/utf8.h has the same rule for other writers).
#pragma once

#include <string>

namespace jank::exporters {

// `indent` as nlohmann's dump(): -1 for one line.
template <class Json>
std::string json_text(const Json& document, int indent = -1) {
  return document.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace jank::exporters
