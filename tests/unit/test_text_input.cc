#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "parsers/text_input.h"

using jank::parsers::LineSplitter;

namespace {
struct Collected {
  std::vector<std::string> lines;
  std::vector<bool> truncated;
};
Collected split(std::initializer_list<std::string_view> chunks, std::size_t cap) {
  Collected c;
  LineSplitter s(cap);
  auto cb = [&](std::string_view l, bool t) {
    c.lines.emplace_back(l);
    c.truncated.push_back(t);
  };
  for (auto ch : chunks) s.feed(ch, cb);
  s.finish(cb);
  return c;
}
}  // namespace

TEST_CASE("LineSplitter joins lines across chunks and strips CR", "[text]") {
  auto c = split({"ab", "c\r\nde", "f\nlast"}, 100);
  REQUIRE(c.lines == std::vector<std::string>{"abc", "def", "last"});
}

TEST_CASE("LineSplitter caps over-long lines and resumes at the next newline", "[text]") {
  auto c = split({"0123456789", "abcdef\nok\n", "xxxxxxxxxxxxxxxxxxxx"}, 8);
  REQUIRE(c.lines == std::vector<std::string>{"01234567", "ok", "xxxxxxxx"});
  REQUIRE(c.truncated == std::vector<bool>{true, false, true});
}
