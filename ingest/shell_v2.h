// Shell protocol v2 as the host client sees it inside a `shell,v2,...:` stream:
// packets {u8 id; u32 little-endian length; data}, split or merged anyhow
// across reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace jank::ingest {

// Larger than any packet adbd sends (its buffers are well under this); a
// bigger length means the stream is not shell v2 or is corrupt.
inline constexpr std::uint32_t kMaxShellV2Packet = 1024 * 1024;

enum class ShellV2Id : std::uint8_t { stdin_ = 0, stdout_ = 1, stderr_ = 2, exit = 3, close_stdin = 4, window_size = 5 };

class ShellV2Sink {
 public:
  virtual ~ShellV2Sink() = default;
  // Payload bytes as they arrive; one packet may come in several calls.
  virtual void on_stdout(std::string_view bytes) = 0;
  virtual void on_stderr(std::string_view bytes) = 0;
  virtual void on_exit(std::uint8_t code) = 0;
};

enum class ShellV2Error : std::uint8_t {
  none,
  packet_too_large,  // length > kMaxShellV2Packet
  bad_exit_packet,   // exit packet whose length is not 1
  data_after_exit,
};

class ShellV2Demuxer {
 public:
  // Feeds the next bytes of the stream. After an error, further input is
  // ignored and the error stays; the caller closes the stream.
  ShellV2Error feed(std::string_view bytes, ShellV2Sink& sink);

  ShellV2Error error() const { return error_; }
  bool exited() const { return exited_; }
  // True between packets: EOF here without exit() is a dropped device; EOF
  // elsewhere also cut a packet.
  bool at_packet_boundary() const { return header_bytes_ == 0 && remaining_ == 0; }
  // Packets with ids the host never expects from a device (stdin, window size,
  // unknown): their payload is skipped.
  std::uint64_t ignored_packets() const { return ignored_packets_; }

 private:
  ShellV2Error fail(ShellV2Error error) { return error_ = error; }

  unsigned char header_[5] = {};
  std::size_t header_bytes_ = 0;
  std::uint8_t id_ = 0;
  std::uint32_t remaining_ = 0;  // payload bytes of the current packet still to come
  bool in_payload_ = false;
  bool exited_ = false;
  ShellV2Error error_ = ShellV2Error::none;
  std::uint64_t ignored_packets_ = 0;
};

}  // namespace jank::ingest
