#include "metrics/sources/versions.h"

#include <string>

namespace jank::metrics {
namespace {

constexpr FamilySpec kFamilies[] = {
    {"android_app_info", FamilyType::gauge, "",
     "Installed version of an app the exporter polls (dumpsys package versionName, versionCode); always 1.",
     "serial,package,version_name,version_code"},
};
constexpr const FamilySpec& kInfo = kFamilies[0];

}  // namespace

const VersionsSource& versions_source() {
  static const VersionsSource source;
  return source;
}

std::span<const FamilySpec> VersionsSource::families() const { return kFamilies; }

void VersionsSource::collect(SeriesSink& f, const DeviceMetrics& d, const LabelSet&, std::int64_t,
                             CollectAt) const {
  const VersionsState* v = find(d);
  if (v == nullptr) return;
  for (const auto& [package, version] : v->by_package) {
    f.sample(kInfo,
             f.labels({{"serial", d.serial},
                       {"package", package},
                       {"version_name", version.name},
                       {"version_code", version.code ? std::to_string(*version.code) : std::string()}}),
             1);
  }
}

void VersionsSource::packages_changed(DeviceMetrics& device) const {
  if (find(device) == nullptr) return;
  std::erase_if(state(device).by_package, [&](const auto& entry) { return !has_package_series(device, entry.first); });
}

bool record_app_version(const Store& store, DeviceMetrics& device, std::string_view package, AppVersion version) {
  const std::string_view base = base_package(package);
  if (base.empty() || !has_package_series(device, base)) return false;
  auto& held = versions_source().state(device).by_package;
  auto it = held.find(base);
  if (it == held.end()) {
    if (held.size() >= store.options().max_packages_per_device) return false;
    it = held.emplace(std::string(base), AppVersion{}).first;
  }
  it->second = std::move(version);
  return true;
}

void forget_app_version(DeviceMetrics& device, std::string_view package) {
  if (versions_source().find(device) == nullptr) return;
  auto& held = versions_source().state(device).by_package;
  if (const auto it = held.find(base_package(package)); it != held.end()) held.erase(it);
}

const AppVersion* app_version_of(const DeviceMetrics& device, std::string_view package) {
  const VersionsState* v = versions_source().find(device);
  if (v == nullptr) return nullptr;
  const auto it = v->by_package.find(base_package(package));
  return it == v->by_package.end() ? nullptr : &it->second;
}

const std::map<std::string, AppVersion, std::less<>>& app_versions_of(const DeviceMetrics& device) {
  static const std::map<std::string, AppVersion, std::less<>> none;
  const VersionsState* v = versions_source().find(device);
  return v == nullptr ? none : v->by_package;
}

}  // namespace jank::metrics
