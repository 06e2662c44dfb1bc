// `jank_exporter observer-test`: what the exporter's own polling costs a
// device's frames (docs/observer-test.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace jank::app {

int run_observer_test(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace jank::app
