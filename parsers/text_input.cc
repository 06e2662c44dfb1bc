#include "parsers/text_input.h"

namespace jank::parsers {
namespace {

void append_utf8(std::uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

constexpr std::uint32_t kReplacement = 0xFFFD;

}  // namespace

Encoding detect_encoding(std::string_view head) {
  if (head.size() >= 3 && head.substr(0, 3) == "\xEF\xBB\xBF") return Encoding::utf8_bom;
  if (head.size() >= 2 && head.substr(0, 2) == "\xFF\xFE") return Encoding::utf16le_bom;
  // BOM-less UTF-16LE text: ASCII characters with a NUL high byte. Require a
  // handful of them so that one stray NUL in a log does not flip the decoding.
  std::size_t pairs = std::min<std::size_t>(head.size() / 2, 32);
  if (pairs >= 4) {
    std::size_t ascii_pairs = 0;
    for (std::size_t i = 0; i < pairs; ++i) {
      if (head[2 * i] != '\0' && head[2 * i + 1] == '\0') ++ascii_pairs;
    }
    if (ascii_pairs == pairs) return Encoding::utf16le;
  }
  return Encoding::utf8;
}

void Utf16leDecoder::feed(std::string_view bytes, std::string& out) {
  out.reserve(out.size() + bytes.size() / 2 + 8);
  std::size_t i = 0;
  auto unit_at = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k])) |
           (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k + 1])) << 8);
  };
  auto emit = [&](std::uint32_t unit) {
    if (pending_high_ != 0) {
      std::uint32_t high = pending_high_;
      pending_high_ = 0;
      if (unit >= 0xDC00 && unit <= 0xDFFF) {
        append_utf8(0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00), out);
        return;
      }
      append_utf8(kReplacement, out);
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      pending_high_ = unit;
    } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
      append_utf8(kReplacement, out);
    } else {
      append_utf8(unit, out);
    }
  };
  if (pending_byte_ >= 0 && !bytes.empty()) {
    std::uint32_t unit = static_cast<std::uint32_t>(pending_byte_) |
                         (static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[0])) << 8);
    pending_byte_ = -1;
    emit(unit);
    i = 1;
  }
  for (; i + 1 < bytes.size(); i += 2) emit(unit_at(i));
  if (i < bytes.size()) pending_byte_ = static_cast<unsigned char>(bytes[i]);
}

std::string decode_to_utf8(std::string_view bytes) {
  switch (detect_encoding(bytes.substr(0, 64))) {
    case Encoding::utf8:
      return std::string(bytes);
    case Encoding::utf8_bom:
      return std::string(bytes.substr(3));
    case Encoding::utf16le_bom:
      bytes.remove_prefix(2);
      break;
    case Encoding::utf16le:
      break;
  }
  std::string out;
  Utf16leDecoder decoder;
  decoder.feed(bytes, out);
  return out;
}

}  // namespace jank::parsers
