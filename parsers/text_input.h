// Byte-level input handling shared by every parser: encoding detection,
// UTF-16LE transcoding and bounded line splitting.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstring>
#include <cstdint>
#include <string>
#include <string_view>

#include "parsers/text_scan.h"

namespace jank::parsers {

enum class Encoding : std::uint8_t { utf8, utf8_bom, utf16le_bom, utf16le };

// Looks at the first bytes of an input. UTF-16LE is recognised by its BOM or,
// without one, by NUL bytes in every odd position of the first characters
// (what PowerShell redirection produces).
Encoding detect_encoding(std::string_view head);

// Converts a whole UTF-16LE or UTF-8 input to UTF-8 text with the BOM removed.
// Unpaired surrogates become U+FFFD; a trailing odd byte is dropped.
std::string decode_to_utf8(std::string_view bytes);

// Incremental UTF-16LE → UTF-8 converter for streams (keeps the odd byte and a
// pending high surrogate across calls).
class Utf16leDecoder {
 public:
  void feed(std::string_view bytes, std::string& out);

 private:
  int pending_byte_ = -1;
  std::uint32_t pending_high_ = 0;
};

// Splits a byte stream into lines. Accepts LF and CRLF (the CR is removed).
// Lines longer than max_line_bytes are cut: the first max_line_bytes are
// delivered with truncated=true and the rest of that line is skipped, so
// memory stays bounded whatever the input.
class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_line_bytes) : max_(max_line_bytes) {}

  // Calls on_line(std::string_view line, bool truncated) for every complete line.
  template <typename F>
  void feed(std::string_view data, F&& on_line);

  // Delivers a final line without newline, if any.
  template <typename F>
  void finish(F&& on_line);

  std::size_t buffered() const { return partial_.size(); }

 private:
  std::size_t max_;
  std::string partial_;
  bool skipping_ = false;   // inside an over-long line already delivered
};

template <typename F>
void LineSplitter::feed(std::string_view data, F&& on_line) {
  while (!data.empty()) {
    const void* nl = std::memchr(data.data(), '\n', data.size());
    if (nl == nullptr) {
      if (skipping_) return;
      std::size_t room = max_ - partial_.size();
      if (data.size() < room) {
        partial_.append(data);
        return;
      }
      partial_.append(data.substr(0, room));
      on_line(std::string_view(partial_), true);
      partial_.clear();
      skipping_ = true;
      return;
    }
    std::size_t n = static_cast<std::size_t>(static_cast<const char*>(nl) - data.data());
    std::string_view piece = data.substr(0, n);
    data.remove_prefix(n + 1);
    if (skipping_) {
      skipping_ = false;
      continue;
    }
    if (partial_.empty()) {
      if (piece.size() <= max_) {
        on_line(scan::strip_cr(piece), false);
      } else {
        on_line(piece.substr(0, max_), true);
      }
      continue;
    }
    if (partial_.size() + piece.size() <= max_) {
      partial_.append(piece);
      on_line(scan::strip_cr(std::string_view(partial_)), false);
    } else {
      partial_.append(piece.substr(0, max_ - partial_.size()));
      on_line(std::string_view(partial_), true);
    }
    partial_.clear();
  }
}

template <typename F>
void LineSplitter::finish(F&& on_line) {
  if (!partial_.empty() && !skipping_) on_line(scan::strip_cr(std::string_view(partial_)), false);
  partial_.clear();
  skipping_ = false;
}

}  // namespace jank::parsers
