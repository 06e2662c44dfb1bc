#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ingest/protocol.h"
#include "parsers/names.h"
#include "tests/support/names.h"

using namespace jank::ingest;
using namespace std::string_literals;

namespace {
// One devices-l line exactly as adb 29.0.6 prints it ("%-22s %s" + fields).
std::string long_line(const std::string& serial, const std::string& state, const std::string& fields) {
  char head[256];
  std::snprintf(head, sizeof head, "%-22s %s", serial.c_str(), state.c_str());
  return head + (fields.empty() ? "" : " " + fields) + "\n";
}
}  // namespace

TEST_CASE("encode_request writes four lower-case hex digits and the payload", "[adb]") {
  CHECK(encode_request("host:version") == "000chost:version"s);
  CHECK(encode_request("x") == "0001x"s);
  CHECK(encode_request(std::string(255, 'a'))->substr(0, 4) == "00ff");
  CHECK(encode_request(std::string(0xabc, 'a'))->substr(0, 4) == "0abc");
  CHECK(encode_request(std::string(65535, 'a'))->substr(0, 4) == "ffff");
  CHECK(encode_request(std::string(65535, 'a'))->size() == 65539);
  CHECK_FALSE(encode_request(""));
  CHECK_FALSE(encode_request(std::string(65536, 'a')));
}

TEST_CASE("parse_hex4 reads every 4-digit value in either case and nothing else", "[adb]") {
  char text[8];
  for (unsigned v = 0; v <= 0xffff; ++v) {
    std::snprintf(text, sizeof text, "%04x", v);
    REQUIRE(parse_hex4(text) == v);
    std::snprintf(text, sizeof text, "%04X", v);
    REQUIRE(parse_hex4(text) == v);
  }
  for (const char* bad : {"", "fff", "fffff", "0x12", "-001", " 123", "123 ", "g000", "00:0", "+001"}) {
    INFO(bad);
    CHECK_FALSE(parse_hex4(bad));
  }
  CHECK_FALSE(parse_hex4(std::string_view("\0\0\0\0", 4)));
}

TEST_CASE("parse_status knows OKAY and FAIL only", "[adb]") {
  CHECK(parse_status("OKAY") == Status::okay);
  CHECK(parse_status("FAIL") == Status::fail);
  for (const char* bad : {"okay", "fail", "OKA", "OKAYO", "", "0029", "FAIL0006"}) {
    INFO(bad);
    CHECK(parse_status(bad) == Status::invalid);
  }
}

TEST_CASE("transport and features requests keep serials with ':' intact", "[adb]") {
  CHECK(transport_request("127.0.0.1:37645") == "host:transport:127.0.0.1:37645");
  CHECK(features_request("127.0.0.1:37645") == "host-serial:127.0.0.1:37645:features");
  CHECK(transport_request("emulator-5554") == "host:transport:emulator-5554");
}

TEST_CASE("host:devices lists: serial TAB state per line", "[adb]") {
  auto list = parse_device_list(
      "emulator-5554\tdevice\n127.0.0.1:37645\toffline\n0123ABC\tunauthorized\n"
      "ZX1G\tno permissions (user in plugdev group; are your udev rules wrong?); see "
      "[http://developer.android.com/tools/device.html]\n",
      ListFormat::plain);
  REQUIRE(list.devices.size() == 4);
  CHECK(list.malformed_lines == 0);
  CHECK(list.devices[0].serial == "emulator-5554");
  CHECK(list.devices[0].state == "device");
  CHECK(list.devices[1].serial == "127.0.0.1:37645");
  CHECK(list.devices[1].state == "offline");
  CHECK(list.devices[2].state == "unauthorized");
  CHECK(list.devices[3].state.starts_with("no permissions (user in plugdev group;"));
  CHECK(list.devices[3].state.ends_with("device.html]"));

  CHECK(parse_device_list("", ListFormat::plain).devices.empty());
  CHECK(parse_device_list("\n\n", ListFormat::plain).devices.empty());
  auto no_newline = parse_device_list("a\tdevice", ListFormat::plain);
  REQUIRE(no_newline.devices.size() == 1);
  CHECK(no_newline.devices[0].state == "device");
  auto crlf = parse_device_list("a\tdevice\r\nb\toffline\r\n", ListFormat::plain);
  REQUIRE(crlf.devices.size() == 2);
  CHECK(crlf.devices[1].state == "offline");

  auto bad = parse_device_list("no-tab device\n\tdevice\nserial\t\nok\tdevice\n", ListFormat::plain);
  CHECK(bad.malformed_lines == 3);
  REQUIRE(bad.devices.size() == 1);
  CHECK(bad.devices[0].serial == "ok");
}

TEST_CASE("host:devices-l lists: padded serial and state then key:value fields", "[adb]") {
  std::string payload =
      long_line("emulator-5554", "device",
                "product:sdk_gphone_x86 model:Android_SDK_built_for_x86 device:generic_x86 transport_id:1") +
      long_line("127.0.0.1:37645", "offline", "transport_id:3") +
      long_line("0123456789ABCDEF", "unauthorized", "usb:1-1.2 transport_id:2") +
      long_line("ZX1G22", "no permissions (user in plugdev group; are your udev rules wrong?); see "
                "[http://developer.android.com/tools/device.html]", "usb:1-4 transport_id:5") +
      long_line("(no serial number)", "no permissions (missing udev rules? user is in the plugdev group); see "
                "[http://developer.android.com/tools/device.html]", "usb:3-1 transport_id:7") +
      long_line("a-very-long-serial-number-that-exceeds-22", "device", "product:p model:m device:d transport_id:12") +
      long_line("localhost:5555", "device", "product:fakedev0 model:Fake_fakedev0 device:fakedev0 transport_id:4") +
      long_line("R58M12345", "recovery", "usb:2-1 product:beyond1 model:SM_G973F device:beyond1 transport_id:9");
  auto list = parse_device_list(payload, ListFormat::long_);
  CHECK(list.malformed_lines == 0);
  REQUIRE(list.devices.size() == 8);

  const auto& emu = list.devices[0];
  CHECK(emu.serial == "emulator-5554");
  CHECK(emu.state == "device");
  CHECK(emu.product == "sdk_gphone_x86");
  CHECK(emu.model == "Android_SDK_built_for_x86");
  CHECK(emu.device == "generic_x86");
  CHECK(emu.transport_id == 1u);
  CHECK(emu.usb.empty());

  CHECK(list.devices[1].serial == "127.0.0.1:37645");
  CHECK(list.devices[1].state == "offline");
  CHECK(list.devices[1].product.empty());
  CHECK(list.devices[1].transport_id == 3u);

  CHECK(list.devices[2].state == "unauthorized");
  CHECK(list.devices[2].usb == "1-1.2");

  CHECK(list.devices[3].serial == "ZX1G22");
  CHECK(list.devices[3].state ==
        "no permissions (user in plugdev group; are your udev rules wrong?); see "
        "[http://developer.android.com/tools/device.html]");
  CHECK(list.devices[3].usb == "1-4");
  CHECK(list.devices[3].transport_id == 5u);

  CHECK(list.devices[4].serial == "(no serial number)");
  CHECK(list.devices[4].state.starts_with("no permissions (missing udev rules?"));

  CHECK(list.devices[5].serial == "a-very-long-serial-number-that-exceeds-22");
  CHECK(list.devices[5].transport_id == 12u);

  CHECK(list.devices[6].serial == "localhost:5555");
  CHECK(list.devices[6].model == "Fake_fakedev0");

  CHECK(list.devices[7].state == "recovery");
  CHECK(list.devices[7].usb == "2-1");
  CHECK(list.devices[7].model == "SM_G973F");
}

TEST_CASE("devices-l: every state adb prints plus unknown keys and features and bad lines", "[adb]") {
  for (const char* state : {"device", "offline", "unauthorized", "authorizing", "connecting", "bootloader",
                            "recovery", "sideload", "rescue", "host", "unknown"}) {
    auto list = parse_device_list(long_line("127.0.0.1:5555", state, "transport_id:1"), ListFormat::long_);
    INFO(state);
    REQUIRE(list.devices.size() == 1);
    CHECK(list.devices[0].serial == "127.0.0.1:5555");
    CHECK(list.devices[0].state == state);
  }
  // A state with no fields at all (not what 29.0.6 prints, but possible).
  auto bare = parse_device_list("emulator-5556 offline\n", ListFormat::long_);
  REQUIRE(bare.devices.size() == 1);
  CHECK(bare.devices[0].state == "offline");

  auto extra = parse_device_list(
      long_line("s1", "device", "product:p model:m device:d features:shell_v2,cmd,abb transport_id:1 wifi:yes"),
      ListFormat::long_);
  REQUIRE(extra.devices.size() == 1);
  CHECK(extra.devices[0].features == std::vector<std::string>{"shell_v2", "cmd", "abb"});
  REQUIRE(extra.devices[0].extra.size() == 1);
  CHECK(extra.devices[0].extra[0] == std::pair<std::string, std::string>{"wifi", "yes"});

  auto bad = parse_device_list("lonely\n" + long_line("s", "device", "transport_id:x1") +
                                   long_line("s2", "device", "transport_id:") + "\n   \n" +
                                   long_line("good", "device", "transport_id:4"),
                               ListFormat::long_);
  CHECK(bad.malformed_lines == 3);
  REQUIRE(bad.devices.size() == 1);
  CHECK(bad.devices[0].serial == "good");

  auto crlf = parse_device_list("emulator-5554          device product:a model:b device:c transport_id:1\r\n",
                                ListFormat::long_);
  REQUIRE(crlf.devices.size() == 1);
  CHECK(crlf.devices[0].transport_id == 1u);

  auto dup = parse_device_list(long_line("s", "device", "transport_id:1") + long_line("s", "offline", "transport_id:2"),
                               ListFormat::long_);
  CHECK(dup.duplicate_serials == 1);
  REQUIRE(dup.devices.size() == 1);
  CHECK(dup.devices[0].transport_id == 1u);
}

namespace {
DeviceInfo dev(std::string serial, std::string state, std::uint64_t id = 1) {
  DeviceInfo d;
  d.serial = std::move(serial);
  d.state = std::move(state);
  d.transport_id = id;
  return d;
}
}  // namespace

TEST_CASE("diff_device_lists reports added and changed and removed devices by serial", "[adb]") {
  CHECK(diff_device_lists({}, {}).empty());
  std::vector<DeviceInfo> a{dev("b", "device"), dev("127.0.0.1:5555", "device", 2)};
  CHECK(diff_device_lists(a, a).empty());

  auto added = diff_device_lists({}, a);
  REQUIRE(added.size() == 2);
  CHECK(added[0].serial == "127.0.0.1:5555");  // ordered by serial
  CHECK(added[0].change == DeviceChange::added);
  CHECK(added[0].old_state.empty());
  CHECK(added[0].new_state == "device");
  CHECK(added[0].info.transport_id == 2u);

  auto removed = diff_device_lists(a, {dev("b", "device")});
  REQUIRE(removed.size() == 1);
  CHECK(removed[0].change == DeviceChange::removed);
  CHECK(removed[0].old_state == "device");
  CHECK(removed[0].new_state.empty());
  CHECK(removed[0].info.transport_id == 2u);  // last known facts

  auto offline = diff_device_lists(a, {dev("b", "device"), dev("127.0.0.1:5555", "offline", 2)});
  REQUIRE(offline.size() == 1);
  CHECK(offline[0].change == DeviceChange::changed);
  CHECK(offline[0].old_state == "device");
  CHECK(offline[0].new_state == "offline");

  // Same state, new transport: a replug faster than the tracker noticed.
  auto replug = diff_device_lists(a, {dev("b", "device", 7), dev("127.0.0.1:5555", "device", 2)});
  REQUIRE(replug.size() == 1);
  CHECK(replug[0].serial == "b");
  CHECK(replug[0].change == DeviceChange::changed);
  CHECK(replug[0].old_state == replug[0].new_state);
  CHECK(replug[0].info.transport_id == 7u);

  CHECK(jank::test::device_change_name(DeviceChange::added) == "added");
  CHECK(jank::test::device_change_name(DeviceChange::changed) == "changed");
  CHECK(jank::test::device_change_name(DeviceChange::removed) == "removed");
}

TEST_CASE("diff_device_lists: applying the events to the old list yields the new one", "[adb]") {
  std::mt19937 rng(7);
  const char* states[] = {"device", "offline", "unauthorized"};
  auto random_list = [&] {
    std::vector<DeviceInfo> list;
    for (int i = 0; i < 8; ++i) {
      if (rng() % 2) list.push_back(dev("s" + std::to_string(i), states[rng() % 3], rng() % 2));
    }
    return list;
  };
  for (int round = 0; round < 500; ++round) {
    auto before = random_list();
    auto after = random_list();
    std::map<std::string, DeviceInfo> state;
    for (auto& d : before) state[d.serial] = d;
    for (const auto& e : diff_device_lists(before, after)) {
      if (e.change == DeviceChange::removed) {
        REQUIRE(state.erase(e.serial) == 1);
      } else {
        REQUIRE((state.count(e.serial) == 1) == (e.change == DeviceChange::changed));
        state[e.serial] = e.info;
      }
    }
    std::map<std::string, DeviceInfo> expected;
    for (auto& d : after) expected[d.serial] = d;
    REQUIRE(state == expected);
  }
}

TEST_CASE("parse_features and has_feature match whole names", "[adb]") {
  auto f = parse_features("shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb\n");
  CHECK(f.size() == 7);
  CHECK(has_feature(f, "shell_v2"));
  CHECK(has_feature(f, "abb"));
  CHECK_FALSE(has_feature(f, "shell"));
  CHECK_FALSE(has_feature(f, "shell_v2x"));
  CHECK(parse_features("").empty());
  CHECK(parse_features(",,a,,b,") == std::vector<std::string>{"a", "b"});
  CHECK(shell_protocol_for(f) == ShellProtocol::v2);
  CHECK(shell_protocol_for(parse_features("cmd,abb")) == ShellProtocol::legacy);
  CHECK(shell_protocol_for({}) == ShellProtocol::legacy);
}

namespace {
// What /bin/sh makes of `printf %s <quoted>`: the argument as the shell sees it.
std::string through_sh(const std::string& quoted) {
  std::string command = "printf %s " + quoted;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  REQUIRE(pclose(pipe) == 0);
  return out;
}
}  // namespace

TEST_CASE("shell_quote uses POSIX single quotes like adb's escape_arg", "[adb]") {
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("abc") == "'abc'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("'") == "''\\'''");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("$(reboot)") == "'$(reboot)'");
  CHECK(quote_args({"-v", "threadtime"}) == "'-v' 'threadtime'");
  CHECK(quote_args(std::vector<std::string>{}) == "");
}

TEST_CASE("shell_quote survives a real shell with metacharacters and quotes and newlines and every byte", "[adb]") {
  std::vector<std::string> nasty = {
      "",
      "plain",
      "it's",
      "''''",
      "\"double\" \\back\\slash\\",
      "$(rm -rf /) `reboot` ${HOME} $HOME",
      "a;b|c&d>e<f*g?h[i]~j#k!l{m}n(o)p",
      "line1\nline2\n",
      "tab\there  spaces  ",
      "-n",
      "--",
      "'; exec reboot; echo '",
  };
  std::string all_bytes;
  for (int c = 1; c < 256; ++c) all_bytes += static_cast<char>(c);
  nasty.push_back(all_bytes);
  for (const auto& arg : nasty) {
    INFO(arg);
    CHECK(through_sh(shell_quote(arg)) == arg);
  }
}

TEST_CASE("logcat_command is what the adb CLI runs for `adb logcat ARGS`", "[adb]") {
  CHECK(logcat_command({"-T", "1", "-v", "epoch,uid", "-b", "main,system,crash"}) ==
        "export ANDROID_LOG_TAGS=\"''\"; exec logcat '-T' '1' '-v' 'epoch,uid' '-b' 'main,system,crash'");
  CHECK(logcat_command({"-d"}) == "export ANDROID_LOG_TAGS=\"''\"; exec logcat '-d'");
  CHECK(logcat_command({}) == "export ANDROID_LOG_TAGS=\"''\"; exec logcat");
  CHECK(logcat_command({"-d"}, false) == "export ANDROID_LOG_TAGS=\"''\"; logcat '-d'");  // the shell stays
  CHECK(logcat_command({"-T", "1700000000.123"}).ends_with("'-T' '1700000000.123'"));
}

TEST_CASE("valid_package_name admits letters digits and ._:- only with a length cap and no leading dash", "[adb]") {
  for (const char* good : {"com.example.app", "com.android.systemui:ui", "system_server", "android.process.acore",
                           "a", "A-b_c.d:e", "com.google.android.gms.persistent", "0"}) {
    INFO(good);
    CHECK(jank::parsers::valid_package_name(good));
  }
  CHECK(jank::parsers::valid_package_name(std::string(jank::parsers::kMaxPackageNameBytes, 'a')));
  CHECK_FALSE(jank::parsers::valid_package_name(std::string(jank::parsers::kMaxPackageNameBytes + 1, 'a')));
  for (const char* bad : {"", "-x", "--help", "com.a b", "com.a;rm", "com.a'b", "com.a\n", "com/a", "$x", "a|b",
                          "a&b", "a`b`", "a\\b", "\xc3\xa9t\xc3\xa9", "a*", "a\"b"}) {
    INFO(bad);
    CHECK_FALSE(jank::parsers::valid_package_name(bad));
  }
  CHECK_FALSE(jank::parsers::valid_package_name(std::string_view("com.a\0b", 7)));
  // Every byte on its own, and inside an otherwise valid name.
  for (int c = 0; c < 256; ++c) {
    char ch = static_cast<char>(c);
    bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                   c == '_' || c == ':' || c == '-';
    INFO(c);
    CHECK(jank::parsers::valid_package_name("com" + std::string(1, ch) + "x") == allowed);
    CHECK(jank::parsers::valid_package_name(std::string(1, ch)) == (allowed && ch != '-'));
  }
}

TEST_CASE("shell_service picks v2 or legacy and enforces the 4 KiB OPEN limit", "[adb]") {
  CHECK(shell_service(ShellProtocol::v2, "echo hi") == "shell,v2,raw:echo hi"s);
  CHECK(shell_service(ShellProtocol::legacy, "echo hi") == "shell:echo hi"s);
  CHECK_FALSE(shell_service(ShellProtocol::v2, ""));
  CHECK_FALSE(shell_service(ShellProtocol::legacy, std::string_view("a\0b", 3)));

  const std::size_t v2_room = kMaxServiceBytes - std::string("shell,v2,raw:").size();
  CHECK(shell_service(ShellProtocol::v2, std::string(v2_room, 'x'))->size() == kMaxServiceBytes);
  CHECK_FALSE(shell_service(ShellProtocol::v2, std::string(v2_room + 1, 'x')));
  const std::size_t legacy_room = kMaxServiceBytes - std::string("shell:").size();
  CHECK(shell_service(ShellProtocol::legacy, std::string(legacy_room, 'x')));
  CHECK_FALSE(shell_service(ShellProtocol::legacy, std::string(legacy_room + 1, 'x')));
  CHECK(kMaxServiceBytes + 1 <= 4096);  // the NUL the server adds still fits
}
