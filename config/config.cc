#include "config/config.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

#include <re2/re2.h>

namespace jank::config {
namespace {

class Loader {
 public:
  Loader(std::string file, LoadResult& result) : file_(std::move(file)), result_(result) {}

  void error(const YAML::Node& at, const std::string& message) {
    const YAML::Mark m = at.Mark();
    result_.errors.push_back({file_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, message});
  }
  void error_at(const YAML::Mark& m, const std::string& message) {
    result_.errors.push_back({file_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, message});
  }

  // A mapping's keys, each with its reader; anything else is reported with
  // the allowed keys listed.
  using Reader = std::function<void(const YAML::Node&, const std::string& path)>;
  struct Key {
    const char* name;
    Reader read;
  };
  void mapping(const YAML::Node& node, const std::string& path, const std::vector<Key>& keys) {
    if (node.IsNull()) return;
    if (!node.IsMap()) {
      error(node, where(path) + "expected a mapping");
      return;
    }
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      const Key* key = nullptr;
      for (const auto& k : keys) {
        if (name == k.name) key = &k;
      }
      if (key == nullptr) {
        std::string allowed;
        for (const auto& k : keys) allowed += std::string(allowed.empty() ? "" : ", ") + k.name;
        error(kv.first, "unknown key '" + join(path, name) + "' (allowed" + (path.empty() ? "" : " in " + path) +
                            ": " + allowed + ")");
        continue;
      }
      key->read(kv.second, join(path, name));
    }
  }

  Reader string(std::string& out, std::function<std::string(const std::string&)> check = {}) {
    return [this, &out, check](const YAML::Node& n, const std::string& path) {
      if (!n.IsScalar()) return error(n, path + ": expected a string");
      if (check) {
        if (std::string e = check(n.Scalar()); !e.empty()) return error(n, path + ": " + e);
      }
      out = n.Scalar();
    };
  }
  Reader boolean(bool& out) {
    return [this, &out](const YAML::Node& n, const std::string& path) {
      bool v = false;
      if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) return error(n, path + ": expected true or false");
      out = v;
    };
  }
  template <typename T>
  Reader number(T& out, double min, double max) {
    return [this, &out, min, max](const YAML::Node& n, const std::string& path) {
      double v = 0;
      if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !std::isfinite(v)) {
        return error(n, path + ": expected a number");
      }
      if (v < min || v > max) {
        std::ostringstream m;
        m << path << ": " << v << " is out of range [" << min << ", " << max << "]";
        return error(n, m.str());
      }
      if constexpr (std::is_integral_v<T>) {
        if (v != std::floor(v)) return error(n, path + ": expected a whole number");
      }
      out = static_cast<T>(v);
    };
  }
  Reader strings(std::vector<std::string>& out, std::function<std::string(const std::string&)> check = {}) {
    return [this, &out, check](const YAML::Node& n, const std::string& path) {
      if (!n.IsSequence()) return error(n, path + ": expected a list");
      std::vector<std::string> values;
      for (const auto& item : n) {
        if (!item.IsScalar()) {
          error(item, path + ": expected a list of strings");
          continue;
        }
        if (check) {
          if (std::string e = check(item.Scalar()); !e.empty()) {
            error(item, path + ": " + e);
            continue;
          }
        }
        values.push_back(item.Scalar());
      }
      out = std::move(values);
    };
  }

 private:
  static std::string join(const std::string& path, const std::string& name) {
    return path.empty() ? name : path + "." + name;
  }
  static std::string where(const std::string& path) { return path.empty() ? "" : path + ": "; }
  std::string file_;
  LoadResult& result_;
};

std::string check_address(const std::string& v) {
  const auto colon = v.rfind(':');
  if (colon == std::string::npos || colon + 1 == v.size()) return "'" + v + "' is not HOST:PORT";
  const std::string port = v.substr(colon + 1);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 || std::stoi(port) > 65535) {
    return "'" + v + "' has no valid port";
  }
  return "";
}

std::string check_log_level(const std::string& v) {
  for (const char* l : {"debug", "info", "warning", "error"}) {
    if (v == l) return "";
  }
  return "'" + v + "' is not one of debug, info, warning, error";
}

std::string check_package(const std::string& v) {
  return valid_package_name(v) ? "" : "'" + v + "' is not a valid package name ([A-Za-z0-9._:-]+, at most 255)";
}

std::string check_glob(const std::string& v) {
  if (v.empty() || v.size() > 255) return "a serial pattern must have 1 to 255 characters";
  return "";
}

void read_document(const YAML::Node& root, Loader& l, Config& c) {
  auto basic_auth = [&](const YAML::Node& n, const std::string& path) {
    BasicAuth auth;
    l.mapping(n, path, {{"username", l.string(auth.username)}, {"password_file", l.string(auth.password_file)}});
    if (auth.username.empty() || auth.password_file.empty()) {
      l.error(n, path + ": needs both username and password_file");
      return;
    }
    c.basic_auth = auth;
  };
  l.mapping(root, "",
            {
                {"listen_address", l.string(c.listen_address, check_address)},
                {"adb_servers", l.strings(c.adb_servers, check_address)},
                {"state_dir", l.string(c.state_dir)},
                {"log_level", l.string(c.log_level, check_log_level)},
                {"checkpoint_interval_seconds", l.number(c.checkpoint_interval_seconds, 1, 3600)},
                {"devices",
                 [&](const YAML::Node& n, const std::string& path) {
                   l.mapping(n, path,
                             {{"include", l.strings(c.include_serials, check_glob)},
                              {"exclude", l.strings(c.exclude_serials, check_glob)},
                              {"max_packages", l.number(c.max_packages_per_device, 1, 100000)},
                              {"grace_seconds", l.number(c.device_grace_seconds, 0, 30 * 86400)}});
                 }},
                {"processes",
                 [&](const YAML::Node& n, const std::string& path) {
                   l.mapping(n, path, {{"grace_seconds", l.number(c.process_grace_seconds, 0, 30 * 86400)}});
                 }},
                {"choreographer",
                 [&](const YAML::Node& n, const std::string& path) {
                   l.mapping(n, path,
                             {{"skipwarning_frames", l.number(c.skipwarning_frames, 1, 1000)},
                              {"restart_zygote", l.boolean(c.restart_zygote)},
                              {"sm_window_seconds", l.number(c.sm_window_seconds, 1, 86400)}});
                 }},
                {"display",
                 [&](const YAML::Node& n, const std::string& path) {
                   l.mapping(n, path,
                             {{"default_refresh_rate_hertz", l.number(c.default_refresh_rate_hertz, 1, 1000)},
                              {"poll_interval_seconds", l.number(c.display_poll_interval_seconds, 1, 86400)}});
                 }},
                {"gfxinfo",
                 [&](const YAML::Node& n, const std::string& path) {
                   l.mapping(n, path,
                             {{"packages", l.strings(c.gfxinfo_packages, check_package)},
                              {"discover", l.boolean(c.gfxinfo_discover)},
                              {"poll_interval_seconds", l.number(c.gfxinfo_poll_interval_seconds, 0.5, 86400)},
                              {"fast_poll_interval_seconds",
                               l.number(c.gfxinfo_fast_poll_interval_seconds, 0.5, 86400)}});
                 }},
                {"logcat",
                 [&](const YAML::Node& n, const std::string& path) {
                   l.mapping(n, path,
                             {{"max_line_bytes", l.number(c.logcat_max_line_bytes, 1024, 1 << 20)},
                              {"read_batch_milliseconds", l.number(c.logcat_read_batch_ms, 0, 1000)}});
                 }},
                {"timeouts",
                 [&](const YAML::Node& n, const std::string& path) {
                   l.mapping(n, path,
                             {{"connect_seconds", l.number(c.connect_timeout_seconds, 0.1, 600)},
                              {"command_seconds", l.number(c.command_timeout_seconds, 0.1, 3600)},
                              {"command_max_seconds", l.number(c.command_timeout_max_seconds, 0.1, 3600)}});
                 }},
                {"http",
                 [&](const YAML::Node& n, const std::string& path) {
                   auto tls = [&](const YAML::Node& t, const std::string& p) {
                     TlsFiles files;
                     l.mapping(t, p,
                               {{"certificate_file", l.string(files.certificate_file)},
                                {"key_file", l.string(files.key_file)}});
                     if (files.certificate_file.empty() || files.key_file.empty()) {
                       l.error(t, p + ": needs both certificate_file and key_file");
                       return;
                     }
                     c.tls = files;
                   };
                   l.mapping(n, path, {{"basic_auth", basic_auth}, {"tls", tls}});
                 }},
            });
  if (c.gfxinfo_fast_poll_interval_seconds > c.gfxinfo_poll_interval_seconds) {
    l.error(root["gfxinfo"], "gfxinfo.fast_poll_interval_seconds must not exceed gfxinfo.poll_interval_seconds");
  }
}

}  // namespace

std::string ConfigError::to_string() const {
  std::ostringstream out;
  out << file;
  if (line > 0) out << ":" << line << ":" << column;
  out << ": " << message;
  return out.str();
}

bool valid_package_name(std::string_view name) {
  static const RE2 pattern("[A-Za-z0-9._:-]{1,255}");
  return RE2::FullMatch(re2::StringPiece(name.data(), name.size()), pattern);
}

LoadResult parse_config(std::string_view yaml_text, const std::string& file_name) {
  LoadResult result;
  Loader loader(file_name, result);
  try {
    const YAML::Node root = YAML::Load(std::string(yaml_text));
    if (root.IsDefined() && !root.IsNull()) {
      read_document(root, loader, result.config);
    }
  } catch (const YAML::Exception& e) {
    loader.error_at(e.mark, e.msg);
  }
  return result;
}

LoadResult load_config_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    LoadResult result;
    result.errors.push_back({path, 0, 0, "cannot read the file"});
    return result;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path);
}

std::vector<std::string> known_keys() {
  return {"listen_address",
          "adb_servers",
          "state_dir",
          "log_level",
          "checkpoint_interval_seconds",
          "devices.include",
          "devices.exclude",
          "devices.max_packages",
          "devices.grace_seconds",
          "processes.grace_seconds",
          "choreographer.skipwarning_frames",
          "choreographer.restart_zygote",
          "choreographer.sm_window_seconds",
          "display.default_refresh_rate_hertz",
          "display.poll_interval_seconds",
          "gfxinfo.packages",
          "gfxinfo.discover",
          "gfxinfo.poll_interval_seconds",
          "gfxinfo.fast_poll_interval_seconds",
          "logcat.max_line_bytes",
          "logcat.read_batch_milliseconds",
          "timeouts.connect_seconds",
          "timeouts.command_seconds",
          "http.basic_auth.username",
          "http.basic_auth.password_file",
          "http.tls.certificate_file",
          "http.tls.key_file"};
}

}  // namespace jank::config
