// parsers/text_scan.h: the tree's one set of text helpers. Each whitespace set
// is checked byte by byte, since which one a parser uses is part of its format.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parsers/text_scan.h"

namespace scan = jank::parsers::scan;
using namespace std::string_view_literals;

namespace {

// Every byte `pred` holds for, as a string.
template <typename Pred>
std::string members(Pred pred) {
  std::string out;
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    if (pred(c)) out += c;
  }
  return out;
}

std::vector<std::string> all_tokens(scan::Tokens tokens) {
  std::vector<std::string> out;
  std::string_view tok;
  while (tokens.next(tok)) out.emplace_back(tok);
  return out;
}

}  // namespace

TEST_CASE("text: the whitespace sets hold exactly their bytes", "[text]") {
  CHECK(members(scan::is_blank) == "\t "sv);
  CHECK(members(scan::is_blank_or_cr) == "\t\r "sv);
  CHECK(members(scan::is_inline_space) == "\t\v\f\r "sv);
  CHECK(members(scan::is_ascii_space) == "\t\n\v\f\r "sv);
}

TEST_CASE("text: the character classes are ASCII and ignore every byte above 0x7f", "[text]") {
  CHECK(members(scan::is_digit) == "0123456789");
  CHECK(members(scan::is_alpha) == "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
  CHECK(members(scan::is_alnum) == "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
  CHECK(members(scan::is_word_char) == "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz");
  CHECK(members(scan::is_hex_digit) == "0123456789ABCDEFabcdef");
  CHECK(scan::hex_value('0') == 0);
  CHECK(scan::hex_value('9') == 9);
  CHECK(scan::hex_value('a') == 10);
  CHECK(scan::hex_value('F') == 15);
  CHECK(scan::hex_value('g') == -1);
  CHECK(scan::hex_value('\xC3') == -1);
}

TEST_CASE("text: to_lower and equal_ignoring_case fold ASCII letters only", "[text]") {
  CHECK(scan::to_lower("Content-Type: TEXT/Plain \xC3\x89") == "content-type: text/plain \xC3\x89");
  CHECK(scan::to_lower('@') == '@');
  CHECK(scan::to_lower('[') == '[');
  CHECK(scan::equal_ignoring_case("Chunked", "cHUNKED"));
  CHECK_FALSE(scan::equal_ignoring_case("chunked", "chunke"));
  CHECK_FALSE(scan::equal_ignoring_case("\xC3\x89", "\xC3\xA9"));
  CHECK(scan::equal_ignoring_case("", ""));
}

TEST_CASE("text: each trim takes off its own set at both ends and nothing inside", "[text]") {
  const std::string_view s = " \t\v\f\r x \t y\r\n\f\v\t ";
  CHECK(scan::trim_blank(s) == "\v\f\r x \t y\r\n\f\v");
  CHECK(scan::trim_blank_or_cr(s) == "\v\f\r x \t y\r\n\f\v");
  CHECK(scan::trim(s) == "x \t y\r\n");
  CHECK(scan::trim_ascii_space(s) == "x \t y");
  CHECK(scan::trim("  \t\r").empty());
  CHECK(scan::trim("").empty());
  CHECK(scan::trim_if("--a-b--", [](char c) { return c == '-'; }) == "a-b");
}

TEST_CASE("text: skip_blank and first_word", "[text]") {
  CHECK(scan::skip_blank("a \t b", 1) == 4);
  CHECK(scan::skip_blank("a \r", 1) == 2);
  CHECK(scan::skip_blank("a  ", 1) == 3);
  CHECK(scan::skip_blank("", 0) == 0);
  CHECK(scan::first_word("Awake\tmore") == "Awake");
  CHECK(scan::first_word("ON\r") == "ON");
  CHECK(scan::first_word("whole") == "whole");
  CHECK(scan::first_word(" lead").empty());
}

TEST_CASE("text: strip_cr takes one CR and strip_trailing_crs every CR at the end", "[text]") {
  CHECK(scan::strip_cr("line\r\r") == "line\r");
  CHECK(scan::strip_cr("line") == "line");
  CHECK(scan::strip_cr("\r").empty());
  CHECK(scan::strip_trailing_crs("line\r\r") == "line");
  CHECK(scan::strip_trailing_crs("li\rne \r") == "li\rne ");
}

TEST_CASE("text: strip_utf8_bom consume_prefix and all_digits", "[text]") {
  CHECK(scan::strip_utf8_bom("\xEF\xBB\xBF" "abc") == "abc");
  CHECK(scan::strip_utf8_bom("\xEF\xBB") == "\xEF\xBB");
  CHECK(scan::strip_utf8_bom("abc") == "abc");
  std::string_view m = "Skipped 3 frames!";
  CHECK(scan::consume_prefix(m, "Skipped "));
  CHECK(m == "3 frames!");
  CHECK_FALSE(scan::consume_prefix(m, "Skipped "));
  CHECK(m == "3 frames!");
  CHECK(scan::all_digits("0123"));
  CHECK_FALSE(scan::all_digits(""));
  CHECK_FALSE(scan::all_digits("-1"));
  CHECK_FALSE(scan::all_digits("12 "));
}

TEST_CASE("text: split keeps empty fields and split_nonempty drops them", "[text]") {
  CHECK(scan::split("a,,b,", ',') == std::vector<std::string_view>{"a", "", "b", ""});
  CHECK(scan::split("", ',') == std::vector<std::string_view>{""});
  CHECK(scan::split_nonempty("a,,b,", ',') == std::vector<std::string_view>{"a", "b"});
  CHECK(scan::split_nonempty(",,", ',').empty());
  CHECK(scan::split_nonempty(" a , b", ',') == std::vector<std::string_view>{" a ", " b"});
}

TEST_CASE("text: Lines delivers every line with its CR and the last one without a newline", "[text]") {
  scan::Lines lines("a\r\n\nlast");
  std::string_view line;
  REQUIRE(lines.next(line));
  CHECK(line == "a\r");
  CHECK(lines.offset() == 3);
  REQUIRE(lines.next(line));
  CHECK(line.empty());
  REQUIRE(lines.next(line));
  CHECK(line == "last");
  CHECK_FALSE(lines.next(line));
  scan::Lines ends("x\n");
  REQUIRE(ends.next(line));
  CHECK_FALSE(ends.next(line));
}

TEST_CASE("text: for_each_trimmed_line drops the BOM and blank lines", "[text]") {
  std::vector<std::string> seen;
  scan::for_each_trimmed_line("\xEF\xBB\xBF  one \r\n\t\r\n two", [&](std::string_view l) { seen.emplace_back(l); });
  CHECK(seen == std::vector<std::string>{"one", "two"});
}

TEST_CASE("text: Tokens split on runs of their separators and know where each began", "[text]") {
  CHECK(all_tokens(scan::Tokens(" a\t\tbb \v c\r")) == std::vector<std::string>{"a", "bb", "c"});
  CHECK(all_tokens(scan::Tokens("a\vb", scan::is_blank_or_cr)) == std::vector<std::string>{"a\vb"});
  CHECK(all_tokens(scan::Tokens("")).empty());
  scan::Tokens tokens("  size/num  main");
  std::string_view tok;
  REQUIRE(tokens.next(tok));
  CHECK(tokens.pos() == 2);
  REQUIRE(tokens.next(tok));
  CHECK(tok == "main");
  CHECK(tokens.pos() == 12);
}

TEST_CASE("text: parse_int reads the whole text by std::from_chars rules", "[text]") {
  CHECK(scan::parse_int<int>("42") == 42);
  CHECK(scan::parse_int<int>("-42") == -42);
  CHECK(scan::parse_int<std::int64_t>("9223372036854775807") == INT64_MAX);
  CHECK_FALSE(scan::parse_int<std::int64_t>("9223372036854775808"));
  CHECK_FALSE(scan::parse_int<unsigned>("-1"));
  CHECK_FALSE(scan::parse_int<int>("+1"));
  CHECK_FALSE(scan::parse_int<int>(" 1"));
  CHECK_FALSE(scan::parse_int<int>("1 "));
  CHECK_FALSE(scan::parse_int<int>(""));
  CHECK_FALSE(scan::parse_int<std::uint8_t>("256"));
  CHECK(scan::parse_int<std::uint16_t>("fFfF", 16) == 0xffff);
  CHECK_FALSE(scan::parse_int<std::uint16_t>("0x1f", 16));
}

TEST_CASE("text: leading_int reads the digits at the front", "[text]") {
  std::size_t used = 0;
  CHECK(scan::leading_int<int>("120x800", &used) == 120);
  CHECK(used == 3);
  CHECK(scan::leading_int<int>("-5:", &used) == -5);
  CHECK(used == 2);
  CHECK_FALSE(scan::leading_int<int>("x1"));
  CHECK_FALSE(scan::leading_int<unsigned>("-5"));
}

TEST_CASE("text: parse_double and parse_finite read the whole text", "[text]") {
  CHECK(scan::parse_double("16.67") == 16.67);
  CHECK(scan::parse_double("-1e3") == -1000.0);
  CHECK(scan::parse_double("inf").has_value());
  CHECK_FALSE(scan::parse_double("1e3", std::chars_format::fixed));
  CHECK_FALSE(scan::parse_double("+1"));
  CHECK_FALSE(scan::parse_double("1.5ms"));
  CHECK_FALSE(scan::parse_double(""));
  CHECK_FALSE(scan::parse_double("1e999"));
  CHECK(scan::parse_finite("0.5") == 0.5);
  CHECK_FALSE(scan::parse_finite("nan"));
  CHECK_FALSE(scan::parse_finite("-inf"));
}

TEST_CASE("text: parse_into sets its target only when the whole text reads", "[text]") {
  double d = 7;
  CHECK(scan::parse_into("2.5", d));
  CHECK(d == 2.5);
  CHECK_FALSE(scan::parse_into("2.5x", d));
  CHECK(d == 2.5);
  unsigned n = 3;
  CHECK_FALSE(scan::parse_into("-1", n));
  CHECK(n == 3);
  CHECK(scan::parse_into("64", n));
  CHECK(n == 64);
}

TEST_CASE("text: leading_double reads a plain decimal prefix and no sign or infinity", "[text]") {
  std::size_t used = 0;
  CHECK(scan::leading_double("120.00001fps", &used) == 120.00001);
  CHECK(used == 9);
  CHECK(scan::leading_double(".5") == 0.5);
  CHECK_FALSE(scan::leading_double("-60"));
  CHECK_FALSE(scan::leading_double("inf"));
  CHECK_FALSE(scan::leading_double(""));
}

TEST_CASE("text: after_key matches a key only where a token starts", "[text]") {
  CHECK(scan::after_key("mRefreshRateZone=1 mRefreshRate=60", "mRefreshRate=") == "60");
  CHECK(scan::after_key("{id=1, fps=60}", "fps=") == "60}");
  CHECK(scan::after_key("x\nfps=5", "fps=") == "5");
  CHECK_FALSE(scan::after_key("xfps=5", "fps="));
  CHECK(scan::after_key("fps=1 fps=2", "fps=", 1) == "2");
}
