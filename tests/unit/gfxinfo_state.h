// The gfxinfo module's state of a device or an app for assertions: an empty
// one where the module recorded nothing, so that a check reads 0 or false.
#pragma once

#include "metrics/sources/gfxinfo.h"

namespace jank::test {

inline const metrics::AppGfxinfoState& gfx(const metrics::PackageMetrics& p) {
  static const metrics::AppGfxinfoState none;
  const auto* s = metrics::gfxinfo_of(p);
  return s != nullptr ? *s : none;
}

inline const metrics::GfxinfoState& gfx(const metrics::DeviceMetrics& d) {
  static const metrics::GfxinfoState none;
  const auto* s = metrics::gfxinfo_of(d);
  return s != nullptr ? *s : none;
}

}  // namespace jank::test
