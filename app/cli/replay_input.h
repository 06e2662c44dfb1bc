// One input of `replay`: a file (or standard input) read in chunks, closed
// with it when it is replay's own.
#pragma once

#include <cstdio>
#include <string>

namespace jank::app {

class Input {
 public:
  Input(std::FILE* f, bool owned) : f_(f), owned_(owned) {}
  ~Input() {
    if (owned_ && f_ != nullptr) std::fclose(f_);
  }
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;
  std::FILE* file() const { return f_; }
  // Appends up to n bytes; returns bytes read, 0 at EOF; -1 on error.
  long read(std::string& buf, std::size_t n) {
    const std::size_t old = buf.size();
    buf.resize(old + n);
    std::size_t got = std::fread(buf.data() + old, 1, n, f_);
    buf.resize(old + got);
    if (got == 0 && std::ferror(f_)) return -1;
    return static_cast<long>(got);
  }

 private:
  std::FILE* f_;
  bool owned_;
};

}  // namespace jank::app
