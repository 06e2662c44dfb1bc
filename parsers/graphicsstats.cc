#include "parsers/graphicsstats.h"

#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

// "<digits>ns", "<digits>": the start and end, which are never negative.
std::optional<std::int64_t> parse_stamp(std::string_view v) {
  if (v.ends_with("ns")) v.remove_suffix(2);
  const auto n = scan::parse_int<std::int64_t>(v);
  if (!n || *n < 0) return std::nullopt;
  return n;
}

// A block is counted only when it says what it is and how many frames it holds.
bool complete(const GraphicsStatsBlock& b) {
  return !b.package.empty() && b.version_code && b.stats_start && b.stats.total_frames;
}

}  // namespace

GraphicsStatsDump parse_graphicsstats(std::string_view text) {
  GraphicsStatsDump dump;
  // The block being read, when one is open (a plain value: an optional of
  // it trips g++ 12's maybe-uninitialized warning).
  GraphicsStatsBlock current;
  GraphicsStatsBlock* block = nullptr;
  auto close = [&] {
    if (block == nullptr) return;
    if (complete(current) && dump.blocks.size() < kMaxGraphicsStatsBlocks) {
      dump.blocks.push_back(std::move(current));
    } else {
      ++dump.discarded_blocks;
    }
    current = {};
    block = nullptr;
  };
  bool stray = false;
  scan::for_each_trimmed_line(text, [&](std::string_view line) {
    ++dump.lines;
    const std::size_t colon = line.find(':');
    const std::string_view key = colon == std::string_view::npos ? line : scan::trim(line.substr(0, colon));
    const std::string_view value = colon == std::string_view::npos ? std::string_view() : scan::trim(line.substr(colon + 1));
    if (key == "Package" && colon != std::string_view::npos) {
      close();
      block = &current;
      block->package = std::string(value);
      if (value.empty()) ++dump.malformed_lines;
      return;
    }
    if (!block) {
      stray = true;
      if (line.starts_with("Permission Denial")) dump.permission_denied = true;
      return;
    }
    if (key == "Version") {
      block->version_code = scan::parse_int<std::int64_t>(value);
      if (!block->version_code) ++dump.malformed_lines;
    } else if (key == "Stats since" || key == "Stats end") {
      auto& field = key == "Stats since" ? block->stats_start : block->stats_end;
      field = parse_stamp(value);
      if (!field) ++dump.malformed_lines;
    } else if (is_gfx_stats_key(key)) {
      if (!apply_gfx_stats_line(block->stats, key, value)) ++dump.malformed_lines;
    } else {
      ++dump.malformed_lines;  // a line of no block format: counted, never guessed
    }
  });
  close();
  if (!dump.blocks.empty() || dump.discarded_blocks > 0) {
    dump.text = GraphicsStatsText::graphicsstats;
  } else if (stray) {
    dump.text = GraphicsStatsText::not_recognised;
  }
  return dump;
}

}  // namespace jank::parsers
