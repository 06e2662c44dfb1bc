#include "app/cli/results_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "exporters/run_results_input.h"

namespace jank::app {
namespace {

using exporters::results::kMaxResultsBytes;

std::string too_large(const std::string& name) {
  return name + ": larger than " + std::to_string(kMaxResultsBytes >> 20) + " MiB, not a results file";
}

}  // namespace

std::string read_results_stream(std::FILE* file, const std::string& name, std::string& text) {
  text.clear();
  // A regular file's size is known: refuse it unread (and reserve once).
  struct stat st {};
  if (::fstat(::fileno(file), &st) == 0 && S_ISREG(st.st_mode)) {
    if (static_cast<std::uintmax_t>(st.st_size) > kMaxResultsBytes) return too_large(name);
    text.reserve(static_cast<std::size_t>(st.st_size));
  } else {
    // Room for the most it may read, once: pages not written to cost no
    // memory, and the string never doubles past the limit as it grows.
    text.reserve(kMaxResultsBytes + 1);
  }
  // Anything else (a pipe, a character device, a file still growing) is read
  // up to one byte past the limit, never further.
  char buf[1 << 16];
  while (text.size() <= kMaxResultsBytes) {
    const std::size_t want = std::min(sizeof buf, kMaxResultsBytes + 1 - text.size());
    const std::size_t got = std::fread(buf, 1, want, file);
    text.append(buf, got);
    if (got < want) break;
  }
  if (std::ferror(file) != 0) {
    const int saved = errno;
    text.clear();
    return "cannot read " + name + ": " + std::strerror(saved);
  }
  if (text.size() > kMaxResultsBytes) {
    text.clear();
    text.shrink_to_fit();
    return too_large(name);
  }
  return "";
}

std::string read_results_file(const std::string& path, const std::string& name, std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return "cannot open " + name + ": " + std::strerror(errno);
  std::string error = read_results_stream(f, name, text);
  std::fclose(f);
  return error;
}

}  // namespace jank::app
