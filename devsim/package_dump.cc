// `dumpsys package <pkg>` of a simulated app, after AOSP's
// PackageManagerService dump (Settings.dumpPackageLPr): the resolver table
// and key set sections, then the package's block under "Packages:" in the
// release's layout, then the queries and dexopt sections.
#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <ctime>

#include "devsim/appendf.h"
#include "devsim/model.h"

namespace jank::devsim {
namespace {

// Identity hashes as dumpsys prints them (Object.hashCode in hex): stable
// per package and purpose here.
std::uint32_t hash_of(std::string_view pkg, std::uint32_t salt) {
  std::uint32_t h = 2166136261u ^ salt;
  for (const char c : pkg) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h & 0x0fffffffu;
}

// "2023-11-14 22:13:20", the device's local time (dumpsys's SimpleDateFormat).
std::string local_time(std::int64_t wall_ns, std::int32_t tz_offset_s) {
  const std::time_t t = static_cast<std::time_t>(wall_ns / 1'000'000'000 + tz_offset_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &tm);
  return b;
}

// A base64-looking token for the code path (Android 11+'s /data/app/~~X==/pkg-Y==).
std::string token(std::uint32_t seed) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string s;
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (int i = 0; i < 22; ++i) {
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    s += kChars[(x >> 40) & 63];
  }
  return s + "==";
}

}  // namespace

std::string Device::dumpsys_package(std::string_view pkg) const {
  const AppState* app = nullptr;
  for (const auto& a : apps_) {
    if (a.cfg.package == pkg) app = &a;
  }
  if (app == nullptr) return "Unable to find package: " + std::string(pkg) + "\n";
  const AppState& a = *app;
  const int sdk = cfg_.sdk;
  const char* p = a.cfg.package.c_str();
  const int target = std::max(sdk, 23);
  std::string s;
  s += "Activity Resolver Table:\n  Non-Data Actions:\n      android.intent.action.MAIN:\n";
  appendf(s, "        %x %s/.MainActivity filter %x\n", hash_of(pkg, 1), p, hash_of(pkg, 2));
  s += "          Action: \"android.intent.action.MAIN\"\n          Category: \"android.intent.category.LAUNCHER\"\n\n";
  appendf(s, "Key Set Manager:\n  [%s]\n      Signing KeySets: %u\n\n", p, 40 + hash_of(pkg, 3) % 200);
  s += "Packages:\n";
  appendf(s, "  Package [%s] (%x):\n", p, hash_of(pkg, 4));
  appendf(s, "    userId=%d\n", a.uid);
  appendf(s, "    pkg=Package{%x %s}\n", hash_of(pkg, 5), p);
  // A new build installs under a new directory.
  const auto build = static_cast<std::uint32_t>(a.version_code) ^ hash_of(pkg, 6);
  std::string code_path = sdk >= 30 ? "/data/app/~~" + token(build) + "/" + a.cfg.package + "-" + token(build + 1)
                                    : "/data/app/" + a.cfg.package + "-" + token(build);
  appendf(s, "    codePath=%s\n    resourcePath=%s\n    legacyNativeLibraryDir=%s/lib\n", code_path.c_str(),
          code_path.c_str(), code_path.c_str());
  if (sdk >= 33) s += "    extractNativeLibs=false\n";
  s += "    primaryCpuAbi=arm64-v8a\n    secondaryCpuAbi=null\n";
  if (sdk >= 33) s += "    cpuAbiOverride=null\n";
  if (sdk >= 24) {
    appendf(s, "    versionCode=%" PRId64 " minSdk=24 targetSdk=%d\n", a.version_code, target);
  } else {
    appendf(s, "    versionCode=%" PRId64 " targetSdk=%d\n", a.version_code, target);
  }
  if (sdk >= 31) s += "    minExtensionVersions=[]\n";
  appendf(s, "    versionName=%s\n", a.version_name.c_str());
  if (sdk >= 33) s += "    usesNonSdkApi=false\n";
  s += "    splits=[base]\n    apkSigningVersion=2\n";
  s += "    flags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n";
  if (sdk >= 29) {
    s += "    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION "
         "ALLOW_AUDIO_PLAYBACK_CAPTURE PRIVATE_FLAG_ALLOW_NATIVE_HEAP_POINTER_TAGGING ]\n";
  }
  if (sdk >= 30) s += "    forceQueryable=false\n    queriesPackages=[]\n";
  appendf(s, "    dataDir=/data/user/0/%s\n", p);
  s += "    supportsScreens=[small, medium, large, xlarge, resizeable, anyDensity]\n";
  const std::string installed = local_time(a.first_install_wall, cfg_.tz_offset_s);
  const std::string updated = local_time(a.last_update_wall, cfg_.tz_offset_s);
  appendf(s, "    timeStamp=%s\n", updated.c_str());
  // Android 13 moved firstInstallTime into the per-user state.
  if (sdk < 33) appendf(s, "    firstInstallTime=%s\n", installed.c_str());
  appendf(s, "    lastUpdateTime=%s\n", updated.c_str());
  if (sdk >= 33) {
    s += "    installerPackageName=com.android.shell\n    packageSource=0\n";
  } else {
    s += "    installerPackageName=null\n";
  }
  appendf(s, "    signatures=PackageSignatures{%x version:2, signatures:[%x], past signatures:[]}\n", hash_of(pkg, 7),
          hash_of(pkg, 8));
  s += "    installPermissionsFixed=true\n    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]\n";
  s += "    requested permissions:\n      android.permission.INTERNET\n      android.permission.ACCESS_NETWORK_STATE\n";
  s += "    install permissions:\n      android.permission.INTERNET: granted=true\n"
       "      android.permission.ACCESS_NETWORK_STATE: granted=true\n";
  if (sdk >= 24) {
    appendf(s,
            "    User 0: ceDataInode=%u installed=true hidden=false suspended=false distractionFlags=0 stopped=false "
            "notLaunched=false enabled=0 instant=false virtual=false\n",
            100000 + hash_of(pkg, 9) % 900000);
  } else {
    s += "    User 0: installed=true hidden=false stopped=false notLaunched=false enabled=0\n";
  }
  if (sdk >= 33) {
    appendf(s, "      installReason=0\n      firstInstallTime=%s\n      uninstallReason=0\n", installed.c_str());
  }
  s += "      gids=[3003]\n      runtime permissions:\n\n";
  if (sdk >= 30) {
    appendf(s, "Queries:\n  system apps queryable: false\n  queries via package name:\n  queries via intent:\n"
               "  queryable via interaction:\n    User 0:\n      [%s]:\n        com.android.shell\n\n", p);
  }
  appendf(s, "Dexopt state:\n  [%s]\n    path: %s/base.apk\n      arm64: [status=speed-profile] [reason=install]\n\n",
          p, code_path.c_str());
  appendf(s, "Compiler stats:\n  [%s]\n     base.apk - %u\n", p, 300 + hash_of(pkg, 10) % 4000);
  return s;
}

}  // namespace jank::devsim
