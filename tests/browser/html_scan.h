// A start-tag scanner for the report tests: enough of HTML to find elements
// by their attributes in the generator's output and in Chromium's DOM dump
// (both quote every attribute value with "). Not a parser for other pages.
#pragma once

#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace jank::test {

struct Tag {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;  // the text up to the next tag, entities decoded

  bool has(const std::string& a) const { return attrs.count(a) != 0; }
  std::string get(const std::string& a) const {
    auto it = attrs.find(a);
    return it == attrs.end() ? std::string() : it->second;
  }
};

inline std::string decode_entities(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const std::size_t semi = s.find(';', i);
    if (semi == std::string_view::npos) {
      out += s[i];
      continue;
    }
    const std::string_view name = s.substr(i + 1, semi - i - 1);
    if (name == "amp") out += '&';
    else if (name == "lt") out += '<';
    else if (name == "gt") out += '>';
    else if (name == "quot") out += '"';
    else if (name == "#39") out += '\'';
    else if (name == "nbsp") out += "\u00a0";
    else {
      out += s.substr(i, semi - i + 1);
    }
    i = semi;
  }
  return out;
}

// Every start tag of `html` outside <script> and <style> bodies.
inline std::vector<Tag> scan_tags(std::string_view html) {
  std::vector<Tag> tags;
  std::size_t i = 0;
  while ((i = html.find('<', i)) != std::string_view::npos) {
    ++i;
    if (i >= html.size() || !std::isalpha(static_cast<unsigned char>(html[i]))) continue;
    Tag t;
    while (i < html.size() && (std::isalnum(static_cast<unsigned char>(html[i])) || html[i] == '-')) t.name += html[i++];
    for (;;) {
      while (i < html.size() && std::isspace(static_cast<unsigned char>(html[i]))) ++i;
      if (i >= html.size() || html[i] == '>' || html[i] == '/') break;
      std::string name;
      while (i < html.size() && !std::isspace(static_cast<unsigned char>(html[i])) && html[i] != '=' && html[i] != '>') {
        name += html[i++];
      }
      std::string value;
      if (i < html.size() && html[i] == '=') {
        ++i;
        if (i < html.size() && html[i] == '"') {
          const std::size_t end = html.find('"', i + 1);
          if (end == std::string_view::npos) return tags;
          value = decode_entities(html.substr(i + 1, end - i - 1));
          i = end + 1;
        } else {
          while (i < html.size() && !std::isspace(static_cast<unsigned char>(html[i])) && html[i] != '>') value += html[i++];
        }
      }
      t.attrs[name] = value;
    }
    const std::size_t close = html.find('>', i);
    if (close == std::string_view::npos) break;
    i = close + 1;
    if (t.name == "script" || t.name == "style") {
      const std::size_t end = html.find("</" + t.name, i);
      t.text = std::string(html.substr(i, end - i));
      i = end == std::string_view::npos ? html.size() : end;
    } else {
      const std::size_t next = html.find('<', i);
      t.text = decode_entities(html.substr(i, next - i));
    }
    tags.push_back(std::move(t));
  }
  return tags;
}

// Tags carrying every attribute of `want` with that value.
inline std::vector<Tag> find_tags(const std::vector<Tag>& tags, const std::map<std::string, std::string>& want) {
  std::vector<Tag> out;
  for (const auto& t : tags) {
    bool ok = true;
    for (const auto& [k, v] : want) {
      if (t.get(k) != v || !t.has(k)) {
        ok = false;
        break;
      }
    }
    if (ok) out.push_back(t);
  }
  return out;
}

// The live view's table (docs/live-view.md): the cell of `metric` in the row
// of `serial` (rows carry data-serial, cells data-metric), or nullptr.
inline const Tag* live_cell(const std::vector<Tag>& tags, const std::string& serial, const std::string& metric) {
  std::string row;
  for (const auto& t : tags) {
    if (t.name == "tr") row = t.get("data-serial");
    if (t.name == "td" && row == serial && t.get("data-metric") == metric) return &t;
  }
  return nullptr;
}

}  // namespace jank::test
