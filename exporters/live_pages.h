// The live view's pages (docs/live-view.md): `/`, every device in a table,
// and `/devices/SERIAL`, one device's row and the containers its charts are
// drawn into, with their script and style under /assets/. The HTML is written
// here from the JSON documents of /api/devices and /api/devices/SERIAL, so
// that a page reads without JavaScript; live.js sorts, refreshes and draws
// the charts (charts.js, the run report's). No sockets, no clock: the
// sources give everything.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "exporters/http_server.h"

namespace jank::exporters {

// What the pages are made from: the documents of GET /api/devices and
// GET /api/devices/SERIAL (nullopt: no such device).
struct LiveSources {
  std::function<nlohmann::json()> devices;
  std::function<std::optional<nlohmann::json>(std::string_view serial)> device;
};

// The Content-Security-Policy every page and asset is sent with: no inline
// script or style, no request to another host.
inline constexpr std::string_view kLiveContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; frame-ancestors 'none'";

// The answer for `path` (still percent-encoded, without the query): "/",
// "/devices/SERIAL" (404 page for a serial the sources do not know or cannot
// be decoded), "/assets/charts.js", "/assets/live.js", "/assets/live.css";
// nullopt for any other path.
std::optional<FileResponse> live_page(std::string_view path, const LiveSources& sources);

// The routes of the pages for HttpServer: "/" exactly, and every path
// under /devices/ and /assets/ (a path live_page() leaves is 404 there).
std::vector<FileRoute> live_routes(LiveSources sources);

// A path segment with every byte but A-Z a-z 0-9 - . _ ~ as %XX: a serial
// such as "192.168.1.5:5555" as it appears in /devices/SERIAL.
std::string percent_encode_segment(std::string_view text);

}  // namespace jank::exporters
