#include "exporters/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace jank::exporters {

int open_regular_file(const std::string& path, std::uint64_t* size) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of
  // waiting for one (it is then refused below); reads of a regular file
  // ignore the flag. O_NOFOLLOW: a symlink put in the file's place fails with ELOOP.
  int fd = -1;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    errno = EINVAL;
    return -1;
  }
  if (size != nullptr) *size = static_cast<std::uint64_t>(st.st_size);
  return fd;
}

bool read_regular_file(const std::string& path, std::size_t max_bytes, std::string& out) {
  out.clear();
  const int fd = open_regular_file(path);
  if (fd < 0) return false;
  out.resize(max_bytes + 1);
  std::size_t got = 0;
  bool ok = true;
  while (got < out.size()) {
    const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(got);
  return ok && got <= max_bytes;
}

}  // namespace jank::exporters
