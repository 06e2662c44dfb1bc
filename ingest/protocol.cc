#include "ingest/protocol.h"

#include <algorithm>
#include <map>

#include "parsers/text_scan.h"

namespace jank::ingest {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

// Within one line of a device list (split on LF): blanks and a CR.
using parsers::scan::is_blank_or_cr;
using parsers::scan::trim_blank_or_cr;

// "key:value" with a lower-case key, as devices-l appends them.
bool split_key_value(std::string_view token, std::string_view& key, std::string_view& value) {
  auto colon = token.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  key = token.substr(0, colon);
  for (char c : key) {
    if (!((c >= 'a' && c <= 'z') || c == '_')) return false;
  }
  value = token.substr(colon + 1);
  return true;
}

// A feature list: the items between commas, without ASCII space around them,
// empty ones left out.
std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> out;
  for (const std::string_view field : parsers::scan::split(text, ',')) {
    const std::string_view item = parsers::scan::trim_ascii_space(field);
    if (!item.empty()) out.emplace_back(item);
  }
  return out;
}

// States printed with spaces in them; everything else is one word.
constexpr std::string_view kMultiWordStates[] = {"no permissions", "insufficient permissions"};

bool parse_long_line(std::string_view line, DeviceInfo& info) {
  // The key:value tail is peeled from the right: a serial may contain ':' and
  // "no permissions (...)" contains spaces, but no state token has a ':' key.
  std::string_view head = line;
  std::vector<std::pair<std::string_view, std::string_view>> tail;
  while (true) {
    head = trim_blank_or_cr(head);
    auto space = head.find_last_of(" \t");
    if (space == std::string_view::npos) break;
    std::string_view key;
    std::string_view value;
    if (!split_key_value(head.substr(space + 1), key, value)) break;
    tail.emplace_back(key, value);
    head = head.substr(0, space);
  }
  std::reverse(tail.begin(), tail.end());

  std::size_t state_at = std::string_view::npos;
  for (auto state : kMultiWordStates) {
    auto at = head.find(state);
    if (at != std::string_view::npos && at > 0 && is_blank_or_cr(head[at - 1])) {
      state_at = at;
      break;
    }
  }
  if (state_at == std::string_view::npos) {
    auto space = head.find_last_of(" \t");
    if (space == std::string_view::npos) return false;
    state_at = space + 1;
  }
  info.serial = std::string(trim_blank_or_cr(head.substr(0, state_at)));
  info.state = std::string(trim_blank_or_cr(head.substr(state_at)));
  if (info.serial.empty() || info.state.empty()) return false;

  for (auto [key, value] : tail) {
    if (key == "usb") {
      info.usb = std::string(value);
    } else if (key == "product") {
      info.product = std::string(value);
    } else if (key == "model") {
      info.model = std::string(value);
    } else if (key == "device") {
      info.device = std::string(value);
    } else if (key == "transport_id") {
      const auto id = parsers::scan::parse_int<std::uint64_t>(value);
      if (!id) return false;
      info.transport_id = *id;
    } else if (key == "features") {
      info.features = split_commas(value);
    } else {
      info.extra.emplace_back(std::string(key), std::string(value));
    }
  }
  return true;
}

bool parse_plain_line(std::string_view line, DeviceInfo& info) {
  auto tab = line.find('\t');
  if (tab == std::string_view::npos) return false;
  info.serial = std::string(trim_blank_or_cr(line.substr(0, tab)));
  info.state = std::string(trim_blank_or_cr(line.substr(tab + 1)));
  return !info.serial.empty() && !info.state.empty();
}

}  // namespace

std::optional<std::string> encode_request(std::string_view payload) {
  if (payload.empty() || payload.size() > kMaxRequestBytes) return std::nullopt;
  std::string out(4, '0');
  auto length = payload.size();
  for (int i = 3; i >= 0; --i) {
    out[static_cast<std::size_t>(i)] = kHexDigits[length & 0xf];
    length >>= 4;
  }
  out.append(payload);
  return out;
}

std::optional<std::uint16_t> parse_hex4(std::string_view text) {
  if (text.size() != 4) return std::nullopt;
  return parsers::scan::parse_int<std::uint16_t>(text, 16);
}

Status parse_status(std::string_view word) {
  if (word == "OKAY") return Status::okay;
  if (word == "FAIL") return Status::fail;
  return Status::invalid;
}

std::string transport_request(std::string_view serial) {
  return "host:transport:" + std::string(serial);
}

std::string features_request(std::string_view serial) {
  return "host-serial:" + std::string(serial) + ":features";
}

DeviceList parse_device_list(std::string_view payload, ListFormat format) {
  DeviceList list;
  parsers::scan::Lines lines(payload);
  std::string_view line;
  while (lines.next(line)) {
    if (trim_blank_or_cr(line).empty()) continue;
    ++list.lines;
    DeviceInfo info;
    bool ok = format == ListFormat::long_ ? parse_long_line(line, info) : parse_plain_line(line, info);
    if (!ok) {
      ++list.malformed_lines;
      continue;
    }
    auto same = [&](const DeviceInfo& d) { return d.serial == info.serial; };
    if (std::any_of(list.devices.begin(), list.devices.end(), same)) {
      ++list.duplicate_serials;
      continue;
    }
    list.devices.push_back(std::move(info));
  }
  return list;
}

std::vector<DeviceEvent> diff_device_lists(const std::vector<DeviceInfo>& before,
                                           const std::vector<DeviceInfo>& after) {
  std::map<std::string_view, const DeviceInfo*> old_by_serial;
  std::map<std::string_view, const DeviceInfo*> new_by_serial;
  for (const auto& d : before) old_by_serial.emplace(d.serial, &d);
  for (const auto& d : after) new_by_serial.emplace(d.serial, &d);

  std::vector<DeviceEvent> events;
  auto o = old_by_serial.begin();
  auto n = new_by_serial.begin();
  while (o != old_by_serial.end() || n != new_by_serial.end()) {
    if (n == new_by_serial.end() || (o != old_by_serial.end() && o->first < n->first)) {
      events.push_back({DeviceChange::removed, o->second->serial, o->second->state, {}, *o->second});
      ++o;
    } else if (o == old_by_serial.end() || n->first < o->first) {
      events.push_back({DeviceChange::added, n->second->serial, {}, n->second->state, *n->second});
      ++n;
    } else {
      if (!(*o->second == *n->second)) {
        events.push_back(
            {DeviceChange::changed, n->second->serial, o->second->state, n->second->state, *n->second});
      }
      ++o;
      ++n;
    }
  }
  return events;
}

std::vector<std::string> parse_features(std::string_view payload) {
  return split_commas(parsers::scan::trim_ascii_space(payload));
}

bool has_feature(const std::vector<std::string>& features, std::string_view name) {
  return std::find(features.begin(), features.end(), name) != features.end();
}

std::string shell_quote(std::string_view arg) {
  std::string out;
  out.reserve(arg.size() + 2);
  out += '\'';
  for (char c : arg) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += '\'';
  return out;
}

namespace {
template <typename Range>
std::string join_quoted(const Range& args) {
  std::string out;
  for (const auto& arg : args) {
    if (!out.empty()) out += ' ';
    out += shell_quote(arg);
  }
  return out;
}
}  // namespace

std::string quote_args(std::initializer_list<std::string_view> args) { return join_quoted(args); }
std::string quote_args(const std::vector<std::string>& args) { return join_quoted(args); }

std::string logcat_command(const std::vector<std::string>& args, bool replace_shell) {
  std::string out = replace_shell ? "export ANDROID_LOG_TAGS=\"''\"; exec logcat" : "export ANDROID_LOG_TAGS=\"''\"; logcat";
  if (!args.empty()) {
    out += ' ';
    out += quote_args(args);
  }
  return out;
}

ShellProtocol shell_protocol_for(const std::vector<std::string>& features) {
  return has_feature(features, "shell_v2") ? ShellProtocol::v2 : ShellProtocol::legacy;
}

std::optional<std::string> shell_service(ShellProtocol protocol, std::string_view command) {
  if (command.empty() || command.find('\0') != std::string_view::npos) return std::nullopt;
  std::string service = protocol == ShellProtocol::v2 ? "shell,v2,raw:" : "shell:";
  if (service.size() + command.size() > kMaxServiceBytes) return std::nullopt;
  service.append(command);
  return service;
}

}  // namespace jank::ingest
