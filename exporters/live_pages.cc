#include "exporters/live_pages.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include "exporters/report_assets.h"
#include "exporters/run_report.h"
#include "parsers/text_scan.h"
#include "parsers/thermal.h"
#include "parsers/time_units.h"

namespace jank::exporters {
namespace {

using nlohmann::json;

constexpr std::string_view kMissing = "\u2013";  // en dash: not given by the device, never 0
constexpr std::string_view kDevicesPath = "/devices/";

// How a column of the device table reads its device object and shows it.
// live.js has the same table (COLUMNS): keep the two in step.
enum class Kind { serial, text, number, status, thermal };

struct Column {
  std::string_view key;  // the device object's field
  std::string_view title;
  std::string_view unit;
  Kind kind;
  int decimals;  // numbers: fixed digits
  bool trim;     // numbers: trailing zeros dropped (60 Hz, 59.94 Hz)
};

constexpr std::array<Column, 12> kColumns = {{
    {"serial", "Serial", "", Kind::serial, 0, false},
    {"model", "Model", "", Kind::text, 0, false},
    {"release", "Android", "", Kind::text, 0, false},
    {"refresh_hz", "Refresh", "Hz", Kind::number, 2, true},
    {"status", "Status", "", Kind::status, 0, false},
    {"sm", "SM", "frames/s", Kind::number, 1, false},
    {"fps", "FPS", "frames/s", Kind::number, 1, false},
    {"jank_percent", "Jank", "%", Kind::number, 1, false},
    {"skipped_per_minute", "Skipped", "frames/min", Kind::number, 1, false},
    {"davey_per_minute", "Davey", "per min", Kind::number, 1, false},
    {"big_jank_per_minute", "BigJank", "per min", Kind::number, 1, false},
    {"thermal_status", "Thermal", "status", Kind::thermal, 0, false},
}};

// The totals a row carries for scripts and tests (data-total-*), as /metrics has them.
constexpr std::array<std::string_view, 5> kTotals = {"skipped_frames", "davey_frames", "big_jank", "frozen_frames",
                                                     "layer_frozen_frames"};

std::optional<double> number_of(const json& object, std::string_view key) {
  if (!object.is_object()) return std::nullopt;
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

// A string field, or a number written as text (sdk); "" when absent or null.
std::string text_of(const json& object, std::string_view key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  if (it == object.end()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number()) return format_exact(it->get<double>());
  return {};
}

// A device's URL segment: the document's serial_path, made from the serial's
// bytes (live_json.h); the serial itself only for a document without one.
std::string serial_segment(const json& device) {
  const std::string path = text_of(device, "serial_path");
  const bool encoded = !path.empty() && std::all_of(path.begin(), path.end(), [](char c) {
    return parsers::scan::is_alnum(c) || c == '%' || c == '-' || c == '.' || c == '_' || c == '~';
  });
  return encoded ? path : percent_encode_segment(text_of(device, "serial"));
}

std::string attr(std::string_view name, std::string_view value) {
  return std::string(" ") + std::string(name) + "=\"" + html_escape(value) + "\"";
}

std::string shown(double v, const Column& c) {
  std::string s = format_fixed(v, c.decimals);
  if (c.trim && s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

// SM as a share of the refresh rate: what "worst" means across 60, 90 and
// 120 Hz devices (SM 100 of 120 is worse than 58 of 60).
std::optional<double> sm_share(const json& device) {
  const auto sm = number_of(device, "sm");
  const auto hz = number_of(device, "refresh_hz");
  if (!sm || !hz || *hz <= 0) return std::nullopt;
  return *sm / *hz;
}

// "t-bad", "t-warn" or "": a value past its threshold (docs/live-view.md).
std::string_view threshold_class(const Column& c, const json& device) {
  const auto v = number_of(device, c.key);
  if (!v) return {};
  if (c.key == "sm") {
    const auto hz = number_of(device, "refresh_hz");
    if (!hz || *hz <= 0) return {};
    if (*v < 0.75 * *hz) return "t-bad";
    if (*v < 0.9 * *hz) return "t-warn";
  } else if (c.key == "jank_percent") {
    if (*v > 10) return "t-bad";
    if (*v > 5) return "t-warn";
  } else if (c.key == "thermal_status") {
    if (*v >= 3) return "t-bad";
  }
  return {};
}

// Why a cell is marked, for its tooltip: the colour is never the only sign.
std::string threshold_note(const Column& c, std::string_view cls) {
  if (cls.empty()) return {};
  if (c.key == "sm") return cls == "t-bad" ? "below 75 % of the refresh rate" : "below 90 % of the refresh rate";
  if (c.key == "jank_percent") return cls == "t-bad" ? "over 10 %" : "over 5 %";
  return "throttling (severe or worse)";
}

void cell(std::string& out, const Column& c, const json& device) {
  const std::string key(c.key);
  if (c.kind == Kind::serial) {
    const std::string serial = text_of(device, "serial");
    out += "<td class=\"serial\"" + attr("data-metric", key) + attr("data-value", serial) + "><a" +
           attr("href", std::string(kDevicesPath) + serial_segment(device)) + ">" + html_escape(serial) +
           "</a></td>";
    return;
  }
  if (c.kind == Kind::text || c.kind == Kind::status) {
    const std::string value = text_of(device, c.key);
    if (value.empty()) {
      out += "<td class=\"missing\"" + attr("data-metric", key) + ">" + std::string(kMissing) + "</td>";
    } else if (c.kind == Kind::status) {
      out += "<td" + attr("data-metric", key) + attr("data-value", value) + "><span" +
             attr("class", "status status-" + value) + ">" + html_escape(value) + "</span></td>";
    } else {
      out += "<td" + attr("class", key) + attr("data-metric", key) + attr("data-value", value) + ">" +
             html_escape(value) + "</td>";
    }
    return;
  }
  const auto v = number_of(device, c.key);
  if (!v) {
    out += "<td class=\"num missing\"" + attr("data-metric", key) + ">" + std::string(kMissing) + "</td>";
    return;
  }
  const std::string_view mark = threshold_class(c, device);
  std::string text = shown(*v, c);
  if (c.kind == Kind::thermal) {
    const double i = std::round(*v);
    if (i >= 0 && i <= 6 && i == *v) {  // android_thermal_status's values (docs/metrics.md)
      text += " " + std::string(parsers::thermal_status_name(static_cast<int>(i)));
    }
  }
  std::string title = threshold_note(c, mark);
  if (c.key == "skipped_per_minute") {
    if (const auto total = number_of(device.value("totals", json::object()), "skipped_frames")) {
      title += (title.empty() ? "" : "; ") + format_exact(*total) + " skipped frames in all";
    }
  }
  // Davey lines are frames of 700 ms or more: beside them, vitals' frozen frames (HWUI's histogram).
  if (c.key == "davey_per_minute") {
    if (const auto total = number_of(device.value("totals", json::object()), "frozen_frames")) {
      title += (title.empty() ? "" : "; ") + format_exact(*total) + " frozen frames in all";
    }
  }
  const auto share = c.key == "sm" ? sm_share(device) : std::nullopt;
  out += "<td" + attr("class", mark.empty() ? std::string("num") : "num " + std::string(mark)) +
         attr("data-metric", key) + attr("data-value", format_exact(*v)) +
         (share ? attr("data-sort", format_exact(*share)) : std::string()) + (title.empty() ? "" : attr("title", title)) +
         ">" + html_escape(text) + "</td>";
}

void row(std::string& out, const json& device) {
  const std::string status = text_of(device, "status");
  out += "<tr" + attr("data-serial", text_of(device, "serial")) +
         (status.empty() ? std::string() : attr("class", "status-" + status));
  const json totals = device.is_object() ? device.value("totals", json::object()) : json::object();
  for (std::string_view t : kTotals) {
    std::string name = "data-total-" + std::string(t);
    std::replace(name.begin(), name.end(), '_', '-');
    const auto v = number_of(totals, t);
    out += attr(name, v ? format_exact(*v) : "null");
  }
  out += ">";
  for (const Column& c : kColumns) cell(out, c, device);
  out += "</tr>\n";
}

void table(std::string& out, const std::vector<const json*>& devices, std::string_view id) {
  out += "<div class=\"table-wrap\"><table class=\"devices\"" + attr("id", id) + "><thead><tr>";
  for (const Column& c : kColumns) {
    const bool number = c.kind == Kind::number || c.kind == Kind::thermal;
    out += "<th scope=\"col\"" + attr("class", number ? "num" : "text") + attr("data-key", c.key) +
           attr("data-type", number ? "number" : "text") + (c.key == "sm" ? " aria-sort=\"ascending\"" : "") + ">" +
           html_escape(c.title);
    if (!c.unit.empty()) out += "<br><small>" + html_escape(c.unit) + "</small>";
    out += "</th>";
  }
  out += "</tr></thead><tbody>\n";
  for (const json* d : devices) row(out, *d);
  out += "</tbody></table></div>\n";
}

// Worst first: SM as a share of the refresh rate ascending, devices without
// it after those with, then by serial.
std::vector<const json*> worst_first(const json& devices) {
  std::vector<const json*> out;
  if (devices.is_array()) {
    for (const json& d : devices) {
      if (d.is_object()) out.push_back(&d);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const json* a, const json* b) {
    const auto sa = sm_share(*a), sb = sm_share(*b);
    if (sa.has_value() != sb.has_value()) return sa.has_value();
    if (sa && *sa != *sb) return *sa < *sb;
    return text_of(*a, "serial") < text_of(*b, "serial");
  });
  return out;
}

// Host wall-clock seconds as "2026-11-25 10:15:00 UTC" (live.js writes the same).
std::string utc_time(double seconds) {
  // No host time lies outside the model's int64 nanoseconds: such a number is shown as it is.
  if (!(std::fabs(seconds) < 9e9)) return format_exact(seconds);
  const auto whole = static_cast<std::int64_t>(std::floor(seconds));
  return parsers::units::format_utc(whole * parsers::units::kNsPerSecond, parsers::units::UtcFormat::spaced);
}

std::string number_attr(std::string_view name, const json& object, std::string_view key) {
  const auto v = number_of(object, key);
  return v ? attr(name, format_exact(*v)) : std::string();
}

std::vector<std::pair<std::string, std::string>> page_headers() {
  return {{"Content-Security-Policy", std::string(kLiveContentSecurityPolicy)},
          {"Cache-Control", "no-store"},
          {"X-Content-Type-Options", "nosniff"},
          {"Referrer-Policy", "no-referrer"}};
}

FileResponse html_response(int status, std::string body) {
  FileResponse r;
  r.status = status;
  r.content_type = "text/html; charset=utf-8";
  r.body = std::move(body);
  r.headers = page_headers();
  return r;
}

// The document around a page's body. `charts`: the page draws charts, so
// charts.js is loaded too (after live.js, which catches its errors).
std::string document(std::string_view title, std::string_view body_attrs, bool charts, std::string_view body) {
  std::string out;
  out.reserve(body.size() + 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\" data-js-errors=\"0\" data-render=\"pending\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<meta name=\"referrer\" content=\"no-referrer\"><title>" +
         html_escape(title) +
         "</title>\n<link rel=\"stylesheet\" href=\"/assets/live.css\">\n"
         "<script src=\"/assets/live.js\" defer></script>\n";
  if (charts) out += "<script src=\"/assets/charts.js\" defer></script>\n";
  out += "</head>\n<body";
  out += body_attrs;
  out += ">\n";
  out += body;
  out += "<footer>jank_exporter live view (docs/live-view.md). \u2013 marks a value the device has not given. "
         "<a href=\"/metrics\">/metrics</a> \u00b7 <a href=\"/traces/\">/traces/</a> \u00b7 "
         "<a href=\"/api/devices\">/api/devices</a></footer>\n</body></html>\n";
  return out;
}

std::string links() {
  return "<nav class=\"links\"><a href=\"/\">All devices</a> \u00b7 <a href=\"/metrics\">/metrics</a> \u00b7 "
         "<a href=\"/traces/\">Traces</a> \u00b7 <a href=\"/api/devices\">/api/devices</a></nav>";
}

std::string devices_page(const json& doc) {
  const json devices = doc.is_object() ? doc.value("devices", json::array()) : json::array();
  const auto rows = worst_first(devices);
  const auto generated = number_of(doc, "generated_at");
  std::string body = "<header class=\"page\">" + links() + "<h1>Devices</h1><p class=\"summary\">";
  body += "<span id=\"device-count\" data-metric=\"devices\"" + attr("data-value", std::to_string(rows.size())) + ">" +
          std::to_string(rows.size()) + "</span> device" + (rows.size() == 1 ? "" : "s");
  if (const auto w = number_of(doc, "window_seconds")) {
    body += " \u00b7 FPS, jank and per-minute counts over the last " + format_exact(*w) + " s";
  }
  body += " \u00b7 <span id=\"generated-at\"" + (generated ? attr("data-value", format_exact(*generated)) : std::string()) +
          ">" + (generated ? html_escape(utc_time(*generated)) : std::string(kMissing)) + "</span>";
  body += "</p><p id=\"live-status\" class=\"note\" role=\"status\"></p>"
          "<div id=\"js-errors\" class=\"js-errors\" role=\"alert\" hidden></div>"
          "<noscript><p class=\"note\">Without JavaScript the table neither sorts nor refreshes: reload the page for "
          "new figures.</p></noscript></header>\n<main>\n";
  table(body, rows, "devices");
  if (rows.empty()) body += "<p class=\"note\" id=\"no-devices\">No device yet: the exporter lists a device once its adb server does.</p>\n";
  body += "</main>\n";
  const std::string attrs = " data-page=\"devices\" data-api=\"/api/devices\"" +
                            number_attr("data-sample-seconds", doc, "sample_seconds") +
                            number_attr("data-window-seconds", doc, "window_seconds");
  return document("jank_exporter \u00b7 devices", attrs, false, body);
}

void runs_list(std::string& out, const json& device) {
  const json runs = device.value("runs", json::array());
  out += "<section id=\"runs\"><h2>Runs</h2>";
  if (!runs.is_array() || runs.empty()) {
    out += "<p class=\"note\">No run measured this device in the history.</p></section>\n";
    return;
  }
  out += "<ul class=\"runs\">";
  for (const json& r : runs) {
    const std::string id = text_of(r, "id"), name = text_of(r, "name");
    const auto start = number_of(r, "start"), end = number_of(r, "end");
    out += "<li" + attr("data-run", id) + "><strong>" + html_escape(name.empty() ? id : name) + "</strong> <code>" +
           html_escape(id) + "</code> " + (start ? html_escape(utc_time(*start)) : std::string(kMissing)) + " \u2192 " +
           (end ? html_escape(utc_time(*end)) : std::string("open")) + "</li>";
  }
  out += "</ul></section>\n";
}

void traces_list(std::string& out, const json& device) {
  const json traces = device.value("traces", json::array());
  out += "<section id=\"traces\"><h2>Traces</h2>";
  if (!traces.is_array() || traces.empty()) {
    out += "<p class=\"note\">No trace of this device in the history.</p></section>\n";
    return;
  }
  out += "<ul class=\"traces\">";
  for (const json& t : traces) {
    const std::string id = text_of(t, "id");
    const auto time = number_of(t, "time");
    // The link is made from the id, whatever `url` says: it can only name a trace.
    out += "<li" + attr("data-trace", id) + "><a" + attr("href", "/traces/" + percent_encode_segment(id) + ".pftrace") +
           ">" + html_escape(id) + "</a> " + html_escape(text_of(t, "rule")) + " " +
           (time ? html_escape(utc_time(*time)) : std::string(kMissing)) + "</li>";
  }
  out += "</ul></section>\n";
}

// What the exporter's own commands cost the device (docs/live-view.md,
// "The device page"): per kind, the commands so far, their mean time, their
// mean time on the device (its shell's stamps) and the bytes they brought back; whether it is polled frame by frame and how
// often a command waited for the device's budget.
void cost_table(std::string& out, const json& device) {
  const json cost = device.value("cost", json::object());
  out += "<section id=\"cost\"><h2>What measuring costs this device</h2>";
  if (!cost.is_object()) {
    out += "<p class=\"note\">Not known.</p></section>\n";
    return;
  }
  std::vector<std::string> facts;
  if (const auto pf = cost.find("per_frame_polling"); pf != cost.end() && pf->is_boolean()) {
    facts.push_back(std::string("<span id=\"per-frame\"") + attr("data-value", pf->get<bool>() ? "1" : "0") + ">" +
                    (pf->get<bool>() ? "polled frame by frame" : "frame by frame only for per_frame.apps") + "</span>");
  }
  if (const auto waits = number_of(cost, "budget_waits")) {
    facts.push_back("<span id=\"budget-waits\"" + attr("data-value", format_exact(*waits)) + ">" + format_exact(*waits) +
                    "</span> commands waited for the budget");
  }
  out += "<p class=\"facts\">";
  for (std::size_t i = 0; i < facts.size(); ++i) out += (i ? " \u00b7 " : "") + facts[i];
  out += "</p>";
  const json commands = cost.value("commands", json::array());
  if (!commands.is_array() || commands.empty()) {
    out += "<p class=\"note\">No command yet.</p></section>\n";
    return;
  }
  out += "<table class=\"cost\" id=\"cost-table\"><thead><tr><th>command</th><th>run</th><th>mean time (ms)</th>"
         "<th>on the device (ms)</th><th>output (KiB)</th></tr></thead><tbody>";
  for (const json& c : commands) {
    const std::string kind = text_of(c, "kind");
    const double runs = number_of(c, "runs").value_or(0), seconds = number_of(c, "seconds").value_or(0);
    const double bytes = number_of(c, "output_bytes").value_or(0);
    // The device's own time per command, where its shell timed them (shell v2).
    const double timed = number_of(c, "timed").value_or(0), on_device = number_of(c, "device_seconds").value_or(0);
    const std::string device_ms = timed > 0 ? format_fixed(parsers::units::ms_of_seconds(on_device) / timed, 1) : std::string(kMissing);
    out += "<tr" + attr("data-kind", kind) + "><td><code>" + html_escape(kind) + "</code></td><td" +
           attr("data-value", format_exact(runs)) + ">" + format_exact(runs) + "</td><td>" +
           (runs > 0 ? format_fixed(parsers::units::ms_of_seconds(seconds) / runs, 1) : std::string(kMissing)) + "</td><td class=\"device-ms\"" +
           attr("data-value", device_ms) + ">" + device_ms + "</td><td" + attr("data-value", format_exact(bytes)) + ">" +
           format_fixed(bytes / 1024, 1) + "</td></tr>";
  }
  out += "</tbody></table></section>\n";
}

std::string device_page(const json& device) {
  const std::string serial = text_of(device, "serial");
  const std::string model = text_of(device, "model");
  std::string body = "<header class=\"page\">" + links() + "<h1><span class=\"serial\">" + html_escape(serial) + "</span>";
  if (!model.empty()) body += " <small class=\"model\">" + html_escape(model) + "</small>";
  body += "</h1><p class=\"facts\">";
  std::vector<std::string> facts;
  if (const std::string m = text_of(device, "manufacturer"); !m.empty()) facts.push_back(html_escape(m));
  if (const std::string r = text_of(device, "release"); !r.empty()) {
    const std::string sdk = text_of(device, "sdk");
    facts.push_back("Android " + html_escape(r) + (sdk.empty() ? "" : " (SDK " + html_escape(sdk) + ")"));
  }
  if (const std::string f = text_of(device, "foreground"); !f.empty()) {
    facts.push_back("foreground <code class=\"app\">" + html_escape(f) + "</code>");
  }
  if (const auto open = number_of(device, "open_runs"); open && *open > 0) facts.push_back(format_exact(*open) + (*open == 1 ? " open run" : " open runs"));
  if (const auto armed = device.find("trace_armed"); armed != device.end() && armed->is_boolean() && armed->get<bool>()) {
    facts.push_back("flight recorder armed");
  }
  if (const auto at = number_of(device, "sampled_at")) facts.push_back("sampled " + html_escape(utc_time(*at)));
  for (std::size_t i = 0; i < facts.size(); ++i) body += (i ? " \u00b7 " : "") + facts[i];
  body += "</p><p id=\"live-status\" class=\"note\" role=\"status\"></p>"
          "<div id=\"js-errors\" class=\"js-errors\" role=\"alert\" hidden></div></header>\n<main>\n";
  table(body, {&device}, "device");
  body += "<section id=\"charts-section\"><h2>Last minutes</h2>"
          "<noscript><p class=\"note\">The charts need JavaScript; the figures above and the lists below are complete "
          "without it.</p></noscript><div class=\"charts\" id=\"charts\"></div></section>\n";
  cost_table(body, device);
  runs_list(body, device);
  traces_list(body, device);
  body += "</main>\n";
  const std::string attrs = " data-page=\"device\"" + attr("data-serial", serial) +
                            attr("data-api", "/api/devices/" + serial_segment(device)) +
                            number_attr("data-sample-seconds", device, "sample_seconds");
  return document("jank_exporter \u00b7 " + serial, attrs, true, body);
}

std::string not_found_page(std::string_view what) {
  std::string body = "<header class=\"page\">" + links() + "<h1>Not found</h1></header>\n<main><p id=\"not-found\">" +
                     html_escape(what) + "</p></main>\n";
  return document("jank_exporter \u00b7 not found", " data-page=\"not-found\"", false, body);
}

FileResponse asset(std::string_view content_type, std::string body) {
  FileResponse r;
  r.content_type = std::string(content_type);
  r.body = std::move(body);
  r.headers = page_headers();
  return r;
}

}  // namespace

std::string percent_encode_segment(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    const bool plain = parsers::scan::is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
    if (plain) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    }
  }
  return out;
}

std::vector<FileRoute> live_routes(LiveSources sources) {
  auto shared = std::make_shared<const LiveSources>(std::move(sources));
  auto handler = [shared](std::string_view path) {
    if (auto r = live_page(path, *shared)) return std::move(*r);
    FileResponse none;  // under /assets/ or /devices/ but not a page
    none.status = 404;
    none.content_type = "text/plain; charset=utf-8";
    none.body = "not found\n";
    none.headers = page_headers();
    return none;
  };
  return {FileRoute{"/", handler, true}, FileRoute{std::string(kDevicesPath), handler, false},
          FileRoute{"/assets/", handler, false}};
}

std::optional<FileResponse> live_page(std::string_view path, const LiveSources& sources) {
  if (path == "/") return html_response(200, devices_page(sources.devices ? sources.devices() : json::object()));
  if (path.starts_with(kDevicesPath)) {
    const auto serial = percent_decode(path.substr(kDevicesPath.size()));
    if (!serial || serial->empty()) return html_response(404, not_found_page("Not a device address."));
    std::optional<json> device = sources.device ? sources.device(*serial) : std::nullopt;
    if (!device || !device->is_object()) {
      // Any bytes from the URL: html_escape writes them as UTF-8.
      return html_response(404, not_found_page("The exporter has no device " + *serial + "."));
    }
    return html_response(200, device_page(*device));
  }
  if (path == "/assets/charts.js") return asset("text/javascript; charset=utf-8", std::string(assets::charts_js()));
  if (path == "/assets/live.js") return asset("text/javascript; charset=utf-8", std::string(assets::live_js()));
  // The report's look, then the live pages' own rules: one palette, one chart style.
  if (path == "/assets/live.css") {
    return asset("text/css; charset=utf-8", std::string(assets::report_css()) + std::string(assets::live_css()));
  }
  return std::nullopt;
}

}  // namespace jank::exporters
