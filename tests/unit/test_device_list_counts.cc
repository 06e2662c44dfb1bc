#include <catch2/catch.hpp>

#include "ingest/protocol.h"

using namespace jank::ingest;

TEST_CASE("device list: every non-empty line is counted, malformed ones among them", "[adb][device_list]") {
  const auto list = parse_device_list(
      "emulator-5554\tdevice\n"
      "\n"
      "no-state-here\n"
      "0123456789ABCDEF\toffline\n"
      "emulator-5554\tdevice\n"  // a duplicate serial parses; it is not a second device
      "\tdevice\n",
      ListFormat::plain);
  CHECK(list.devices.size() == 2);
  CHECK(list.lines == 5);
  CHECK(list.malformed_lines == 2);
  CHECK(list.duplicate_serials == 1);
}
