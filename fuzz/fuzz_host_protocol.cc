// The adb host-protocol reply parsers and the shell v2 demuxer on arbitrary
// bytes: what a broken or hostile adb server (or device) could send.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ingest/protocol.h"
#include "ingest/shell_v2.h"
#include "parsers/names.h"

namespace {

class CountingSink final : public jank::ingest::ShellV2Sink {
 public:
  void on_stdout(std::string_view bytes) override { out += bytes.size(); }
  void on_stderr(std::string_view bytes) override { err += bytes.size(); }
  void on_exit(std::uint8_t) override { ++exits; }
  std::size_t out = 0, err = 0, exits = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jank::ingest;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  (void)parse_status(bytes.substr(0, 4));
  if (const auto length = parse_hex4(bytes.substr(0, 4)); length && bytes.size() >= 4U + *length) {
    (void)parse_device_list(bytes.substr(4, *length), ListFormat::plain);
  }
  const auto plain = parse_device_list(bytes, ListFormat::plain);
  const auto long_form = parse_device_list(bytes, ListFormat::long_);
  // Diffing must be consistent: a list diffed against itself has no events.
  if (!diff_device_lists(long_form.devices, long_form.devices).empty()) std::abort();
  (void)diff_device_lists(plain.devices, long_form.devices);
  (void)diff_device_lists(long_form.devices, {});
  (void)parse_features(bytes);

  // Anything a device reports may end up in a service string: it must either
  // be refused or fit one OPEN packet.
  const std::string command = quote_args({bytes, "--", bytes.substr(0, bytes.size() / 2)});
  for (const auto protocol : {ShellProtocol::v2, ShellProtocol::legacy}) {
    if (const auto service = shell_service(protocol, command)) {
      if (service->size() > kMaxServiceBytes) std::abort();
    }
  }
  if (jank::parsers::valid_package_name(bytes) && shell_quote(bytes) != "'" + std::string(bytes) + "'") std::abort();

  // The same stream fed whole and in uneven pieces must give the same result.
  CountingSink whole, pieces;
  ShellV2Demuxer a, b;
  const auto error_whole = a.feed(bytes, whole);
  ShellV2Error error_pieces = ShellV2Error::none;
  for (std::size_t pos = 0, step = 1; pos < bytes.size(); pos += step, step = step % 7 + 1) {
    error_pieces = b.feed(bytes.substr(pos, step), pieces);
  }
  if (error_whole != error_pieces || whole.out != pieces.out || whole.err != pieces.err ||
      whole.exits != pieces.exits || a.at_packet_boundary() != b.at_packet_boundary()) {
    std::abort();
  }
  return 0;
}
