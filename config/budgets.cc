#include "config/budgets.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <set>
#include <utility>

#include "parsers/text_scan.h"

namespace jank::config {
namespace {

using metrics::Better;
using metrics::BudgetLimit;
using metrics::BudgetTier;
using metrics::Bounds;
using metrics::LimitKind;

std::string metric_names() {
  std::string names;
  for (const auto& m : metrics::budget_metrics()) names += (names.empty() ? "" : ", ") + std::string(m.name);
  return names;
}

// Walks the document; each fault is told once, where it is, and the walk
// goes on so that one run of the command lists them all.
class Reader {
 public:
  Reader(std::string file, BudgetsLoad& load) : file_(std::move(file)), load_(load) {}

  void error_at(const YAML::Mark& m, const std::string& message) {
    load_.errors.push_back({file_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0, message});
  }
  void error(const YAML::Node& at, const std::string& message) { error_at(at.Mark(), message); }

  void document(const YAML::Node& root) {
    if (!root.IsMap()) return error(root, "expected a mapping with the key tiers");
    bool has_tiers = false;
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (key == "tiers" && !has_tiers) {
        has_tiers = true;
        tiers(kv.second);
      } else if (key == "tiers") {
        error(kv.first, "tiers: given twice");
      } else {
        error(kv.first, "unknown key '" + key + "' (allowed: tiers)");
      }
    }
    if (!has_tiers) error(root, "missing tiers: the list of device tiers");
  }

 private:
  void tiers(const YAML::Node& node) {
    if (!node.IsSequence() || node.size() == 0) return error(node, "tiers: expected a list of tiers");
    std::size_t index = 0;
    for (const auto& item : node) {
      const std::string path = "tiers[" + std::to_string(index++) + "]";
      BudgetTier tier;
      if (read_tier(item, path, tier)) load_.budgets.tiers.push_back(std::move(tier));
    }
  }

  // False when the tier was not read whole (its errors told).
  bool read_tier(const YAML::Node& item, const std::string& path, BudgetTier& tier) {
    if (!item.IsMap()) {
      error(item, path + ": expected a mapping (name, model, refresh_hz, sdk, limits)");
      return false;
    }
    const std::size_t before = load_.errors.size();
    std::set<std::string> seen;
    for (const auto& kv : item) {
      const std::string key = kv.first.Scalar();
      const std::string at = path + "." + key;
      if (!seen.insert(key).second) {
        error(kv.first, at + ": given twice");
        continue;
      }
      if (key == "name") {
        tier.name = text(kv.second, at);
        for (std::size_t i = 0; i < names_.size(); ++i)
          if (!tier.name.empty() && names_[i] == tier.name)
            error(kv.second, at + ": '" + tier.name + "' already names tiers[" + std::to_string(i) + "]");
      } else if (key == "model") {
        tier.model = text(kv.second, at);
        if (tier.model.size() > 255) error(kv.second, at + ": a model pattern has at most 255 characters");
      } else if (key == "refresh_hz") {
        if (kv.second.IsMap()) {
          tier.refresh_range = bounds(kv.second, at, false);
        } else if (const auto hz = number(kv.second, at)) {
          if (*hz <= 0) error(kv.second, at + ": a refresh rate is above 0 Hz");
          tier.refresh_hz = hz;
        }
      } else if (key == "sdk") {
        if (!kv.second.IsMap()) {
          error(kv.second, at + ": expected {min: LEVEL, max: LEVEL} (either may be left out)");
        } else {
          tier.sdk = bounds(kv.second, at, true);
        }
      } else if (key == "limits") {
        limits(kv.second, at, tier.limits);
      } else {
        error(kv.first, "unknown key '" + at + "' (allowed in a tier: name, model, refresh_hz, sdk, limits)");
      }
    }
    names_.push_back(tier.name);
    if (!seen.contains("name")) error(item, path + ": missing name");
    if (!seen.contains("model")) error(item, path + ": missing model: a glob on the device's model ('*': any)");
    if (!seen.contains("limits")) error(item, path + ": missing limits");
    return load_.errors.size() == before;
  }

  // {min: N, max: N}, at least one, min ≤ max; an SDK level is whole.
  Bounds bounds(const YAML::Node& node, const std::string& path, bool whole) {
    Bounds b;
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      const std::string at = path + "." + key;
      if (key != "min" && key != "max") {
        error(kv.first, "unknown key '" + at + "' (allowed in " + path + ": min, max)");
        continue;
      }
      const auto v = number(kv.second, at);
      if (!v) continue;
      if (*v < 0) error(kv.second, at + ": " + std::string(kv.second.Scalar()) + " is negative");
      if (whole && *v != std::floor(*v))
        error(kv.second, at + ": expected a whole API level");
      (key == "min" ? b.min : b.max) = v;
    }
    if (!b.min && !b.max) error(node, path + ": expected min, max or both");
    if (b.min && b.max && *b.min > *b.max) error(node, path + ": min is above max");
    return b;
  }

  void limits(const YAML::Node& node, const std::string& path, std::vector<BudgetLimit>& out) {
    if (!node.IsMap() || node.size() == 0)
      return error(node, path + ": expected a mapping of metrics to {max: N} or {min: N}");
    std::set<std::string> seen;
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      const std::string at = path + "." + name;
      const auto* def = metrics::find_budget_metric(name);
      if (def == nullptr) {
        error(kv.first, at + ": unknown metric '" + name + "' (metrics: " + metric_names() + ")");
        continue;
      }
      if (!seen.insert(name).second) {
        error(kv.first, at + ": given twice");
        continue;
      }
      const char* wanted = def->better == Better::kLower ? "max" : "min";
      if (!kv.second.IsMap() || kv.second.size() != 1) {
        error(kv.second, at + ": expected {" + wanted + ": N}");
        continue;
      }
      const auto entry = *kv.second.begin();
      const YAML::Node& kind_node = entry.first;
      const YAML::Node& value_node = entry.second;
      const std::string kind = kind_node.Scalar();
      if (kind != "max" && kind != "min") {
        error(kind_node, "unknown key '" + at + "." + kind + "' (allowed: " + wanted + ")");
        continue;
      }
      if (kind != wanted) {
        error(kind_node, at + ": " + (def->better == Better::kLower ? "lower" : "higher") + " is better, so its limit is a " +
                             wanted + ", not a " + kind);
        continue;
      }
      const auto v = number(value_node, at + "." + kind);
      if (!v) continue;
      if (*v < 0) {
        error(value_node, at + "." + kind + ": " + value_node.Scalar() + " is negative: a limit is 0 or more");
        continue;
      }
      out.push_back({name, kind == "max" ? LimitKind::kMax : LimitKind::kMin, *v});
    }
  }

  std::optional<double> number(const YAML::Node& node, const std::string& path) {
    if (node.IsScalar()) {
      if (const auto v = parsers::scan::parse_finite(node.Scalar())) return v;
      error(node, path + ": expected a number, not '" + node.Scalar() + "'");
    } else {
      error(node, path + ": expected a number");
    }
    return std::nullopt;
  }

  std::string text(const YAML::Node& node, const std::string& path) {
    if (!node.IsScalar() || node.Scalar().empty()) {
      error(node, path + ": expected a non-empty string");
      return "";
    }
    return node.Scalar();
  }

  std::string file_;
  BudgetsLoad& load_;
  std::vector<std::string> names_;  // of the tiers so far, read whole or not
};

}  // namespace

BudgetsLoad parse_budgets(std::string_view yaml_text, const std::string& file_name) {
  BudgetsLoad load;
  Reader reader(file_name, load);
  try {
    const YAML::Node root = YAML::Load(std::string(yaml_text));
    if (!root.IsDefined() || root.IsNull()) {
      load.errors.push_back({file_name, 0, 0, "empty: expected a mapping with the key tiers"});
    } else {
      reader.document(root);
    }
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp stops at 2000 levels and calls it a "bad file".
    reader.error_at(e.mark, "nested too deeply, not a budgets file");
  } catch (const YAML::Exception& e) {
    reader.error_at(e.mark, e.msg);
  }
  if (!load.ok()) load.budgets.tiers.clear();  // never half a file
  return load;
}

BudgetsLoad load_budgets_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    BudgetsLoad load;
    load.errors.push_back({path, 0, 0, "cannot read the file"});
    return load;
  }
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxBudgetsBytes) {
      BudgetsLoad load;
      load.errors.push_back({path, 0, 0, "larger than 1 MiB, not a budgets file"});
      return load;
    }
  }
  if (in.bad()) {
    BudgetsLoad load;
    load.errors.push_back({path, 0, 0, "cannot read the file"});
    return load;
  }
  return parse_budgets(text, path);
}

}  // namespace jank::config
