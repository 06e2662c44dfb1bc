// Every configuration key, declared once: its dotted name, type, default,
// range, unit, help and validator. The schema drives the file's parsing (and
// its unknown-key errors), `--help`, `--check-config` and the docs test.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config/config.h"

namespace jank::config {

// mapping_list: a list of mappings whose keys are the settings named
// "<key>[].<field>"; the list's `apply` starts a new item, the fields' apply
// fill in the newest one.
enum class ValueType { string, boolean, number, integer, string_list, mapping_list };
std::string value_type_name(ValueType type);

// A YAML value as the schema sees it: a scalar or a list of scalars.
struct RawValue {
  bool is_list = false;
  std::string scalar;
  std::vector<std::string> items;
};

struct Setting {
  std::string key;  // "gfxinfo.poll_interval_seconds"
  ValueType type = ValueType::string;
  double min = 0, max = 0;  // numbers only
  std::string unit;         // "seconds", "milliseconds", "hertz", "bytes", "frames" or ""
  std::string help;         // one line
  // The rule for a string or for each item of a list (empty: any); an error
  // message, or "". The same rule the runtime applies to the value.
  std::function<std::string(const std::string&)> check;
  // Stores a value that passed `check`; an error message (wrong type, out of
  // range), or "".
  std::function<std::string(const RawValue&, Config&)> apply;
  // The value the configuration holds, as the file would write it.
  std::function<std::string(const Config&)> show;

  // The default as docs/config.md writes it ("—": not set).
  std::string default_text() const {
    const std::string t = show(Config{});
    return t.empty() ? "—" : t;
  }
  // "[1, 3600] seconds", "" for non-numbers.
  std::string range_text() const;
};

const std::vector<Setting>& schema();
const Setting* find_setting(const std::string& key);

// Checks that involve more than one key, each reported at `key`.
struct KeyError {
  std::string key;
  std::string message;
};
std::vector<KeyError> cross_key_errors(const Config& config);

// Compiles config.log_patterns into config.log_pattern_set; each error at
// its item's key ("log_patterns[2].regex").
std::vector<KeyError> compile_log_patterns(Config& config);

// Reads traces.config_file (relative to the directory of `config_path`)
// into config.traces_config_text and checks it: readable, at most
// kMaxTraceConfigBytes, text, with data sources, and without the keys the
// exporter adds itself (trigger_config, unique_session_name, duration_ms).
inline constexpr std::size_t kMaxTraceConfigBytes = 64 * 1024;
std::vector<KeyError> read_trace_config(Config& config, const std::string& config_path);

// `--help`: one line per key with type, default, range and help.
std::string describe_schema();

}  // namespace jank::config
