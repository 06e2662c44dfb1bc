#include <catch2/catch.hpp>

#include "metrics/process_names.h"

using jank::metrics::ProcessNames;

namespace {
std::string name_of(const ProcessNames& n, std::int32_t pid) {
  const std::string* s = n.find(pid);
  return s ? *s : "";
}
}  // namespace

TEST_CASE("a listing that no longer shows a process keeps its name for the lines still on their way",
          "[metrics][process_names]") {
  ProcessNames names;
  names.started(3676, "com.example.feed");
  // zygote restarted: the feed's new process runs, the old one died; its
  // last lines are still unread when the listing comes.
  names.listed({{4100, "com.example.feed"}});
  CHECK(name_of(names, 3676) == "com.example.feed");
  CHECK(name_of(names, 4100) == "com.example.feed");
  // A listing later it is still kept; the second one forgets it.
  names.listed({{4100, "com.example.feed"}});
  CHECK(name_of(names, 3676) == "com.example.feed");
  names.listed({{4100, "com.example.feed"}});
  CHECK(names.find(3676) == nullptr);
  CHECK(names.size() == 1);
}

TEST_CASE("death lines forget at once, start lines and listings name a reused pid anew", "[metrics][process_names]") {
  ProcessNames names;
  names.started(100, "com.a");
  names.died(100);
  CHECK(names.find(100) == nullptr);
  names.started(100, "com.b");
  CHECK(name_of(names, 100) == "com.b");
  // A listing naming it otherwise, twice in a row: com.b's death and com.c's
  // start line never came (lost to a wrap), the listings are believed.
  names.listed({{100, "com.c"}});
  CHECK(name_of(names, 100) == "com.b");
  names.listed({{100, "com.c"}});
  CHECK(name_of(names, 100) == "com.c");
  // Listed again after being missed: no longer on its way out.
  names.listed({});
  names.listed({{100, "com.c"}});
  names.listed({{100, "com.c"}});
  CHECK(name_of(names, 100) == "com.c");
}

TEST_CASE("a listing that shows a reused pid under its new owner waits for the log's own lines",
          "[metrics][process_names]") {
  ProcessNames names;
  names.started(2741, "com.example.chat");
  // chat restarted elsewhere and feed took 2741; the listing comes while the
  // stream still reads chat's last lines.
  names.listed({{2741, "com.example.feed"}, {2800, "com.example.chat"}});
  CHECK(name_of(names, 2741) == "com.example.chat");  // chat's late skip line stays chat's
  CHECK(name_of(names, 2800) == "com.example.chat");
  // Then the log, in order: chat's death, feed's start.
  names.died(2741);
  names.started(2741, "com.example.feed");
  CHECK(name_of(names, 2741) == "com.example.feed");
  // A claim not repeated by the next listing is dropped.
  names.started(3000, "com.x");
  names.listed({{3000, "com.y"}});
  names.listed({{3000, "com.x"}});
  names.listed({{3000, "com.y"}});
  CHECK(name_of(names, 3000) == "com.x");
}

TEST_CASE("only processes the listing shows running count as running", "[metrics][process_names]") {
  ProcessNames names;
  names.started(1, "com.gone");
  names.listed({{2, "com.running"}});
  names.started(3, "com.new");  // started after the listing: running
  std::vector<std::string> running;
  names.for_each_running([&](std::int32_t, const std::string& n) { running.push_back(n); });
  std::sort(running.begin(), running.end());
  CHECK(running == std::vector<std::string>{"com.new", "com.running"});
}

TEST_CASE("at capacity the process gone longest makes room, without one a new name is not kept",
          "[metrics][process_names]") {
  ProcessNames names(3);
  names.listed({{1, "a"}, {2, "b"}, {3, "c"}});
  names.listed({{2, "b"}, {3, "c"}});  // 1 gone
  names.started(4, "d");
  CHECK(names.find(1) == nullptr);
  CHECK(name_of(names, 4) == "d");
  CHECK(names.size() == 3);
  names.started(5, "e");  // every name is running: no room
  CHECK(names.find(5) == nullptr);
  CHECK(names.size() == 3);
  // Names are cut at 256 bytes; negative pids are ignored.
  ProcessNames big;
  big.started(7, std::string(1000, 'x'));
  CHECK(name_of(big, 7).size() == 256);
  big.started(-1, "neg");
  CHECK(big.size() == 1);
  big.clear();
  CHECK(big.size() == 0);
}
