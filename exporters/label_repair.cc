#include "exporters/label_repair.h"

#include <cstddef>
#include <utility>

#include "parsers/utf8.h"

namespace jank::exporters {
namespace {

void append_escaped(std::string& out, std::string_view s, bool quote) {
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

}  // namespace

std::string valid_utf8(std::string value) { return parsers::utf8_hex_escaped(std::move(value)); }

void append_label_value(std::string& out, std::string_view value) { append_escaped(out, value, true); }

void append_help_text(std::string& out, std::string_view help) { append_escaped(out, help, false); }

void append_openmetrics_help(std::string& out, std::string_view help) { append_escaped(out, help, true); }

}  // namespace jank::exporters
