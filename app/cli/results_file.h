// Results files (docs/runs.md, format 1) read for `compare` and `report`,
// bounded: a wrong path (/dev/zero, a capture, a pipe that never ends) costs
// at most kMaxResultsBytes of memory and ends with an error naming it.
#pragma once

#include <cstdio>
#include <string>

namespace jank::app {

// Reads the whole of `path` into `text`; `name` (the path as given, or
// "standard input") names it in the error. Returns "" or the error.
std::string read_results_file(const std::string& path, const std::string& name, std::string& text);

// The same from an open stream (standard input), which is left open.
std::string read_results_stream(std::FILE* file, const std::string& name, std::string& text);

}  // namespace jank::app
