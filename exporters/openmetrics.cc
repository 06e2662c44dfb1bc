#include "exporters/openmetrics.h"

#include "exporters/label_repair.h"
#include "exporters/text_format.h"
#include "parsers/time_units.h"

namespace jank::exporters {

namespace {

// Code points of valid UTF-8: every byte but the continuation bytes.
std::size_t code_points(std::string_view utf8) {
  std::size_t n = 0;
  for (const char c : utf8) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string_view openmetrics_family_name(std::string_view name, std::string_view type) {
  if (type == "counter" && name.ends_with("_total")) name.remove_suffix(6);
  return name;
}

void append_openmetrics_metadata(std::string& out, std::string_view name, std::string_view type, std::string_view unit,
                                 std::string_view help) {
  name = openmetrics_family_name(name, type);
  out += "# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
  // A unit the declared name does not end in would be refused by Prometheus
  // (and by the format); such a family's name says its unit elsewhere.
  const bool ends_in_unit =
      !unit.empty() && name.size() > unit.size() && name.ends_with(unit) && name[name.size() - unit.size() - 1] == '_';
  if (ends_in_unit) {
    out += "# UNIT ";
    out += name;
    out += ' ';
    out += unit;
    out += '\n';
  }
  if (!help.empty()) {
    out += "# HELP ";
    out += name;
    out += ' ';
    append_openmetrics_help(out, help);
    out += '\n';
  }
}

bool append_exemplar(std::string& out, const metrics::TraceExemplar& exemplar) {
  static constexpr std::string_view kLabel = "trace_id";
  // The id as Prometheus will read it back: what the limit counts.
  const std::string id = valid_utf8(exemplar.trace_id);
  if (id.empty() || kLabel.size() + code_points(id) > kMaxExemplarLabelCharacters) return false;
  out += " # {";
  out += kLabel;
  out += "=\"";
  append_label_value(out, id);
  out += "\"} ";
  append_number(out, exemplar.value);
  if (exemplar.time_ns > 0) {
    out += ' ';
    append_unix_seconds(out, exemplar.time_ns, parsers::units::kNsPerSecond);
  }
  return true;
}

void append_unix_seconds(std::string& out, std::int64_t time, std::int64_t units_per_second) {
  if (time < 0) out += '-';
  // The magnitude, unsigned: -INT64_MIN does not fit an int64.
  const std::uint64_t magnitude = time < 0 ? 0 - static_cast<std::uint64_t>(time) : static_cast<std::uint64_t>(time);
  const auto per_second = static_cast<std::uint64_t>(units_per_second);
  append_count(out, magnitude / per_second);
  out += '.';
  // The fraction's digits, leading zeros kept, trailing ones dropped but one.
  const std::uint64_t fraction = magnitude % per_second;
  std::string digits;
  for (std::uint64_t unit = per_second / 10; unit > 0; unit /= 10) {
    digits += static_cast<char>('0' + fraction / unit % 10);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  out += digits.empty() ? "0" : digits;
}

}  // namespace jank::exporters
