// The pages' CSS and JS (exporters/assets/), compiled into the binary by
// cmake/embed_assets.cmake. charts.js draws SVG charts from plain arrays and
// knows nothing of the report, so that a live page can use it as it is.
#pragma once

#include <string_view>

namespace jank::exporters::assets {

std::string_view charts_js();
std::string_view report_js();
std::string_view report_css();

}  // namespace jank::exporters::assets
