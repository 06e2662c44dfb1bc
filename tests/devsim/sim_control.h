// Runs one control-channel command on an in-process Simulator to its reply,
// for the simulator's own tests (single-threaded: the test is the io thread).
#pragma once

#include <boost/asio/io_context.hpp>

#include <optional>
#include <string>

#include "devsim/simulator.h"

namespace jank::devsim::test {

inline std::string control(boost::asio::io_context& io, Simulator& sim, const std::string& line) {
  std::optional<std::string> reply;
  sim.command(line, [&](std::string r) { reply = std::move(r); });
  while (!reply) io.run_one();
  return *reply;
}

}  // namespace jank::devsim::test
