// The daemon's live-view sampler (app/live_sampler.h): every device sampled
// on the io thread's timer, and what a reload of live_view.* does to the rings.
#include <catch2/catch.hpp>

#include <chrono>

#include <boost/asio/io_context.hpp>

#include "app/live_sampler.h"

using namespace jank;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kT0 = 1'764'061'000LL * 1'000'000'000;

config::Config live_config(std::int64_t sample_seconds, std::int64_t history_minutes) {
  config::Config c;
  c.live_view_sample_seconds = sample_seconds;
  c.live_view_history_minutes = history_minutes;
  return c;
}

}  // namespace

TEST_CASE("live sampler: every device gets a sample and a reload that changes the ring empties it",
          "[live][sampler]") {
  boost::asio::io_context io;
  app::SharedState shared(metrics::StoreOptions{});
  std::int64_t now = kT0;
  app::LiveSampler sampler(io, shared, [&] { return now; });
  shared.store.device("a");
  shared.store.device("b");
  sampler.configure(live_config(5, 15));
  sampler.sample();
  for (const auto& [serial, d] : shared.store.devices()) {
    INFO(serial);
    CHECK(d->history.capacity() == 180);
    CHECK(d->history.size() == 1);
  }
  const auto& a = shared.store.devices().at("a")->history;
  now += 5'000'000'000;
  sampler.configure(live_config(5, 15));  // unchanged: the history stays
  sampler.sample();
  CHECK(a.size() == 2);
  now += 5'000'000'000;
  sampler.configure(live_config(5, 30));  // a longer history: a new ring
  sampler.sample();
  CHECK(a.capacity() == 360);
  CHECK(a.size() == 1);
  now += 5'000'000'000;
  sampler.configure(live_config(10, 30));  // another interval, same size: a new ring all the same
  sampler.sample();
  CHECK(a.capacity() == 180);
  CHECK(a.size() == 1);
  sampler.stop();
}

TEST_CASE("live sampler: the timer samples every sample_seconds until stopped", "[live][sampler]") {
  boost::asio::io_context io;
  app::SharedState shared(metrics::StoreOptions{});
  std::int64_t now = kT0;
  app::LiveSampler sampler(io, shared, [&] { return now += 1'000'000'000; });
  shared.store.device("a");
  sampler.configure(live_config(1, 1));
  io.run_for(2500ms);
  const auto& h = shared.store.devices().at("a")->history;
  CHECK(h.size() >= 1);
  CHECK(h.size() <= 3);
  sampler.stop();
  const std::size_t stopped = h.size();
  io.restart();
  io.run_for(1200ms);
  CHECK(h.size() == stopped);
}
