// State-file tests: loading a literal file written by an earlier release,
// and the same file with one value made impossible.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "metrics/store.h"

namespace jank::test {

// Loads `text` into `store`; the file as a whole must read. What the load
// dropped on its own is in the report.
inline metrics::Store::LoadReport load_state(metrics::Store& store, std::string_view text) {
  std::string error;
  metrics::Store::LoadReport report;
  const bool ok = store.load(text, error, &report);
  INFO(error);
  REQUIRE(ok);
  return report;
}

// `text` with its first `from` (which must be there) replaced by `to`.
inline std::string replaced(std::string text, std::string_view from, std::string_view to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

}  // namespace jank::test
