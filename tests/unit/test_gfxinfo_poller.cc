#include <catch2/catch.hpp>

#include "app/session/gfxinfo_poller.h"
#include "metrics/sources/skips.h"

using jank::app::packages_to_poll;

TEST_CASE("a gfxinfo round polls configured, foreground and active packages, never labels that are not packages",
          "[app][gfxinfo]") {
  jank::metrics::Store store;
  auto& d = store.device("s");
  jank::metrics::record_skip(store, d, "com.example.feed", 0, false, 3);  // skipped frames: worth polling
  jank::metrics::record_skip(store, d, "pid:4242", 0, false, 3);          // a pid label, not a package
  jank::metrics::record_skip(store, d, "unknown", 0, false, 3);
  store.package(d, "com.quiet");                          // no skips, no gfxinfo yet
  jank::config::Config c;
  c.gfxinfo_packages = {"com.example.always"};
  CHECK(packages_to_poll(c, d, std::string("com.example.top")) ==
        std::vector<std::string>{"com.example.always", "com.example.feed", "com.example.top"});
  // A foreground name that could not enter a shell command is left out.
  CHECK(packages_to_poll(c, d, std::string("x;reboot")) ==
        std::vector<std::string>{"com.example.always", "com.example.feed"});
  c.gfxinfo_discover = false;
  CHECK(packages_to_poll(c, d, std::string("com.example.top")) == std::vector<std::string>{"com.example.always"});
}
