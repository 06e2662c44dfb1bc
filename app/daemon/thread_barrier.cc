#include "app/daemon/thread_barrier.h"

#include <mutex>

#include "app/core/log.h"

namespace jank::app {

void report_internal_error(SharedState& shared, std::string_view thread, std::string_view what) {
  log_error("internal error on the " + std::string(thread) + " thread, carrying on: " + std::string(what));
  std::lock_guard<std::mutex> lock(shared.mutex);
  ++shared.daemon.internal_errors[std::string(thread)];
}

}  // namespace jank::app
