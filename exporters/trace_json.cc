#include "exporters/trace_json.h"

#include <nlohmann/json.hpp>

#include "exporters/json_text.h"

#include "exporters/run_json.h"
#include "metrics/trace_files.h"
#include "parsers/text_scan.h"
#include "parsers/time_units.h"

namespace jank::exporters {
namespace {

// Keys in the order docs/traces.md lists them.
using Json = nlohmann::ordered_json;

Json metadata_object(const metrics::StoredTrace& t) {
  return Json{{"format", 1},
              {"id", t.id},
              {"serial", t.serial},
              {"package", t.package},
              {"rule", t.rule},
              {"value", t.value},
              {"triggered_at", rfc3339_ms(t.triggered_at_ns)},
              {"bytes", t.bytes},
              {"sdk", t.sdk},
              {"model", t.model}};
}

// Digits text[at, at + n) as a number, or -1.
int digits(std::string_view text, std::size_t at, std::size_t n) {
  if (at + n > text.size()) return -1;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (!parsers::scan::is_digit(text[i])) return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

}  // namespace

std::string trace_url(std::string_view id) {
  return std::string(kTracesPath) + std::string(id) + std::string(metrics::kTraceExtension);
}

std::string trace_metadata_json(const metrics::StoredTrace& trace) { return json_text(metadata_object(trace)) + "\n"; }

std::optional<metrics::StoredTrace> parse_trace_metadata(std::string_view text, std::string& error) {
  const Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    error = "not a JSON object";
    return std::nullopt;
  }
  auto field = [&](const char* key, bool ok, const char* expected) {
    if (!ok) error = std::string("\"") + key + "\" must be " + expected;
    return ok;
  };
  auto has = [&](const char* key) { return j.contains(key); };
  const auto format = j.value("format", Json());
  if (!field("format", format.is_number_integer() && format.get<std::int64_t>() == 1, "1")) return std::nullopt;
  metrics::StoredTrace t;
  for (auto [key, into] : {std::pair{"id", &t.id}, std::pair{"serial", &t.serial}, std::pair{"package", &t.package},
                           std::pair{"rule", &t.rule}, std::pair{"model", &t.model}}) {
    if (!field(key, has(key) && j[key].is_string(), "a string")) return std::nullopt;
    *into = j[key].get<std::string>();
  }
  if (!field("id", metrics::valid_trace_id(t.id), "a trace id")) return std::nullopt;
  if (!field("value", has("value") && j["value"].is_number(), "a number")) return std::nullopt;
  t.value = j["value"].get<double>();
  if (!field("bytes", has("bytes") && j["bytes"].is_number_unsigned(), "a non-negative integer")) return std::nullopt;
  t.bytes = j["bytes"].get<std::uint64_t>();
  const bool sdk_ok = has("sdk") && j["sdk"].is_number_integer() && j["sdk"].get<std::int64_t>() >= 0 &&
                      j["sdk"].get<std::int64_t>() < 100'000;
  if (!field("sdk", sdk_ok, "a small integer")) return std::nullopt;
  t.sdk = j["sdk"].get<int>();
  const auto at = has("triggered_at") && j["triggered_at"].is_string()
                      ? parse_rfc3339_utc(j["triggered_at"].get<std::string>())
                      : std::nullopt;
  if (!field("triggered_at", at.has_value(), "an RFC 3339 UTC time")) return std::nullopt;
  t.triggered_at_ns = *at;
  return t;
}

std::string trace_list_json(const std::vector<metrics::StoredTrace>& traces) {
  Json list = Json::array();
  for (const auto& t : traces) {
    Json item = metadata_object(t);
    item["url"] = trace_url(t.id);
    list.push_back(std::move(item));
  }
  return json_text(Json{{"traces", std::move(list)}}) + "\n";
}

std::optional<std::int64_t> parse_rfc3339_utc(std::string_view text) {
  const int y = digits(text, 0, 4), mo = digits(text, 5, 2), d = digits(text, 8, 2);
  const int h = digits(text, 11, 2), mi = digits(text, 14, 2), s = digits(text, 17, 2);
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || y < 0 || mo < 0 || d < 0 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > parsers::units::days_in_month(y, mo)) return std::nullopt;
  std::int64_t fraction_ns = 0;
  std::size_t at = 19;
  if (text[at] == '.') {
    std::int64_t scale = 100'000'000;
    for (++at; at < text.size() && parsers::scan::is_digit(text[at]); ++at) {
      if (scale == 0) return std::nullopt;  // finer than ns
      fraction_ns += (text[at] - '0') * scale;
      scale /= 10;
    }
    if (scale == 100'000'000) return std::nullopt;  // a '.' without digits
  }
  if (at + 1 != text.size() || text[at] != 'Z') return std::nullopt;
  const std::int64_t secs =
      parsers::units::days_from_civil(y, mo, d) * parsers::units::kSecondsPerDay + h * 3600 + mi * 60 + s;
  return secs * parsers::units::kNsPerSecond + fraction_ns;
}

}  // namespace jank::exporters
