#include "parsers/package_info.h"

#include <utility>

#include "parsers/names.h"
#include "parsers/text_scan.h"

namespace jank::parsers {

namespace {

constexpr std::size_t kMaxUsers = 64;

// Value of "key=" up to the next blank (dumpsys prints several per line).
std::optional<std::string_view> token_value(std::string_view line, std::string_view key) {
  auto v = scan::after_key(line, key);
  if (!v) return std::nullopt;
  return scan::first_word(*v);
}

void read_block_line(std::string_view t, PackageInfo& p) {
  if (auto v = token_value(t, "versionCode="); v && !p.version_code) p.version_code = scan::parse_int<std::int64_t>(*v);
  if (auto v = token_value(t, "minSdk="); v && !p.min_sdk) p.min_sdk = scan::parse_int<std::int32_t>(*v);
  if (auto v = token_value(t, "targetSdk="); v && !p.target_sdk) p.target_sdk = scan::parse_int<std::int32_t>(*v);
  if (t.starts_with("versionName=") && !p.version_name) p.version_name = std::string(scan::trim(t.substr(12)));
  if (auto v = token_value(t, "installerPackageName="); v && !p.installer) p.installer = std::string(*v);
  if (t.starts_with("firstInstallTime=") && !p.first_install_time)
    p.first_install_time = std::string(scan::trim(t.substr(17)));
  if (t.starts_with("lastUpdateTime=") && !p.last_update_time)
    p.last_update_time = std::string(scan::trim(t.substr(15)));
  if (t.starts_with("User ") && p.users.size() < kMaxUsers) {
    std::size_t used = 0;
    auto id = scan::leading_int<std::int32_t>(t.substr(5), &used);
    if (id && t.substr(5 + used).starts_with(':')) {
      PackageUser u;
      u.user = *id;
      if (auto v = token_value(t, "installed=")) {
        if (*v == "true") u.installed = true;
        else if (*v == "false") u.installed = false;
      }
      p.users.push_back(u);
    }
  }
}

}  // namespace

std::optional<PackageInfo> parse_package_info(std::string_view text, std::string_view package) {
  std::optional<PackageInfo> active, hidden;
  bool in_hidden_section = false;
  PackageInfo* cur = nullptr;
  std::size_t block_indent = 0;

  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view raw;
  while (lines.next(raw)) {
    std::string_view line = scan::strip_trailing_crs(raw);
    std::string_view t = scan::trim(line);
    if (t.empty()) continue;
    const auto indent = static_cast<std::size_t>(t.data() - line.data());  // what trim took off the front
    if (indent == 0) {
      cur = nullptr;
      if (t.starts_with("Unable to find package")) return std::nullopt;
      // Section headers: "Packages:", "Hidden system packages:", "Queries:", …
      in_hidden_section = t.starts_with("Hidden system packages:");
    }
    if (t.starts_with("Package [")) {
      cur = nullptr;
      std::size_t close = t.find(']');
      if (close == std::string_view::npos) continue;
      std::string_view name = t.substr(9, close - 9);
      if (!valid_package_name(name) || (!package.empty() && name != package)) continue;
      std::optional<PackageInfo>& slot = in_hidden_section ? hidden : active;
      if (slot) continue;  // first block of its kind wins
      slot.emplace();
      slot->package = std::string(name);
      slot->hidden_system_package = in_hidden_section;
      cur = &*slot;
      block_indent = indent;
      continue;
    }
    if (cur == nullptr) continue;
    if (indent <= block_indent) {  // back at the block's level: the block ended
      cur = nullptr;
      continue;
    }
    read_block_line(t, *cur);
  }
  if (active) return active;
  return hidden;
}

}  // namespace jank::parsers
