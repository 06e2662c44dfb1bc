// The simulator's ground truth as its own tests read it: the document
// Device::truth() builds (nlohmann-json), looked up by key.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "devsim/model.h"

namespace jank::devsim::test {

// The truth's entry of `package` on `dev` (null when it has no such app).
inline nlohmann::ordered_json truth_app(const Device& dev, std::string_view package) {
  const nlohmann::ordered_json truth = dev.truth();
  for (const auto& app : truth.at("apps")) {
    if (app.at("package") == package) return app;
  }
  return nullptr;
}

}  // namespace jank::devsim::test
