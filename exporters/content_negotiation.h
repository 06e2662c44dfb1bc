// Which exposition format a /metrics request gets, from its Accept header
// (RFC 9110 §12.5.1: media ranges, parameters, q-values).
#pragma once

#include <string_view>

#include "exporters/text_format.h"

namespace jank::exporters {

// OpenMetrics when the client prefers it (a strictly higher q) over the
// 0.0.4 text; otherwise 0.0.4 — also for no header, `*/*`, a tie, or a
// header that does not parse: a scrape never fails over its Accept header.
//
// `application/openmetrics-text` matches with `version` 1.0.0, 0.0.1 (the
// same format to Prometheus) or none, `text/plain` with 0.0.4 or none; a
// range with another version does not match. For each format the most
// specific matching range decides (type/subtype with its version, then
// type/subtype, then type/*, then */*); other parameters are ignored.
// Several Accept fields are one list joined by commas.
ExpositionFormat negotiate_format(std::string_view accept);

// A tchar of RFC 9110 §5.6.2: the bytes of a token (header names, media
// types, parameter names): ASCII letters, digits and !#$%&'*+-.^_`|~.
bool is_token_char(char c);

}  // namespace jank::exporters
