// What the io thread and the HTTP threads share: the metric model and the
// daemon's own status, under one mutex.
#pragma once

#include <mutex>
#include <string>

#include "metrics/daemon_status.h"
#include "metrics/run_book.h"
#include "metrics/store.h"

namespace jank::app {

struct SharedState {
  explicit SharedState(metrics::StoreOptions options) : store(options) {}
  std::mutex mutex;
  metrics::Store store;
  metrics::DaemonMetrics daemon;
  metrics::RunBook runs;  // docs/runs.md

  // `f(device)` for the device `serial`, under the lock.
  template <typename F>
  void with_device(const std::string& serial, F&& f) {
    std::lock_guard<std::mutex> lock(mutex);
    f(store.device(serial));
  }
};

}  // namespace jank::app
