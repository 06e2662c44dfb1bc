#include <catch2/catch.hpp>

#include "ingest/endpoint.h"

using namespace jank::ingest;

TEST_CASE("parse_endpoint accepts HOST:PORT and bracketed IPv6 and ADB_SERVER_SOCKET forms", "[adb]") {
  CHECK(parse_endpoint("127.0.0.1:5037") == AdbEndpoint{"127.0.0.1", 5037});
  CHECK(parse_endpoint("localhost:5555") == AdbEndpoint{"localhost", 5555});
  CHECK(parse_endpoint("farm-host.example:1") == AdbEndpoint{"farm-host.example", 1});
  CHECK(parse_endpoint("[::1]:5037") == AdbEndpoint{"::1", 5037});
  CHECK(parse_endpoint("[fe80::1%eth0]:65535") == AdbEndpoint{"fe80::1%eth0", 65535});
  CHECK(parse_endpoint("tcp:10.0.0.2:5038") == AdbEndpoint{"10.0.0.2", 5038});
  CHECK(parse_endpoint("tcp:[::1]:5039") == AdbEndpoint{"::1", 5039});
  CHECK(parse_endpoint("tcp:5040") == AdbEndpoint{"127.0.0.1", 5040});
}

TEST_CASE("parse_endpoint rejects what it cannot read unambiguously", "[adb]") {
  for (const char* bad : {"", "host", "host:", ":5037", "host:0", "host:65536", "host:99999", "host:12a", "host:+1",
                          "host:-1", "host: 1", "::1:5037", "::1", "[::1]5037", "[::1]:", "[::1", "[1.2.3.4]:5",
                          "[]:5", "tcp:", "tcp:x", "tcp:0", "a b:1", "a/b:1", "h:1:2", "host:0005037"}) {
    INFO(bad);
    CHECK_FALSE(parse_endpoint(bad).has_value());
  }
}

TEST_CASE("AdbEndpoint::to_string round-trips through parse_endpoint", "[adb]") {
  for (const AdbEndpoint& e : {AdbEndpoint{}, AdbEndpoint{"::1", 5037}, AdbEndpoint{"host.lan", 80}}) {
    INFO(e.to_string());
    CHECK(parse_endpoint(e.to_string()) == e);
  }
  CHECK(AdbEndpoint{}.to_string() == "127.0.0.1:5037");
  CHECK(AdbEndpoint{"::1", 5037}.to_string() == "[::1]:5037");
}

TEST_CASE("default_endpoint follows the adb CLI: ADB_SERVER_SOCKET then ANDROID_ADB_SERVER_PORT", "[adb]") {
  CHECK(default_endpoint(nullptr, nullptr).endpoint == AdbEndpoint{"127.0.0.1", 5037});
  CHECK(default_endpoint("", "").endpoint == AdbEndpoint{"127.0.0.1", 5037});
  CHECK(default_endpoint("tcp:1.2.3.4:99", nullptr).endpoint == AdbEndpoint{"1.2.3.4", 99});
  CHECK(default_endpoint(nullptr, "5038").endpoint == AdbEndpoint{"127.0.0.1", 5038});
  CHECK(default_endpoint("tcp:6000", "5038").endpoint == AdbEndpoint{"127.0.0.1", 6000});

  auto bad_socket = default_endpoint("unix:/tmp/x", nullptr);
  CHECK_FALSE(bad_socket.endpoint);
  CHECK(bad_socket.error.find("ADB_SERVER_SOCKET") != std::string::npos);
  auto bad_port = default_endpoint(nullptr, "50x");
  CHECK_FALSE(bad_port.endpoint);
  CHECK(bad_port.error.find("ANDROID_ADB_SERVER_PORT") != std::string::npos);
}
