#include "app/daemon/trace_service.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include <boost/asio/post.hpp>

#include "app/core/log.h"
#include "app/daemon/thread_barrier.h"
#include "parsers/time_units.h"

namespace jank::app {

std::shared_ptr<TraceStore> open_trace_store(std::string dir, metrics::TraceLimits limits,
                                             std::function<std::int64_t()> now_ns, SharedState& shared) {
  auto store = std::make_shared<TraceStore>(std::move(dir), limits, std::move(now_ns),
                                            [&shared](const metrics::TraceStoreStatus& status) {
                                              std::lock_guard<std::mutex> lock(shared.mutex);
                                              shared.daemon.traces = status;
                                            });
  std::string error;
  if (!store->open(error)) log_error(error);
  return store;
}

std::string trace_dir(const config::Config& c) {
  return c.traces_dir.empty() ? c.state_dir + "/traces" : c.traces_dir;
}

metrics::TraceLimits trace_limits(const config::Config& c) {
  return {c.traces_max_count, c.traces_max_bytes, parsers::units::to_ns(c.traces_max_age_days)};
}

// Runs saves in order on a thread of its own, so that writing a trace of
// hundreds of MiB to a slow disk never holds up the io thread every device
// depends on; each answer is posted back to the io thread. The queue holds at
// most SharedState::kMaxTracePulls saves (each keeps a pull slot). Saves still
// queued at destruction are finished first: a trace pulled is kept.
class TraceHost::Writer {
 public:
  using Job = std::function<SavedTrace()>;
  using Done = std::function<void(SavedTrace)>;
  Writer(boost::asio::io_context& io, SharedState& shared) : io_(io), shared_(shared), thread_([this] { run(); }) {}
  ~Writer() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  void post(Job job, Done done) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.emplace_back(std::move(job), std::move(done));
    }
    wake_.notify_one();
  }

 private:
  void run() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      auto [job, done] = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      boost::asio::post(io_, [done = std::move(done), result = guarded(job)]() mutable { done(std::move(result)); });
    }
  }

  // The thread's barrier: a save that throws is a trace not kept (and
  // counted as such), never the end of the writer or of the daemon.
  SavedTrace guarded(const Job& job) {
    SavedTrace saved;
    const auto escaped = escaped_from([&] { saved = job(); });
    if (!escaped) return saved;
    report_internal_error(shared_, "trace_writer", *escaped);
    return SavedTrace{{}, "write_failed", "internal error: " + *escaped};
  }

  boost::asio::io_context& io_;
  SharedState& shared_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<Job, Done>> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

// Recorders see the store as a TraceSink: an id, or why not.
class TraceHost::Sink final : public TraceSink {
 public:
  Sink(std::shared_ptr<TraceStore> store, Writer& writer) : store_(std::move(store)), writer_(writer) {}
  void save(std::string bytes, metrics::StoredTrace meta, std::function<void(SavedTrace)> done) override {
    // The job holds the store: a reload that replaces it lets this save finish.
    writer_.post(
        [store = store_, bytes = std::move(bytes), meta = std::move(meta)] {
          const auto r = store->save(bytes, meta);
          return SavedTrace{r.id, r.ok() ? std::string() : r.reason, r.error};
        },
        std::move(done));
  }

 private:
  std::shared_ptr<TraceStore> store_;
  Writer& writer_;
};

TraceHost::TraceHost(boost::asio::io_context& io, SharedState& shared, std::function<std::int64_t()> now_ns)
    : shared_(shared), now_ns_(std::move(now_ns)), writer_(std::make_unique<Writer>(io, shared_)) {}

TraceHost::~TraceHost() {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  shared_.trace_sink = nullptr;
}

void TraceHost::configure(const config::Config& c) {
  const std::string dir = trace_dir(c);
  if (!c.traces_enabled) {
    store_.reset();
  } else if (store_ && store_->dir() == dir) {
    store_->set_limits(trace_limits(c));
  } else {
    store_ = open_trace_store(dir, trace_limits(c), now_ns_, shared_);
  }
  sink_ = store_ ? std::make_unique<Sink>(store_, *writer_) : nullptr;
  std::lock_guard<std::mutex> lock(shared_.mutex);
  shared_.trace_sink = sink_.get();
  shared_.trace_budget.set_limits(parsers::units::to_ns(c.traces_min_interval_seconds), c.traces_max_per_hour);
  if (!store_) shared_.daemon.traces = {};
}

void TraceHost::enforce() {
  if (store_) store_->enforce();
}

}  // namespace jank::app
