// Label values and help texts made safe for the text exposition formats.
// Label values come from devices (serials, getprop, process names) and may
// hold any bytes; one invalid UTF-8 value makes Prometheus reject the whole
// scrape, and an unescaped quote or newline breaks the line it is on.
#pragma once

#include <string>
#include <string_view>

namespace jank::exporters {

// `value` with each byte that is not part of valid UTF-8 (stray continuation
// bytes, overlong forms, surrogates, code points beyond U+10FFFF, truncated
// sequences) spelled \xNN; valid input comes back unchanged.
std::string valid_utf8(std::string value);

// Appends a label value with backslash, double quote and newline escaped.
void append_label_value(std::string& out, std::string_view value);
// Appends a HELP text with backslash and newline escaped (quotes stay).
void append_help_text(std::string& out, std::string_view help);
// Appends an OpenMetrics HELP text: escaped as a label value is (quotes too).
void append_openmetrics_help(std::string& out, std::string_view help);

}  // namespace jank::exporters
