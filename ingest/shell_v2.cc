#include "ingest/shell_v2.h"

#include <algorithm>

namespace jank::ingest {

ShellV2Error ShellV2Demuxer::feed(std::string_view bytes, ShellV2Sink& sink) {
  if (error_ != ShellV2Error::none) return error_;
  while (!bytes.empty()) {
    if (!in_payload_) {
      if (exited_) return fail(ShellV2Error::data_after_exit);
      auto take = std::min(bytes.size(), sizeof header_ - header_bytes_);
      std::copy_n(bytes.data(), take, header_ + header_bytes_);
      header_bytes_ += take;
      bytes.remove_prefix(take);
      if (header_bytes_ < sizeof header_) break;
      header_bytes_ = 0;
      id_ = header_[0];
      remaining_ = static_cast<std::uint32_t>(header_[1]) | static_cast<std::uint32_t>(header_[2]) << 8 |
                   static_cast<std::uint32_t>(header_[3]) << 16 | static_cast<std::uint32_t>(header_[4]) << 24;
      if (remaining_ > kMaxShellV2Packet) return fail(ShellV2Error::packet_too_large);
      if (id_ == static_cast<std::uint8_t>(ShellV2Id::exit) && remaining_ != 1) {
        return fail(ShellV2Error::bad_exit_packet);
      }
      if (id_ != static_cast<std::uint8_t>(ShellV2Id::stdout_) &&
          id_ != static_cast<std::uint8_t>(ShellV2Id::stderr_) && id_ != static_cast<std::uint8_t>(ShellV2Id::exit)) {
        ++ignored_packets_;
      }
      in_payload_ = remaining_ > 0;
      continue;
    }
    auto take = std::min<std::size_t>(bytes.size(), remaining_);
    auto chunk = bytes.substr(0, take);
    bytes.remove_prefix(take);
    remaining_ -= static_cast<std::uint32_t>(take);
    if (remaining_ == 0) in_payload_ = false;
    switch (static_cast<ShellV2Id>(id_)) {
      case ShellV2Id::stdout_: sink.on_stdout(chunk); break;
      case ShellV2Id::stderr_: sink.on_stderr(chunk); break;
      case ShellV2Id::exit:
        exited_ = true;
        sink.on_exit(static_cast<std::uint8_t>(chunk[0]));
        break;
      default: break;
    }
  }
  return error_;
}

}  // namespace jank::ingest
