// A real VictoriaMetrics single node (Debian's 1.79) as a child process of a
// test, the central store a farm's Prometheus remote-writes into, and its
// Prometheus-compatible query API; and vmalert evaluating recording rules on
// it and writing their results back into it.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "tests/ops/prometheus_process.h"

namespace jank::ops_test {

class VictoriaMetrics {
 public:
  VictoriaMetrics() : port_(free_port()), dir_("jank-victoria-metrics") {
    log_ = dir_.path() + "/victoria-metrics.log";
    proc_ = ChildProcess({JANK_VICTORIA_METRICS_PROGRAM, "-storageDataPath=" + dir_.path() + "/data",
                          "-httpListenAddr=127.0.0.1:" + std::to_string(port_), "-retentionPeriod=1d",
                          // Samples answer queries after 1 s instead of 30 s: a test waits on them.
                          "-search.latencyOffset=1s",
                          // No response cache: every query of a test reads what was written last.
                          "-search.disableCache", "-loggerLevel=WARN"},
                         {}, log_);
    ready_ = wait_until([&] { return http_body(port_, "/health") == "OK"; }, 30000ms, 200ms);
  }
  ~VictoriaMetrics() { proc_.stop(10000ms); }
  VictoriaMetrics(const VictoriaMetrics&) = delete;
  VictoriaMetrics& operator=(const VictoriaMetrics&) = delete;

  bool ready() const { return ready_; }
  std::uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Where Prometheus's remote_write sends (the Prometheus remote write protocol).
  std::string remote_write_url() const { return url() + "/api/v1/write"; }
  std::string log() const { return read_file(log_); }

  // The "data.result" array of an instant query at now; nullopt when the
  // query failed (`error` receives the answer).
  std::optional<Json> query(const std::string& promql, std::string* error = nullptr) const {
    const std::string body = http_body(port_, "/api/v1/query?query=" + url_encode(promql));
    auto json = jank::rig::parse_json(body);
    if (!json || (*json)["status"].str != "success") {
      if (error) *error = body;
      return std::nullopt;
    }
    return (*json)["data"]["result"];
  }

 private:
  std::uint16_t port_;
  TempDir dir_;
  std::string log_;
  ChildProcess proc_;
  bool ready_ = false;
};

class VmAlert {
 public:
  // Evaluates `rule_files` every second on `store` and writes the results
  // back into it. Only recording rules: vmalert 1.79 then needs no
  // -notifier.url (it asks for one only when a file holds alerting rules,
  // and has no -notifier.blackhole yet).
  VmAlert(const VictoriaMetrics& store, const std::vector<std::string>& rule_files)
      : port_(free_port()), dir_("jank-vmalert") {
    log_ = dir_.path() + "/vmalert.log";
    std::vector<std::string> argv = {JANK_VMALERT_PROGRAM};
    for (const auto& f : rule_files) argv.push_back("-rule=" + f);
    argv.insert(argv.end(), {"-datasource.url=" + store.url(), "-remoteWrite.url=" + store.url(),
                             "-evaluationInterval=1s",
                             // Results flushed every second rather than every 5 s.
                             "-remoteWrite.flushInterval=1s",
                             "-httpListenAddr=127.0.0.1:" + std::to_string(port_), "-loggerLevel=WARN"});
    proc_ = ChildProcess(argv, {}, log_);
    ready_ = wait_until([&] { return http_body(port_, "/health") == "OK"; }, 30000ms, 200ms);
  }
  ~VmAlert() { proc_.stop(10000ms); }
  VmAlert(const VmAlert&) = delete;
  VmAlert& operator=(const VmAlert&) = delete;

  bool ready() const { return ready_; }
  std::uint16_t port() const { return port_; }
  std::string log() const { return read_file(log_); }
  // vmalert's own view of its groups (/api/v1/rules, Prometheus' shape).
  std::optional<Json> rules() const {
    auto json = jank::rig::parse_json(http_body(port_, "/api/v1/rules"));
    if (!json || (*json)["status"].str != "success") return std::nullopt;
    return (*json)["data"];
  }

 private:
  std::uint16_t port_;
  TempDir dir_;
  std::string log_;
  ChildProcess proc_;
  bool ready_ = false;
};

}  // namespace jank::ops_test
