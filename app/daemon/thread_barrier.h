// A thread's barrier (docs/security.md, "No exception leaves a thread"):
// what escapes a piece of work is caught, logged and counted in
// jank_exporter_internal_errors_total{thread}; the thread carries on.
#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "app/core/shared_state.h"

namespace jank::app {

// Runs `work`; the text of what it threw, or nullopt when it returned.
template <class Work>
std::optional<std::string> escaped_from(Work&& work) {
  try {
    work();
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("an exception of unknown type");
  }
}

// Logs and counts one error caught at `thread`'s barrier (kBarrierThreads).
void report_internal_error(SharedState& shared, std::string_view thread, std::string_view what);

}  // namespace jank::app
