// The one rule for text from outside (parsers/utf8.h): what is valid UTF-8,
// and how JSON, CSV, terminals and labels spell what is not.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "exporters/json_text.h"
#include "parsers/utf8.h"

using namespace jank;

TEST_CASE("valid UTF-8 is told from stray, overlong, surrogate, too-large and cut sequences", "[utf8][hostile]") {
  CHECK(parsers::is_valid_utf8(""));
  CHECK(parsers::is_valid_utf8("Pixel 7 Pro"));
  CHECK(parsers::is_valid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"));
  CHECK_FALSE(parsers::is_valid_utf8("caf\xe9"));            // Latin-1 é
  CHECK_FALSE(parsers::is_valid_utf8("\xff"));
  CHECK_FALSE(parsers::is_valid_utf8("\x80"));               // a continuation byte alone
  CHECK_FALSE(parsers::is_valid_utf8("\xc0\xaf"));           // overlong '/'
  CHECK_FALSE(parsers::is_valid_utf8("\xe0\x80\xaf"));       // overlong, three bytes
  CHECK_FALSE(parsers::is_valid_utf8("\xed\xa0\x80"));       // U+D800, a surrogate
  CHECK_FALSE(parsers::is_valid_utf8("\xf4\x90\x80\x80"));   // U+110000
  CHECK_FALSE(parsers::is_valid_utf8("\xe2\x82"));           // € cut short
}

TEST_CASE("invalid bytes become U+FFFD one for one, valid text is kept", "[utf8][hostile]") {
  CHECK(parsers::utf8_replaced("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(parsers::utf8_replaced("caf\xe9") == "caf\xef\xbf\xbd");
  CHECK(parsers::utf8_replaced("\xff\xfe" "ok") == "\xef\xbf\xbd\xef\xbf\xbd" "ok");
  CHECK(parsers::utf8_replaced("a\xe2\x82") == "a\xef\xbf\xbd\xef\xbf\xbd");
  CHECK(parsers::is_valid_utf8(parsers::utf8_replaced("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80")));
}

TEST_CASE("label values spell invalid bytes as hex escapes", "[utf8][hostile]") {
  CHECK(parsers::utf8_hex_escaped("caf\xe9") == "caf\\xE9");
  CHECK(parsers::utf8_hex_escaped("\xe2\x82\xac") == "\xe2\x82\xac");
}

TEST_CASE("a cut never ends inside a character", "[utf8][hostile]") {
  const std::string euro3 = "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac";  // 9 bytes
  CHECK(parsers::utf8_prefix(euro3, 9) == euro3);
  CHECK(parsers::utf8_prefix(euro3, 8) == "\xe2\x82\xac\xe2\x82\xac");
  CHECK(parsers::utf8_prefix(euro3, 7) == "\xe2\x82\xac\xe2\x82\xac");
  CHECK(parsers::utf8_prefix(euro3, 6) == "\xe2\x82\xac\xe2\x82\xac");
  CHECK(parsers::utf8_prefix(euro3, 5) == "\xe2\x82\xac");
  CHECK(parsers::utf8_prefix("abc", 2) == "ab");
  // 256 bytes of a model cut inside its last character stay valid.
  const std::string model = std::string(255, 'M') + "\xc3\xa9";
  CHECK(parsers::utf8_prefix(model, 256) == std::string(255, 'M'));
  CHECK(parsers::is_valid_utf8(parsers::utf8_prefix(model, 256)));
  // A run of continuation bytes is no character: it is cut as bytes.
  CHECK(parsers::utf8_prefix("\x80\x80\x80\x80\x80\x80", 4).size() == 4);
}

TEST_CASE("terminal text shows control characters and invalid bytes as escapes", "[utf8][hostile]") {
  CHECK(parsers::terminal_text("Pixel 7") == "Pixel 7");
  CHECK(parsers::terminal_text("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(parsers::terminal_text("\x1b[2J\x1b]0;owned\x07") == "\\x1B[2J\\x1B]0;owned\\x07");
  CHECK(parsers::terminal_text("a\nb\rc\td\x7f") == "a\\x0Ab\\x0Dc\\x09d\\x7F");
  CHECK(parsers::terminal_text("\xc2\x9b" "31m") == "\\u009B31m");  // C1 CSI
  CHECK(parsers::terminal_text("\xc2\xa0") == "\xc2\xa0");          // U+00A0 is no control
  CHECK(parsers::terminal_text("caf\xe9") == "caf\\xE9");
}

TEST_CASE("a JSON document holding invalid UTF-8 is written, not thrown", "[utf8][hostile]") {
  nlohmann::json j;
  j["model"] = std::string("caf\xe9");
  j["error"] = std::string("no run \xff");
  REQUIRE_THROWS(j.dump());  // what every writer did before
  std::string text;
  REQUIRE_NOTHROW(text = exporters::json_text(j));
  CHECK(parsers::is_valid_utf8(text));
  const auto back = nlohmann::json::parse(text);
  CHECK(back["model"] == "caf\xef\xbf\xbd");
  nlohmann::ordered_json o;
  o["name"] = std::string("\xc3");
  CHECK(nlohmann::json::parse(exporters::json_text(o, 2))["name"] == "\xef\xbf\xbd");
}
