#include <catch2/catch.hpp>

#include <string>

#include "exporters/label_repair.h"

using jank::exporters::append_help_text;
using jank::exporters::append_label_value;
using jank::exporters::valid_utf8;

TEST_CASE("valid UTF-8 label values come back unchanged", "[label_repair]") {
  CHECK(valid_utf8("emulator-5554") == "emulator-5554");
  CHECK(valid_utf8("com.\xc3\xa9t\xc3\xa9") == "com.\xc3\xa9t\xc3\xa9");          // é, two bytes
  CHECK(valid_utf8("\xe2\x82\xac") == "\xe2\x82\xac");                            // €, three bytes
  CHECK(valid_utf8("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");                    // U+1F600, four bytes
  CHECK(valid_utf8("\xf4\x8f\xbf\xbf") == "\xf4\x8f\xbf\xbf");                    // U+10FFFF, the last
  CHECK(valid_utf8("") == "");
}

TEST_CASE("bytes outside valid UTF-8 are spelled as hex escapes, the valid ones around them kept", "[label_repair]") {
  CHECK(valid_utf8("a\xff" "b") == "a\\xFFb");                       // never valid
  CHECK(valid_utf8("\x80") == "\\x80");                              // stray continuation byte
  CHECK(valid_utf8("\xc0\x80") == "\\xC0\\x80");                     // overlong NUL
  CHECK(valid_utf8("\xe0\x80\xaf") == "\\xE0\\x80\\xAF");            // overlong three-byte form
  CHECK(valid_utf8("\xed\xa0\x80") == "\\xED\\xA0\\x80");            // UTF-16 surrogate
  CHECK(valid_utf8("\xf4\x90\x80\x80") == "\\xF4\\x90\\x80\\x80");   // beyond U+10FFFF
  CHECK(valid_utf8("x\xe2\x82") == "x\\xE2\\x82");                   // truncated at the end
  CHECK(valid_utf8("\xe2\x82\xac\xe2") == "\xe2\x82\xac\\xE2");      // valid € then a lone lead byte
}

TEST_CASE("label values escape backslash, quote and newline, help texts keep quotes", "[label_repair]") {
  std::string label;
  append_label_value(label, "a\"b\\c\nd");
  CHECK(label == "a\\\"b\\\\c\\nd");
  std::string help;
  append_help_text(help, "\"Skipped N frames!\" \\ lines\n");
  CHECK(help == "\"Skipped N frames!\" \\\\ lines\\n");
}
