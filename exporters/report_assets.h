// The pages' CSS and JS (exporters/assets/), compiled into the binary by
// cmake/embed_assets.cmake. charts.js draws SVG charts from plain arrays and
// knows nothing of the report, so that the live pages (exporters/live_pages.h)
// use it as it is; they serve report.css followed by live.css.
#pragma once

#include <string_view>

namespace jank::exporters::assets {

std::string_view charts_js();
std::string_view report_js();
std::string_view report_css();
std::string_view live_js();
std::string_view live_css();

}  // namespace jank::exporters::assets
