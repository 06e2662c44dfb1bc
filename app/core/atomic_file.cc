#include "app/core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace jank::app {
namespace {

namespace fs = std::filesystem;

// Closes on every path out, so a failed step cannot leak the descriptor.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now: close() can report a write the kernel failed to flush.
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

std::string failed(const std::string& what, const std::string& path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

}  // namespace

bool write_atomically(const std::string& path, std::string_view text, std::string& error) {
  const std::string tmp = path + ".tmp";
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640));
  if (fd.get() < 0) {
    error = failed("create", tmp);
    return false;
  }
  auto give_up = [&](const std::string& message) {
    error = message;
    ::unlink(tmp.c_str());
    return false;
  };
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return give_up(failed("write", tmp));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) return give_up(failed("flush", tmp));
  if (!fd.close()) return give_up(failed("close", tmp));
  if (::rename(tmp.c_str(), path.c_str()) != 0) return give_up(failed("replace", path));
  const std::string dir = fs::path(path).parent_path().string();
  Fd dfd(::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd.get() >= 0) ::fsync(dfd.get());  // the rename is durable once the directory is
  return true;
}

}  // namespace jank::app
