#include "parsers/logd_statistics.h"

#include <vector>

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

struct Word {
  std::string_view text;
  std::size_t column = 0;
};

std::vector<Word> words(std::string_view line) {
  std::vector<Word> out;
  scan::Tokens tokens(line, scan::is_blank_or_cr);
  std::string_view tok;
  while (tokens.next(tok)) out.push_back({tok, tokens.pos()});
  return out;
}

// "bytes/lines" → lines.
bool cell_lines(std::string_view cell, std::uint64_t& lines) {
  const auto slash = cell.find('/');
  if (slash == std::string_view::npos) return false;
  const auto n = scan::parse_int<std::uint64_t>(cell.substr(slash + 1));
  if (n) lines = *n;
  return n.has_value();
}

}  // namespace

std::map<std::string, LogdBufferLines, std::less<>> parse_logd_statistics(std::string_view text) {
  std::map<std::string, LogdBufferLines, std::less<>> out;
  std::vector<Word> names;
  bool total = false, now = false;
  scan::Lines text_lines(text);
  std::string_view line;
  while (!(total && now) && text_lines.next(line)) {
    const auto w = words(line);
    if (w.empty()) continue;
    if (w[0].text == "size/num") {
      names.assign(w.begin() + 1, w.end());
      continue;
    }
    const bool is_total = w[0].text == "Total" && !total, is_now = w[0].text == "Now" && !now;
    if (names.empty() || (!is_total && !is_now)) continue;
    for (std::size_t i = 1; i < w.size(); ++i) {
      // Cells line up under the header's names; logd leaves out the "Now"
      // cell of an empty buffer, so a short row is matched by column.
      const Word* name = nullptr;
      if (w.size() - 1 == names.size()) {
        name = &names[i - 1];
      } else {
        for (const auto& n : names) {
          if (n.column <= w[i].column + 2) name = &n;
        }
      }
      std::uint64_t lines = 0;
      if (name == nullptr || !cell_lines(w[i].text, lines)) return {};
      auto& b = out[std::string(name->text)];
      (is_total ? b.total : b.now) = lines;
    }
    (is_total ? total : now) = true;
  }
  if (!total || !now) return {};
  return out;
}

}  // namespace jank::parsers
