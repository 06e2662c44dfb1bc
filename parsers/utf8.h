// Text from outside (devices, HTTP clients, state and results files) may hold
// any bytes. This is the one rule for what valid UTF-8 is and for how each
// writer spells what is not: JSON and CSV replace it with U+FFFD, the
// Prometheus formats and terminals spell it \xNN. Every writer goes through
// these, so no writer can throw on, or pass on, bytes it did not expect.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace jank::parsers {

// Length of the valid UTF-8 sequence that starts at text[i] (1 to 4), or 0
// where none does: a stray continuation byte, an overlong form, a surrogate,
// a code point beyond U+10FFFF, or a sequence cut short.
std::size_t utf8_sequence_at(std::string_view text, std::size_t i);

bool is_valid_utf8(std::string_view text);

// `text` with each byte that is not part of valid UTF-8 replaced by U+FFFD;
// valid text comes back unchanged.
std::string utf8_replaced(std::string_view text);

// `text` with each such byte spelled \xNN (the hex escape keeps the byte's
// value readable where a person may need it: a label, a log).
std::string utf8_hex_escaped(std::string text);

// The longest prefix of `text` of at most `max_bytes` that does not end
// inside a UTF-8 sequence: a cut never makes a valid string invalid.
std::string_view utf8_prefix(std::string_view text, std::size_t max_bytes);

// `text` fit to print on a terminal: invalid UTF-8 as \xNN, and control
// characters (C0, DEL and the C1 range U+0080..U+009F, which some terminals
// read as escape sequences) as \xNN or \u00NN; backslash stays as it is.
std::string terminal_text(std::string_view text);

}  // namespace jank::parsers
