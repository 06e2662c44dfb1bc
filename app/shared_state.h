// What the io thread and the HTTP threads share: the metric model and the
// daemon's own status, under one mutex.
#pragma once

#include <mutex>

#include "metrics/daemon_status.h"
#include "metrics/store.h"

namespace jank::app {

struct SharedState {
  explicit SharedState(metrics::StoreOptions options) : store(options) {}
  std::mutex mutex;
  metrics::Store store;
  metrics::DaemonMetrics daemon;
};

}  // namespace jank::app
