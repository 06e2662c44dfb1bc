// A real Prometheus (Debian's 2.42) as a child process of a test, scraping
// its targets every second (optionally sending alerts to an Alertmanager, or
// as an agent remote-writing to a central store), and its HTTP API.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/daemon/exporter_process.h"

namespace jank::ops_test {

using namespace jank::daemon_test;

inline std::string url_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// HTTP/1.0 so that the body comes whole (no chunked encoding); "" on failure.
inline std::string http_body(std::uint16_t port, const std::string& path) {
  const std::string response = http_exchange(port, "GET " + path + " HTTP/1.0\r\nHost: localhost\r\n");
  const auto body = response.find("\r\n\r\n");
  return body == std::string::npos ? std::string() : response.substr(body + 4);
}

// What a test's Prometheus scrapes and evaluates.
struct PrometheusSetup {
  std::vector<std::uint16_t> targets;  // 127.0.0.1:PORT, all in job "jank_exporter"
  std::vector<std::string> rule_files;
  std::vector<std::string> extra_args;  // feature flags and such
  std::uint16_t alertmanager_port = 0;  // 0: no Alertmanager
  std::string interval = "1s";         // scrape and evaluation interval (scrape timeout too)
  // A farm's own labels (rack, pool) on every target, as a file_sd or static list gives them.
  std::vector<std::pair<std::string, std::string>> target_labels;
  std::size_t sample_limit = 0;  // the scrape job's sample_limit (0: none)
  // Agent mode (--enable-feature=agent): scrapes and forwards only, no rules,
  // no alerting, no query API; the samples go to `remote_write_url`.
  bool agent = false;
  std::string remote_write_url;  // "": no remote_write
  // Labels of one target each (index as in `targets`), beside `target_labels`:
  // hosts of different racks in one job, as a file_sd list with one entry per
  // host gives them. Empty: every target carries `target_labels` alone.
  std::vector<std::vector<std::pair<std::string, std::string>>> labels_per_target;
};

class Prometheus {
 public:
  // Scrapes 127.0.0.1:target_port as job "jank_exporter" with Prometheus's
  // default Accept header; `rule_files` loaded, `extra_args` (feature
  // flags) added to its command line, `target_labels` (a farm's own, such
  // as rack) given to the target as a file_sd or static list would.
  explicit Prometheus(std::uint16_t target_port, const std::vector<std::string>& rule_files = {},
                      const std::vector<std::string>& extra_args = {},
                      const std::vector<std::pair<std::string, std::string>>& target_labels = {})
      : Prometheus(PrometheusSetup{{target_port}, rule_files, extra_args, 0, "1s", target_labels, 0, false, "", {}}) {}
  explicit Prometheus(const PrometheusSetup& setup) : port_(free_port()), dir_("jank-prometheus") {
    const std::string config = dir_.path() + "/prometheus.yml";
    {
      std::ofstream out(config);
      out << "global:\n  scrape_interval: " << setup.interval << "\n  scrape_timeout: " << setup.interval << "\n";
      // An agent refuses rule evaluation and alerting settings.
      if (!setup.agent) out << "  evaluation_interval: " << setup.interval << "\n";
      if (setup.alertmanager_port != 0 && !setup.agent) {
        out << "alerting:\n  alertmanagers:\n    - static_configs:\n        - targets: ['127.0.0.1:"
            << setup.alertmanager_port << "']\n";
      }
      if (!setup.rule_files.empty() && !setup.agent) {
        out << "rule_files:\n";
        for (const auto& f : setup.rule_files) out << "  - " << f << "\n";
      }
      if (!setup.remote_write_url.empty()) {
        // Sent within a second of the scrape, so that a test waits seconds, not the default 5 s batches.
        out << "remote_write:\n  - url: " << setup.remote_write_url
            << "\n    queue_config:\n      batch_send_deadline: 1s\n";
      }
      out << "scrape_configs:\n  - job_name: jank_exporter\n";
      if (setup.sample_limit != 0) out << "    sample_limit: " << setup.sample_limit << "\n";
      out << "    static_configs:\n";
      auto labels = [&](const std::vector<std::pair<std::string, std::string>>& own) {
        if (setup.target_labels.empty() && own.empty()) return;
        out << "        labels:\n";
        for (const auto& [name, value] : setup.target_labels) out << "          " << name << ": '" << value << "'\n";
        for (const auto& [name, value] : own) out << "          " << name << ": '" << value << "'\n";
      };
      if (setup.labels_per_target.empty()) {
        out << "      - targets: [";
        for (std::size_t i = 0; i < setup.targets.size(); ++i) {
          out << (i ? ", " : "") << "'127.0.0.1:" << setup.targets[i] << "'";
        }
        out << "]\n";
        labels({});
      } else {
        // One static_config per target: each carries its own labels.
        for (std::size_t i = 0; i < setup.targets.size(); ++i) {
          out << "      - targets: ['127.0.0.1:" << setup.targets[i] << "']\n";
          labels(i < setup.labels_per_target.size() ? setup.labels_per_target[i]
                                                    : std::vector<std::pair<std::string, std::string>>{});
        }
      }
    }
    log_ = dir_.path() + "/prometheus.log";
    std::vector<std::string> argv = {JANK_PROMETHEUS_PROGRAM, "--config.file=" + config,
                                     "--web.listen-address=127.0.0.1:" + std::to_string(port_), "--log.level=warn"};
    if (setup.agent) {
      argv.push_back("--enable-feature=agent");
      argv.push_back("--storage.agent.path=" + dir_.path() + "/agent");
    } else {
      argv.push_back("--storage.tsdb.path=" + dir_.path() + "/data");
    }
    argv.insert(argv.end(), setup.extra_args.begin(), setup.extra_args.end());
    proc_ = ChildProcess(argv, {}, log_);
    ready_ = wait_until([&] { return http_body(port_, "/-/ready").find("Ready") != std::string::npos; }, 30000ms,
                        200ms);
  }
  ~Prometheus() { proc_.stop(10000ms); }
  bool ready() const { return ready_; }
  std::string log() const { return read_file(log_); }

  // The "data.result" array of an instant query (at `time`, Unix seconds as
  // the API takes them, or now); nullopt when the query failed.
  std::optional<Json> query(const std::string& promql, std::string* error = nullptr,
                            const std::string& time = "") const {
    std::string path = "/api/v1/query?query=" + url_encode(promql);
    if (!time.empty()) path += "&time=" + url_encode(time);
    const std::string body = http_body(port_, path);
    auto json = jank::rig::parse_json(body);
    if (!json || (*json)["status"].str != "success") {
      if (error) *error = body;
      return std::nullopt;
    }
    return (*json)["data"]["result"];
  }
  // Waits until each of `targets` scrape targets was up for at least
  // `scrapes` scrapes of the last minute (the rules' ranges have points).
  bool scraped(int scrapes, std::size_t targets, std::chrono::milliseconds within) const {
    const std::string q = "count_over_time(up{job=\"jank_exporter\"}[1m]) >= " + std::to_string(scrapes) + " and up == 1";
    return wait_until([&] {
      auto r = query(q);
      return r && r->size() == targets;
    }, within, 500ms);
  }
  std::optional<Json> api(const std::string& path) const {
    auto json = jank::rig::parse_json(http_body(port_, path));
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
