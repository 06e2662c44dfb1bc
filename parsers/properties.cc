#include "parsers/properties.h"

#include <utility>

#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

// Property values are short (92 bytes, longer only for some ro.* keys); the
// caps stop an unterminated value from swallowing the rest of the input.
constexpr std::size_t kMaxValueBytes = 64 * 1024;
constexpr int kMaxContinuationLines = 256;
constexpr std::size_t kMaxProperties = 1 << 16;

struct Head {
  std::string_view key;
  std::string_view value;  // text after "]: [" (without the closing ']' when closed)
  bool closed = false;
};

// "[key]: [value]" with the closing bracket at the end of the line, or the
// first line of a multi-line value ("[key]: [first part").
std::optional<Head> parse_head(std::string_view line) {
  if (!line.starts_with('[')) return std::nullopt;
  std::size_t sep = line.find("]: [");
  if (sep == std::string_view::npos || sep == 1) return std::nullopt;
  Head h;
  h.key = line.substr(1, sep - 1);
  for (char c : h.key)
    if (c == '[' || c == ']' || scan::is_ascii_space(c)) return std::nullopt;
  h.value = line.substr(sep + 4);
  if (!h.value.empty() && h.value.back() == ']') {
    h.value.remove_suffix(1);
    h.closed = true;
  }
  return h;
}

bool looks_like_command(std::string_view line) {
  // "sdm660_64:/ # getprop", "getprop", "$ adb shell getprop".
  return line.find("getprop") != std::string_view::npos && !line.starts_with('[');
}

}  // namespace

Properties parse_properties(std::string_view text) {
  Properties out;
  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view raw;
  bool first = true;
  std::string pending_key;
  std::string pending_value;
  bool pending = false;
  int continuation = 0;

  auto store = [&](std::string key, std::string value) {
    if (out.values.size() >= kMaxProperties && out.values.find(key) == out.values.end()) {
      ++out.malformed_lines;
      return;
    }
    out.values.insert_or_assign(std::move(key), std::move(value));
  };

  while (lines.next(raw)) {
    // Only the line break is removed: blanks inside a value are data.
    std::string_view line = scan::strip_trailing_crs(raw);
    if (pending) {
      auto head = parse_head(line);
      if (head && head->closed) {
        // A new property while a value is still open: the open one was cut.
        ++out.malformed_lines;
        pending = false;
      } else {
        pending_value.push_back('\n');
        bool closes = !line.empty() && line.back() == ']';
        pending_value.append(closes ? line.substr(0, line.size() - 1) : line);
        ++continuation;
        if (closes) {
          store(std::move(pending_key), std::move(pending_value));
          pending_key.clear();
          pending_value.clear();
          pending = false;
        } else if (continuation >= kMaxContinuationLines || pending_value.size() > kMaxValueBytes) {
          ++out.malformed_lines;
          pending = false;
        }
        continue;
      }
    }
    std::string_view t = scan::trim(line);
    if (t.empty()) continue;
    const bool was_first = first;
    first = false;
    auto head = parse_head(line);
    if (!head) {
      if (was_first && looks_like_command(t)) {
        out.command_echo = true;
      } else {
        ++out.malformed_lines;
      }
      continue;
    }
    if (head->closed) {
      store(std::string(head->key), std::string(head->value));
      continue;
    }
    pending = true;
    continuation = 0;
    pending_key.assign(head->key);
    pending_value.assign(head->value);
  }
  if (pending) ++out.malformed_lines;  // value never closed (truncated capture)
  return out;
}

DeviceFacts device_facts(const Properties& props) {
  DeviceFacts f;
  auto get = [&](std::string_view key) -> std::optional<std::string> {
    auto it = props.values.find(key);
    if (it == props.values.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
  f.model = get("ro.product.model");
  f.manufacturer = get("ro.product.manufacturer");
  f.release = get("ro.build.version.release");
  f.fingerprint = get("ro.build.fingerprint");
  f.build_type = get("ro.build.type");
  if (auto v = get("ro.build.version.sdk")) f.sdk = scan::parse_int<std::int32_t>(scan::trim(*v));
  if (auto v = get("debug.choreographer.skipwarning"))
    f.choreographer_skipwarning = scan::parse_int<std::int32_t>(scan::trim(*v));
  if (auto v = get("ro.debuggable")) {
    std::string_view s = scan::trim(*v);
    if (s == "1" || s == "true") f.debuggable = true;
    else if (s == "0" || s == "false") f.debuggable = false;
  }
  return f;
}

}  // namespace jank::parsers
