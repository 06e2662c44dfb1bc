#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ingest/device_stream.h"
#include "ingest/shell_v2.h"

using namespace jank::ingest;

namespace {

std::string packet(std::uint8_t id, const std::string& data) {
  std::string out(1, static_cast<char>(id));
  auto n = static_cast<std::uint32_t>(data.size());
  for (int i = 0; i < 4; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  return out + data;
}

std::string header(std::uint8_t id, std::uint32_t n) {
  std::string out(1, static_cast<char>(id));
  for (int i = 0; i < 4; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

// Records output as a list of (channel, bytes), merging consecutive pieces of
// one channel so that any chunking gives the same record.
struct Record : ShellV2Sink {
  std::vector<std::pair<char, std::string>> parts;
  int exit_code = -1;
  void add(char channel, std::string_view bytes) {
    if (!parts.empty() && parts.back().first == channel) {
      parts.back().second.append(bytes);
    } else {
      parts.emplace_back(channel, std::string(bytes));
    }
  }
  void on_stdout(std::string_view bytes) override { add('o', bytes); }
  void on_stderr(std::string_view bytes) override { add('e', bytes); }
  void on_exit(std::uint8_t code) override { exit_code = code; }
};

const std::string kStream = packet(1, "hello\n") + packet(2, "oops\n") + packet(1, "") + packet(5, "24x80,0x0") +
                            packet(1, std::string("bin\0ary\xff", 8)) + packet(3, std::string(1, '\x07'));

void check_expected(const Record& r) {
  REQUIRE(r.parts.size() == 3);
  CHECK(r.parts[0] == std::pair<char, std::string>{'o', "hello\n"});
  CHECK(r.parts[1] == std::pair<char, std::string>{'e', "oops\n"});
  CHECK(r.parts[2] == std::pair<char, std::string>{'o', std::string("bin\0ary\xff", 8)});
  CHECK(r.exit_code == 7);
}

}  // namespace

TEST_CASE("shell v2: a whole stream in one chunk", "[adb]") {
  ShellV2Demuxer demux;
  Record r;
  CHECK(demux.at_packet_boundary());
  CHECK(demux.feed(kStream, r) == ShellV2Error::none);
  check_expected(r);
  CHECK(demux.exited());
  CHECK(demux.at_packet_boundary());
  CHECK(demux.ignored_packets() == 1);  // the window-size packet
}

TEST_CASE("shell v2: every split into two and three chunks gives the same output", "[adb]") {
  const std::string_view s = kStream;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    for (std::size_t j = i; j <= s.size(); ++j) {
      ShellV2Demuxer demux;
      Record r;
      REQUIRE(demux.feed(s.substr(0, i), r) == ShellV2Error::none);
      REQUIRE(demux.feed(s.substr(i, j - i), r) == ShellV2Error::none);
      REQUIRE(demux.feed(s.substr(j), r) == ShellV2Error::none);
      INFO("split at " << i << ", " << j);
      check_expected(r);
    }
  }
}

TEST_CASE("shell v2: byte by byte with the boundary state tracked", "[adb]") {
  ShellV2Demuxer demux;
  Record r;
  std::string first = packet(1, "ab");
  for (std::size_t i = 0; i < first.size(); ++i) {
    CHECK(demux.at_packet_boundary() == (i == 0));
    demux.feed(first.substr(i, 1), r);
  }
  CHECK(demux.at_packet_boundary());
  for (char c : kStream) demux.feed(std::string_view(&c, 1), r);
  REQUIRE(r.parts.size() == 3);
  CHECK(r.parts[0].second == "abhello\n");
  CHECK(r.exit_code == 7);
}

TEST_CASE("shell v2: EOF without an exit packet is visible", "[adb]") {
  ShellV2Demuxer demux;
  Record r;
  demux.feed(packet(1, "partial line"), r);
  CHECK_FALSE(demux.exited());
  CHECK(demux.at_packet_boundary());
  demux.feed(header(1, 10) + "abc", r);
  CHECK_FALSE(demux.at_packet_boundary());  // cut inside a packet
}

TEST_CASE("shell v2: absurd lengths are a protocol error whether split or not", "[adb]") {
  const std::string big = header(1, kMaxShellV2Packet + 1);
  for (std::size_t split = 0; split <= big.size(); ++split) {
    ShellV2Demuxer demux;
    Record r;
    demux.feed(big.substr(0, split), r);
    CHECK(demux.feed(big.substr(split), r) == ShellV2Error::packet_too_large);
    CHECK(r.parts.empty());
  }
  ShellV2Demuxer demux;
  Record r;
  CHECK(demux.feed(header(2, 0xffffffffu), r) == ShellV2Error::packet_too_large);
  // Sticky: nothing more is delivered.
  CHECK(demux.feed(packet(1, "x"), r) == ShellV2Error::packet_too_large);
  CHECK(r.parts.empty());
  CHECK(demux.error() == ShellV2Error::packet_too_large);
}

TEST_CASE("shell v2: the largest allowed packet streams through in pieces", "[adb]") {
  ShellV2Demuxer demux;
  Record r;
  std::string data(kMaxShellV2Packet, 'z');
  std::string stream = packet(1, data);
  for (std::size_t at = 0; at < stream.size(); at += 65536) {
    REQUIRE(demux.feed(std::string_view(stream).substr(at, 65536), r) == ShellV2Error::none);
  }
  REQUIRE(r.parts.size() == 1);
  CHECK(r.parts[0].second.size() == kMaxShellV2Packet);
  CHECK(demux.at_packet_boundary());
}

TEST_CASE("shell v2: malformed exit packets and data after exit", "[adb]") {
  {
    ShellV2Demuxer demux;
    Record r;
    CHECK(demux.feed(header(3, 0), r) == ShellV2Error::bad_exit_packet);
  }
  {
    ShellV2Demuxer demux;
    Record r;
    CHECK(demux.feed(packet(3, "ab"), r) == ShellV2Error::bad_exit_packet);
    CHECK(r.exit_code == -1);
  }
  {
    ShellV2Demuxer demux;
    Record r;
    CHECK(demux.feed(packet(3, std::string(1, '\0')), r) == ShellV2Error::none);
    CHECK(r.exit_code == 0);
    CHECK(demux.feed(packet(1, "late"), r) == ShellV2Error::data_after_exit);
    CHECK(r.parts.empty());
  }
}

TEST_CASE("shell v2: packets a device should not send are skipped with their payload", "[adb]") {
  ShellV2Demuxer demux;
  Record r;
  std::string stream = packet(0, "stdin?") + packet(4, "") + packet(5, "1x1,0x0") + packet(200, "future") +
                       packet(1, "kept");
  for (char c : stream) REQUIRE(demux.feed(std::string_view(&c, 1), r) == ShellV2Error::none);
  CHECK(demux.ignored_packets() == 4);
  REQUIRE(r.parts.size() == 1);
  CHECK(r.parts[0].second == "kept");
}

TEST_CASE("a failed command is described by its error, exit status and the first line of its stderr", "[adb][shell]") {
  using jank::ingest::AdbError;
  using jank::ingest::AdbErrorKind;
  CHECK(jank::ingest::failure_text({}, 0, "") == "");
  CHECK(jank::ingest::failure_text({}, 1, "Unable to open log device 'main,system'\n") ==
        "exit status 1: Unable to open log device 'main,system'");
  // The first line that says something; usage text after it is left out.
  CHECK(jank::ingest::failure_text({}, 255, "\n\r\nInvalid parameter to -v\nUsage: logcat [options]\n") ==
        "exit status 255: Invalid parameter to -v");
  CHECK(jank::ingest::failure_text(AdbError{AdbErrorKind::timeout, "no answer"}, std::nullopt, "") ==
        AdbError{AdbErrorKind::timeout, "no answer"}.to_string());
  jank::ingest::ShellResult r;
  r.exit_code = 127;
  r.error_output = "/system/bin/sh: pidof: not found\n";
  CHECK(jank::ingest::failure_text(r) == "exit status 127: /system/bin/sh: pidof: not found");
}
