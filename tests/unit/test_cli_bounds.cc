// Issue 28 on the command line: the clients' deadlines (`run`, `compare URL`),
// run ids and server text on a terminal, bounded results files, and the
// report's output file.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/compare.h"
#include "app/cli/http_client.h"
#include "app/cli/replay.h"
#include "app/cli/report.h"
#include "app/cli/run_cli.h"
#include "exporters/run_results_input.h"
#include "loopback_servers.h"
#include "metrics/run_book.h"
#include "parsers/utf8.h"
#include "test_support.h"

using namespace jank;
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

struct Result {
  int status;
  std::string out, err;
  double seconds;
};

template <class F>
Result timed(F&& call) {
  std::ostringstream out, err;
  const auto start = Clock::now();
  const int status = call(out, err);
  return {status, out.str(), err.str(), std::chrono::duration<double>(Clock::now() - start).count()};
}

Result run_cli(const std::vector<std::string>& args) {
  return timed([&](std::ostream& out, std::ostream& err) { return app::run_runs_cli(args, out, err); });
}

Result compare(const std::vector<std::string>& args) {
  return timed([&](std::ostream& out, std::ostream& err) { return app::run_compare(args, out, err); });
}

Result report(const std::vector<std::string>& args, std::FILE* stdin_file = stdin) {
  return timed([&](std::ostream& out, std::ostream& err) { return app::run_report(args, stdin_file, out, err); });
}

std::string write(const test::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string http_ok(const std::string& body, int status = 200) {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

const std::string kRun =
    R"({"format":1,"id":"r1","name":"scroll","package":"com.a","state":"finished","duration_seconds":60,)"
    R"("devices":[{"serial":"emu","settled":true,"versions":[{"name":"1.0","code":1}],"metrics":{"sm":55}}]})";

// {"format": [[[…]]] …}: the issue's crasher, `depth` levels deep.
std::string deep_format(std::size_t depth) {
  return R"({"format":)" + std::string(depth, '[') + std::string(depth, ']') + R"(,"id":"x","devices":[]})";
}

// Deadlines are 0.5 s; a second of margin covers a loaded machine.
constexpr double kDeadline = 0.5;
constexpr double kMargin = 1.5;

}  // namespace

TEST_CASE("the HTTP client gives up at its deadline on a server that accepts and never answers", "[runs][cli_bounds]") {
  test::StallServer silent;
  test::StallServer half("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Le");
  for (auto* server : {&silent, &half}) {
    INFO(server->url());
    app::HttpTarget target;
    target.host = "127.0.0.1";
    target.port = std::to_string(server->port());
    app::HttpClientOptions options;
    options.timeout_seconds = kDeadline;
    const auto start = Clock::now();
    const auto reply = app::http_request(target, "GET", "/api/runs", "", options);
    const double took = std::chrono::duration<double>(Clock::now() - start).count();
    CHECK(reply.status == 0);
    CHECK(reply.error == "no answer from " + server->url() + " within 0.5 s");
    CHECK(took >= kDeadline * 0.9);
    CHECK(took < kDeadline + kMargin);
    CHECK(server->connections() >= 1);
  }
}

TEST_CASE("the HTTP client's deadline covers the TLS handshake", "[runs][cli_bounds]") {
  test::StallServer silent;
  const auto r = run_cli({"show", "r1", "--url", silent.url("https"), "--insecure", "--timeout", "0.5"});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("no answer from " + silent.url("https") + " within 0.5 s"));
  CHECK(r.seconds < kDeadline + kMargin);
}

TEST_CASE("the HTTP client refuses an answer past its size limit", "[runs][cli_bounds]") {
  const std::string body = std::string(4096, ' ') + "{}";
  // With a Content-Length, and delimited by the end of the connection.
  for (const std::string& answer : {http_ok(body), "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body}) {
    test::OneShotServer server(answer);
    app::HttpTarget target;
    target.host = "127.0.0.1";
    target.port = std::to_string(server.port());
    app::HttpClientOptions options;
    options.max_body_bytes = 1024;
    const auto reply = app::http_request(target, "GET", "/api/runs", "", options);
    CHECK(reply.status == 0);
    CHECK(reply.error == "the answer from http://127.0.0.1:" + target.port + " is larger than 1024 bytes");
  }
  test::OneShotServer server(http_ok(body));
  app::HttpTarget target;
  target.host = "127.0.0.1";
  target.port = std::to_string(server.port());
  app::HttpClientOptions options;
  options.max_body_bytes = body.size();
  const auto reply = app::http_request(target, "GET", "/api/runs", "", options);
  CHECK(reply.status == 200);
  CHECK(reply.body == body);
}

TEST_CASE("run show and run list end within --timeout on a silent or half-answering exporter", "[runs][cli_bounds]") {
  test::StallServer silent;
  test::StallServer half("HTTP/1.1 200 OK\r\nContent-Le");
  for (auto* server : {&silent, &half}) {
    for (const std::vector<std::string>& verb : {std::vector<std::string>{"show", "r1"}, {"list"}, {"show", "r1", "--csv"}}) {
      std::vector<std::string> args = verb;
      for (const char* a : {"--url", "", "--timeout", "0.5"}) args.emplace_back(a);
      args[verb.size() + 1] = server->url();
      INFO(args[0] << " " << args.back() << " " << server->url());
      const auto r = run_cli(args);
      CHECK(r.status == 1);
      CHECK(r.err == "jank_exporter run: no answer from " + server->url() + " within 0.5 s\n");
      CHECK(r.seconds < kDeadline + kMargin);
    }
  }
}

TEST_CASE("run stop waits no longer than --timeout in all", "[runs][cli_bounds]") {
  test::StallServer silent;
  const auto r = run_cli({"stop", "r1", "--url", silent.url(), "--timeout", "0.5"});
  CHECK(r.status == 1);
  CHECK_THAT(r.err, Catch::Contains("no answer from " + silent.url() + " within 0.5 s"));
  CHECK(r.seconds < kDeadline + kMargin);
}

TEST_CASE("compare of a URL source ends within --timeout on a silent or half-answering exporter", "[compare_cli][cli_bounds]") {
  test::StallServer silent;
  test::StallServer half("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Le");
  for (auto* server : {&silent, &half}) {
    INFO(server->url());
    const auto r = compare({"--timeout", "0.5", "--by", "version", server->url()});
    CHECK(r.status == app::kExitNoInput);
    CHECK(r.err == "jank_exporter compare: " + server->url() + ": no answer from " + server->url() + " within 0.5 s\n");
    CHECK(r.seconds < kDeadline + kMargin);
  }
  CHECK(compare({"--timeout", "0", "a", "b"}).status == app::kExitUsage);
  CHECK(compare({"--timeout", "x", "a", "b"}).status == app::kExitUsage);
  CHECK(compare({"--timeout", "inf", "a", "b"}).status == app::kExitUsage);
}

TEST_CASE("run refuses an id outside the grammar before any request", "[runs][cli_bounds]") {
  // Port 1: a request would fail with exit 1 ("cannot reach"), not 64.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"show", "caf\xe9"}, {"show", ".."}, {"stop", "a/b"}, {"show", std::string(65, 'a')},
        {"show", "r1\r\nX: y"}, {"start", "--package", "com.a", "--id", "caf\xe9"}, {"start", "--package", "com.a", "--id", "."}}) {
    std::vector<std::string> with_url = args;
    for (const char* a : {"--url", "http://127.0.0.1:1", "--timeout", "2"}) with_url.emplace_back(a);
    INFO(parsers::terminal_text(args[1]));
    const auto r = run_cli(with_url);
    CHECK(r.status == app::kExitUsage);
    CHECK_THAT(r.err, Catch::Contains(std::string(metrics::kRunIdRule)));
    CHECK_THAT(r.err, !Catch::Contains("cannot reach"));
    CHECK(parsers::is_valid_utf8(r.err));
  }
  const auto r = run_cli({"show", "caf\xe9", "--url", "http://127.0.0.1:1"});
  CHECK_THAT(r.err, Catch::StartsWith("jank_exporter run: 'caf\\xE9': "));
}

TEST_CASE("run prints what the exporter sent through terminal_text, whatever its types", "[runs][cli_bounds]") {
  const std::string body =
      R"({"format":1,"id":"r1","name":"n\u001b]0;title\u0007","package":"com.a","state":"finished","duration_seconds":60,)"
      R"("devices":[{"serial":"emu\u001b[31m","model":"M\u009b2J","settled":true,)"
      R"("versions":[{"name":"1.0\u001b[0m","code":1}],"metrics":{"sm":55}}]})";
  test::OneShotServer server(http_ok(body));
  const auto r = run_cli({"show", "r1", "--url", "http://127.0.0.1:" + std::to_string(server.port())});
  CHECK(r.status == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find('\x07') == std::string::npos);
  CHECK(r.out.find("\xc2\x9b") == std::string::npos);
  CHECK_THAT(r.out, Catch::Contains(parsers::terminal_text("n\x1b]0;title\x07")));
  CHECK_THAT(r.out, Catch::Contains(parsers::terminal_text("emu\x1b[31m")));
  CHECK_THAT(r.out, Catch::Contains(parsers::terminal_text("M\xc2\x9b" "2J")));
  CHECK_THAT(r.out, Catch::Contains(parsers::terminal_text("1.0\x1b[0m")));

  // An error reason quoted from the server, likewise.
  test::OneShotServer refusing(http_ok(R"({"error":"no run \u001b]0;pwned\u0007"})", 404));
  const auto e = run_cli({"show", "r1", "--url", "http://127.0.0.1:" + std::to_string(refusing.port())});
  CHECK(e.status == 1);
  CHECK(e.err == "jank_exporter run: no run \\x1B]0;pwned\\x07\n");

  // Members of the wrong type read as absent, not as an exception.
  test::OneShotServer odd(http_ok(R"({"id":5,"name":[1],"duration_seconds":"x","devices":[{"serial":7,"versions":"1",)"
                                  R"("metrics":[1],"settled":"no"},3,{"versions":[5]}]})"));
  const auto o = run_cli({"show", "r1", "--url", "http://127.0.0.1:" + std::to_string(odd.port())});
  CHECK(o.status == 0);
  CHECK_THAT(o.out, Catch::StartsWith("run" + std::string(9, ' ') + "0.0 s\n"));

  // A start whose answer carries an id outside the grammar goes no further.
  test::OneShotServer bad_id(http_ok(R"({"id":"../x"})", 201));
  const auto s = run_cli({"start", "--package", "com.a", "--url", "http://127.0.0.1:" + std::to_string(bad_id.port())});
  CHECK(s.status == 1);
  CHECK(s.err == "jank_exporter run: the exporter sent no run id\n");
}

TEST_CASE("results text past the depth or size limit is refused before it is parsed", "[report][cli_bounds]") {
  namespace results = exporters::results;
  CHECK(results::check_results_limits(kRun).empty());
  // 64 levels read; 65 do not. Brackets inside strings do not count.
  const std::string at_limit = R"({"format":1,"id":"x","devices":[],"extra":)" + std::string(63, '[') + std::string(63, ']') + "}";
  CHECK(results::check_results_limits(at_limit).empty());
  const std::string past = R"({"format":1,"id":"x","devices":[],"extra":)" + std::string(64, '[') + std::string(64, ']') + "}";
  CHECK(results::check_results_limits(past) == "nested deeper than 64 levels (at byte 106), not a results file");
  const std::string in_string = R"({"format":1,"id":"x","name":")" + std::string(1000, '[') + R"(\"{{{","devices":[]})";
  CHECK(results::check_results_limits(in_string).empty());

  std::vector<results::Run> runs;
  CHECK(results::read_runs({"deep.json", deep_format(2'000'000)}, results::Group::none, runs) ==
        "deep.json: nested deeper than 64 levels (at byte 74), not a results file");
  CHECK(results::read_runs({"deep.json", past}, results::Group::none, runs) ==
        "deep.json: nested deeper than 64 levels (at byte 106), not a results file");
  results::Verdict verdict;
  CHECK(results::read_verdict({"v.json", "{\"verdict\":" + std::string(100, '[')}, verdict) ==
        "v.json: nested deeper than 64 levels (at byte 75), not a results file");
  std::string big = kRun;
  big.resize(results::kMaxResultsBytes + 1, ' ');
  CHECK(results::read_runs({"big.json", big}, results::Group::none, runs) == "big.json: larger than 64 MiB, not a results file");
  big.resize(results::kMaxResultsBytes);  // at the limit: read
  CHECK(results::read_runs({"big.json", big}, results::Group::none, runs).empty());
  CHECK(runs.size() == 1);
  // A format that is not a number is named, not quoted (it may be megabytes).
  CHECK(results::read_runs({"f.json", R"({"format":"1","id":"x","devices":[]})"}, results::Group::none, runs) ==
        "f.json: format: expected 1 (the only results format this build reads), found a string");
  // Invalid UTF-8 is told as such, with its place and without the byte.
  CHECK(results::read_runs({"u.json", "{\"format\":1,\"id\":\"caf\xe9\",\"devices\":[]}"}, results::Group::none, runs) ==
        "u.json: not JSON: not UTF-8 (at byte 22)");
}

TEST_CASE("report and compare refuse a deeply nested results file without crashing", "[report][compare_cli][cli_bounds]") {
  test::TempDir dir;
  const auto deep = write(dir, "deep.json", deep_format(2'000'000));  // 4 MB, the issue's crasher
  const auto good = write(dir, "good.json", kRun);
  const auto r = report({"-o", dir.path() + "/out.html", deep});
  CHECK(r.status == app::kExitReportFailed);
  CHECK(r.err == "jank_exporter report: " + deep + ": nested deeper than 64 levels (at byte 74), not a results file\n");
  CHECK_FALSE(fs::exists(dir.path() + "/out.html"));
  const auto c = compare({deep, good});
  CHECK(c.status == app::kExitNoInput);
  CHECK(c.err == "jank_exporter compare: " + deep + ": nested deeper than 64 levels (at byte 74), not a results file\n");
}

TEST_CASE("report and compare refuse an over-size file unread, and stop reading endless sources at the limit", "[report][compare_cli][cli_bounds]") {
  test::TempDir dir;
  const auto good = write(dir, "good.json", kRun);
  // A sparse file one byte past the limit: refused by its size, unread.
  const std::string big = dir.path() + "/big.json";
  {
    const int fd = ::open(big.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, static_cast<off_t>(exporters::results::kMaxResultsBytes + 1)) == 0);
    ::close(fd);
  }
  const std::string limit = ": larger than 64 MiB, not a results file\n";
  CHECK(report({big}).err == "jank_exporter report: " + big + limit);
  CHECK(compare({big, good}).err == "jank_exporter compare: " + big + limit);
  // A character device that never ends: read up to the limit, then refused
  // (the error, not the clock, shows the read stopped: without the bound it
  // would run out of memory instead).
  const auto z = report({"/dev/zero"});
  CHECK(z.status == app::kExitReportFailed);
  CHECK(z.err == "jank_exporter report: /dev/zero" + limit);
  const auto zc = compare({"/dev/zero", good});
  CHECK(zc.status == app::kExitNoInput);
  CHECK(zc.err == "jank_exporter compare: /dev/zero" + limit);
  // Standard input from an endless device, and from a pipe.
  std::FILE* zero = std::fopen("/dev/zero", "rb");
  REQUIRE(zero != nullptr);
  CHECK(report({"-"}, zero).err == "jank_exporter report: standard input" + limit);
  std::fclose(zero);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  // Exactly one byte past the limit, then the end: the writer never meets a closed pipe.
  std::thread writer([fd = fds[1]] {
    const std::string chunk(1 << 20, ' ');
    auto put = [fd](const std::string& bytes) {
      for (std::size_t done = 0; done < bytes.size();) {
        const auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
      }
    };
    for (std::size_t i = 0; i < (exporters::results::kMaxResultsBytes >> 20); ++i) put(chunk);
    put(" ");
    ::close(fd);
  });
  std::FILE* pipe_in = ::fdopen(fds[0], "rb");
  REQUIRE(pipe_in != nullptr);
  const auto p = report({"-"}, pipe_in);
  writer.join();
  std::fclose(pipe_in);
  CHECK(p.status == app::kExitReportFailed);
  CHECK(p.err == "jank_exporter report: standard input" + limit);
  // A directory is no results file either.
  CHECK_THAT(report({dir.path()}).err, Catch::Contains("cannot read " + dir.path() + ": Is a directory"));
}

TEST_CASE("report -o writes through no symlink planted at its temporary or target name", "[report][cli_bounds]") {
  test::TempDir dir;
  const auto input = write(dir, "r.json", kRun);
  const auto victim = write(dir, "victim", "precious");
  const auto other = write(dir, "other", "precious too");
  const std::string page = dir.path() + "/page.html";
  // The names the old code wrote to (PAGE.tmpPID, this process's pid), as a
  // symlink to a file the attacker wants overwritten; the target a symlink too.
  const std::string old_tmp = page + ".tmp" + std::to_string(::getpid());
  REQUIRE(::symlink(victim.c_str(), old_tmp.c_str()) == 0);
  REQUIRE(::symlink(other.c_str(), page.c_str()) == 0);
  const mode_t mask = ::umask(022);
  const auto r = report({"-o", page, input});
  ::umask(mask);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(test::read_file(victim) == "precious");
  CHECK(test::read_file(other) == "precious too");
  CHECK(fs::is_symlink(old_tmp));
  // The symlink at the target was replaced by the page, not followed.
  REQUIRE_FALSE(fs::is_symlink(page));
  CHECK_THAT(test::read_file(page), Catch::StartsWith("<!DOCTYPE html>"));
  struct stat st {};
  REQUIRE(::stat(page.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  // Nothing else was left beside it.
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"other", "page.html", "page.html.tmp" + std::to_string(::getpid()), "r.json", "victim"});
  // An unwritable place fails with 2, naming it.
  const auto bad = report({"-o", dir.path() + "/no/such/dir/page.html", input});
  CHECK(bad.status == app::kExitReportFailed);
  CHECK_THAT(bad.err, Catch::Contains("cannot create a temporary file beside " + dir.path() + "/no/such/dir/page.html"));
}
