#include "parsers/sf_layers.h"

#include "parsers/names.h"
#include "parsers/text_scan.h"

namespace jank::parsers {
namespace {

constexpr std::size_t kMaxLayerNameBytes = 1024;  // real names are well under 300 bytes
constexpr std::size_t kMaxLayers = 65536;
constexpr std::string_view kWrapper = "RequestedLayerState{";

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// `RequestedLayerState{<name> parentId=N[ z=N]}` → <name>; nullopt if the wrapper is broken.
std::optional<std::string_view> unwrap(std::string_view line) {
  if (line.size() < kWrapper.size() + 1 || line.back() != '}') return std::nullopt;
  std::string_view inner = line.substr(kWrapper.size(), line.size() - kWrapper.size() - 1);
  const std::size_t parent = inner.rfind(" parentId=");
  if (parent == std::string_view::npos) return std::nullopt;
  std::string_view rest = inner.substr(parent + 10);
  const std::size_t z = rest.find(" z=");
  if (!all_digits(z == std::string_view::npos ? rest : rest.substr(0, z))) return std::nullopt;
  return inner.substr(0, parent);
}

// `<package>/<activity>` → package, when it is one.
std::optional<std::string> window_package(std::string_view title) {
  const std::size_t slash = title.find('/');
  if (slash == std::string_view::npos || slash + 1 >= title.size()) return std::nullopt;
  const std::string_view package = title.substr(0, slash);
  if (!valid_package_name(package) || package.find(':') != std::string_view::npos) return std::nullopt;
  // The activity is a Java class name: anything else is no app window's
  // (and never reaches a device command).
  for (const char c : title.substr(slash + 1)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '$';
    if (!ok) return std::nullopt;
  }
  return std::string(package);
}

}  // namespace

SfLayerList parse_sf_layer_list(std::string_view text) {
  SfLayerList out;
  scan::Lines lines(scan::strip_utf8_bom(text));
  std::string_view line;
  while (lines.next(line)) {
    line = scan::strip_trailing_crs(line);
    if (line.empty()) continue;
    if (line.starts_with(kWrapper)) {
      const auto name = unwrap(line);
      if (!name || name->empty()) {
        ++out.malformed_lines;
        continue;
      }
      line = *name;
    }
    if (line.size() > kMaxLayerNameBytes || out.names.size() >= kMaxLayers) {
      ++out.malformed_lines;
      continue;
    }
    out.names.emplace_back(line);
  }
  return out;
}

std::string_view strip_layer_suffix(std::string_view name) {
  const std::size_t hash = name.rfind('#');
  if (hash == std::string_view::npos || !all_digits(name.substr(hash + 1))) return name;
  return name.substr(0, hash);
}

std::optional<AppLayer> classify_layer(std::string_view name) {
  const std::string_view base = strip_layer_suffix(name);
  AppLayer layer;
  layer.name = std::string(name);
  layer.stable_name = std::string(base);
  std::optional<std::string> package;
  if (base.starts_with("SurfaceView[") && base.ends_with("](BLAST)")) {
    package = window_package(base.substr(12, base.size() - 12 - 8));
    layer.kind = LayerKind::surface_view;
  } else if (base.starts_with("SurfaceView - ")) {
    package = window_package(base.substr(14));
    layer.kind = LayerKind::surface_view;
  } else {
    package = window_package(base);  // a container's leading hex token makes this fail (a space)
  }
  if (!package) return std::nullopt;
  layer.package = std::move(*package);
  return layer;
}

}  // namespace jank::parsers
