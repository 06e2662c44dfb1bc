// Opening a file whose path someone else may have changed (a trace, its
// metadata): only a regular file is opened, never what a symlink in its
// place points to, and a FIFO or device in its place never blocks the
// caller. The one implementation for the HTTP server and app/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace jank::exporters {

// A descriptor (close-on-exec) of the regular file at `path`, its size in
// `*size` when given; -1 (errno set) when the path is missing, a symlink
// (the last component is not followed), or anything but a regular file.
int open_regular_file(const std::string& path, std::uint64_t* size = nullptr);

// The whole regular file at `path` into `out` when it holds at most
// `max_bytes`; false when it cannot be opened as above, cannot be read, or is
// larger (then it is not read beyond max_bytes + 1).
bool read_regular_file(const std::string& path, std::size_t max_bytes, std::string& out);

}  // namespace jank::exporters
