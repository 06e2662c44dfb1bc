#include "tests/rig/json.h"

#include <cstdlib>

namespace jank::rig {
namespace {

const Json kNull{};

struct Parser {
  std::string_view s;
  std::size_t i = 0;
  bool ok = true;

  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  std::string string() {
    std::string out;
    if (!eat('"')) {
      ok = false;
      return out;
    }
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\' && i + 1 < s.size()) {
        ++i;
        char c = s[i];
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
      } else {
        out += s[i];
      }
      ++i;
    }
    if (i >= s.size()) ok = false;
    ++i;
    return out;
  }
  Json value() {
    Json j;
    ws();
    if (i >= s.size()) {
      ok = false;
      return j;
    }
    const char c = s[i];
    if (c == '{') {
      ++i;
      j.type = Json::Type::object;
      if (eat('}')) return j;
      do {
        std::string k = string();
        if (!eat(':')) ok = false;
        j.obj[k] = value();
      } while (ok && eat(','));
      if (!eat('}')) ok = false;
    } else if (c == '[') {
      ++i;
      j.type = Json::Type::array;
      if (eat(']')) return j;
      do {
        j.arr.push_back(value());
      } while (ok && eat(','));
      if (!eat(']')) ok = false;
    } else if (c == '"') {
      j.type = Json::Type::string;
      j.str = string();
    } else if (s.substr(i, 4) == "true" || s.substr(i, 5) == "false") {
      j.type = Json::Type::boolean;
      j.b = s[i] == 't';
      i += j.b ? 4 : 5;
    } else if (s.substr(i, 4) == "null") {
      i += 4;
    } else {
      std::string num(s.substr(i, s.find_first_of(",]} \n", i) - i));
      char* end = nullptr;
      j.type = Json::Type::number;
      j.num = std::strtod(num.c_str(), &end);
      if (num.empty() || *end) ok = false;
      i += num.size();
    }
    return j;
  }
};

}  // namespace

const Json& Json::operator[](std::string_view key) const {
  auto it = obj.find(std::string(key));
  return it == obj.end() ? kNull : it->second;
}

const Json& Json::operator[](std::size_t idx) const { return idx < arr.size() ? arr[idx] : kNull; }

std::optional<Json> parse_json(std::string_view text) {
  Parser p{text};
  Json j = p.value();
  p.ws();
  if (!p.ok || p.i != text.size()) return std::nullopt;
  return j;
}

}  // namespace jank::rig
