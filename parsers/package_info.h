// `dumpsys package <pkg>`: version and SDK levels of one package. Pure
// function over decoded UTF-8 text (CRLF tolerated).
//
// The block used is "  Package [<pkg>] (hash):" under "Packages:" (or with
// no section header, for excerpts). A block under "Hidden system packages:"
// (the factory copy of an updated system app) is used only when no active
// block exists, and is then flagged. "Unable to find package" → nullopt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jank::parsers {

struct PackageUser {
  std::int32_t user = -1;
  std::optional<bool> installed;
};

struct PackageInfo {
  std::string package;
  std::optional<std::int64_t> version_code;
  std::optional<std::string> version_name;  // free text ("00.15.00-V10-Hybrid")
  std::optional<std::int32_t> min_sdk;
  std::optional<std::int32_t> target_sdk;
  std::optional<std::string> installer;     // installerPackageName ("null" kept as printed)
  std::optional<std::string> first_install_time;  // first one printed in the block (per package or user 0)
  std::optional<std::string> last_update_time;
  std::vector<PackageUser> users;           // "User N: … installed=…" lines of the block
  bool hidden_system_package = false;       // taken from "Hidden system packages:"
};

// `package` selects the block; empty → the first block.
std::optional<PackageInfo> parse_package_info(std::string_view dumpsys_package, std::string_view package = {});

}  // namespace jank::parsers
