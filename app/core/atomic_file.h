// A file replaced whole or not at all: what the checkpoint (app/daemon/state_file.h)
// and the trace directory (app/core/trace_store.h) both write with.
#pragma once

#include <string>
#include <string_view>

namespace jank::app {

// Writes `text` to `path` through a temporary file, fsync, rename and an
// fsync of the directory. On failure the temporary file is removed, no
// descriptor stays open, and `error` says which step failed.
bool write_atomically(const std::string& path, std::string_view text, std::string& error);

}  // namespace jank::app
