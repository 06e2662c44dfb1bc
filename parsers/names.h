// Rules for names that come from devices or from the configuration and end up
// in a shell command on a device or in a metric label. Written once: the
// configuration, the parsers and the device session all use these.
#pragma once

#include <cstddef>
#include <string_view>

namespace jank::parsers {

inline constexpr std::size_t kMaxPackageNameBytes = 255;

// A package or process name: [A-Za-z0-9._:-]+ (':' appears in process
// names), at most kMaxPackageNameBytes, and no leading '-' (it would read as
// an option to dumpsys or pidof). Always safe inside single quotes and as a
// label value.
bool valid_package_name(std::string_view name);

}  // namespace jank::parsers
