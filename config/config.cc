#include "config/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "config/schema.h"

namespace jank::config {
namespace {

// Walks the YAML document along the schema: a key is a setting, a group of
// settings (a mapping), or unknown (reported with the keys allowed there).
class Loader {
 public:
  Loader(std::string file, LoadResult& result) : file_(std::move(file)), result_(result) {}

  void error_at(const YAML::Mark& m, const std::string& message) {
    result_.errors.push_back({file_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, message});
  }
  void error(const YAML::Node& at, const std::string& message) { error_at(at.Mark(), message); }

  void document(const YAML::Node& root, Config& c) {
    marks_[""] = root.Mark();
    mapping(root, "", c);
    for (const auto& e : cross_key_errors(c)) error_at(mark_of(e.key), e.message);
    for (const auto& e : read_trace_config(c, file_)) error_at(mark_of(e.key), e.message);
    // An error of a pattern's field already told is not told again by the compiler.
    for (const auto& e : compile_log_patterns(c)) {
      const bool told = std::any_of(failed_items_.begin(), failed_items_.end(), [&](const std::string& k) {
        return e.key == k || (e.key.compare(0, k.size(), k) == 0 && e.key[k.size()] == '.') ||
               k.compare(0, e.key.size(), e.key) == 0;
      });
      if (!told) error_at(mark_of(e.key), e.message);
    }
  }

 private:
  void mapping(const YAML::Node& node, const std::string& path, Config& c) {
    if (node.IsNull()) return;
    if (!node.IsMap()) return error(node, where(path) + "expected a mapping");
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      const std::string key = path.empty() ? name : path + "." + name;
      marks_[key] = kv.second.Mark();
      if (const Setting* s = find_setting(key); s && s->type == ValueType::mapping_list) {
        items(kv.second, *s, c);
      } else if (s) {
        value(kv.second, *s, c);
      } else if (is_group(key)) {
        mapping(kv.second, key, c);
      } else {
        error(kv.first, "unknown key '" + key + "' (allowed" + (path.empty() ? "" : " in " + path) + ": " +
                            allowed_in(path) + ")");
      }
    }
  }

  // A list of mappings (log_patterns): each item is started by the list's
  // apply and filled by the settings "<key>[].<field>", errors named
  // "<key>[i].<field>".
  void items(const YAML::Node& node, const Setting& list, Config& c) {
    if (node.IsNull()) return;
    if (!node.IsSequence()) return error(node, list.key + ": expected a list of mappings");
    std::size_t index = 0;
    for (const auto& item : node) {
      const std::string path = list.key + "[" + std::to_string(index++) + "]";
      marks_[path] = item.Mark();
      if (std::string e = list.apply(RawValue{}, c); !e.empty()) {
        error(item, list.key + ": " + e);
        break;
      }
      if (!item.IsMap()) {
        error(item, path + ": expected a mapping");
        failed_items_.insert(path);  // its empty item keeps the indices of the rest
        continue;
      }
      for (const auto& kv : item) {
        const std::string name = kv.first.Scalar();
        const Setting* field = find_setting(list.key + "[]." + name);
        if (field == nullptr) {
          error(kv.first, "unknown key '" + path + "." + name + "' (allowed in " + list.key + ": " +
                              allowed_in(list.key + "[]") + ")");
          continue;
        }
        marks_[path + "." + name] = kv.second.Mark();
        const std::size_t before = result_.errors.size();
        value(kv.second, *field, c, path + "." + name);
        if (result_.errors.size() != before) failed_items_.insert(path + "." + name);
      }
    }
  }

  void value(const YAML::Node& node, const Setting& s, Config& c, const std::string& shown = "") {
    const std::string& key = shown.empty() ? s.key : shown;
    RawValue raw;
    bool ok = true;
    auto check = [&](const YAML::Node& at, const std::string& text) {
      if (!s.check) return;
      if (std::string e = s.check(text); !e.empty()) {
        error(at, key + ": " + e);
        ok = false;
      }
    };
    if (node.IsSequence()) {
      raw.is_list = true;
      for (const auto& item : node) {
        if (!item.IsScalar()) {
          error(item, key + ": expected a list of strings");
          ok = false;
          continue;
        }
        check(item, item.Scalar());
        raw.items.push_back(item.Scalar());
      }
    } else if (node.IsScalar()) {
      raw.scalar = node.Scalar();
      if (s.type != ValueType::string_list) check(node, raw.scalar);
    } else {
      return error(node, key + ": expected " + std::string(s.type == ValueType::string_list ? "a list" : "a value"));
    }
    if (!ok) return;
    if (std::string e = s.apply(raw, c); !e.empty()) error(node, key + ": " + e);
  }

  static bool is_group(const std::string& key) {
    if (key.find('[') != std::string::npos) return false;  // list items are no group
    for (const auto& s : schema()) {
      if (s.key.size() > key.size() && s.key.compare(0, key.size(), key) == 0 && s.key[key.size()] == '.') return true;
    }
    return false;
  }
  static std::string allowed_in(const std::string& path) {
    std::string out;
    std::vector<std::string> seen;
    for (const auto& s : schema()) {
      if (!path.empty() && !(s.key.size() > path.size() && s.key.compare(0, path.size(), path) == 0 &&
                             s.key[path.size()] == '.')) {
        continue;
      }
      if (path.find('[') == std::string::npos && s.key.find('[') != std::string::npos) continue;  // item fields
      std::string rest = path.empty() ? s.key : s.key.substr(path.size() + 1);
      rest = rest.substr(0, rest.find('.'));
      if (std::find(seen.begin(), seen.end(), rest) != seen.end()) continue;
      seen.push_back(rest);
      out += (out.empty() ? "" : ", ") + rest;
    }
    return out;
  }
  // Where a key (or the nearest group holding it) was written.
  YAML::Mark mark_of(std::string key) const {
    while (true) {
      if (auto it = marks_.find(key); it != marks_.end()) return it->second;
      const auto dot = key.rfind('.');
      if (dot == std::string::npos) return marks_.at("");
      key.resize(dot);
    }
  }
  static std::string where(const std::string& path) { return path.empty() ? "" : path + ": "; }

  std::string file_;
  LoadResult& result_;
  std::map<std::string, YAML::Mark> marks_;
  std::set<std::string> failed_items_;  // list items and fields whose errors were told
};

}  // namespace

std::string ConfigError::to_string() const {
  std::ostringstream out;
  out << file;
  if (line > 0) out << ":" << line << ":" << column;
  out << ": " << message;
  return out.str();
}

LoadResult parse_config(std::string_view yaml_text, const std::string& file_name) {
  LoadResult result;
  Loader loader(file_name, result);
  try {
    const YAML::Node root = YAML::Load(std::string(yaml_text));
    if (root.IsDefined() && !root.IsNull()) {
      loader.document(root, result.config);
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

}  // namespace jank::config
