// A capture of ../shared/corpus as text: read whole and decoded to UTF-8 as
// the exporter's inputs are (UTF-16 with a BOM, say).
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "parsers/text_input.h"

namespace jank::corpus_test {

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return jank::parsers::decode_to_utf8(ss.str());
}

}  // namespace jank::corpus_test
