// The display module (metrics/sources/display.h): how the refresh rate every
// frame rule judges by is recorded.
#include <catch2/catch.hpp>

#include "metrics/sources/display.h"
#include "metrics/store.h"

TEST_CASE("the refresh rate is measured or the configured default flagged as a fallback", "[display][source]") {
  jank::metrics::Store store;
  auto& d = store.device("s");
  jank::metrics::record_refresh_rate(d, 120.0, 60);
  CHECK(d.refresh_hz == 120);
  CHECK_FALSE(d.refresh_is_fallback);
  jank::metrics::record_refresh_rate(d, std::nullopt, 90);
  CHECK(d.refresh_hz == 90);
  CHECK(d.refresh_is_fallback);
  // A rate no display has is no measurement.
  jank::metrics::record_refresh_rate(d, 1e6, 60);
  CHECK(d.refresh_hz == 60);
  CHECK(d.refresh_is_fallback);
}
