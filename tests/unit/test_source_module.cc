// The source-module frame (metrics/source.h, metrics/checkpoint.h): one
// checkpoint function writes and reads a record alike, records come back in
// any order, and a module's record that cannot be true is dropped alone.
#include <catch2/catch.hpp>

#include <array>
#include <set>
#include <string>

#include "metrics/checkpoint.h"
#include "metrics/source.h"
#include "metrics/sources/layers.h"
#include "metrics/sources/skips.h"
#include "metrics/sources/thermal.h"
#include "metrics/state_io.h"
#include "metrics/store.h"
#include "parsers/thermal.h"

using namespace jank;

namespace {

struct Sample {
  std::uint64_t a = 0;
  std::int64_t b = 0;
  double c = 0;
  std::string d;
  bool e = false;
  std::array<std::uint64_t, 3> f{};
};

// One description for both directions, as a module writes it.
bool describe(metrics::Checkpoint& c, Sample& s) {
  c.count(s.a).i64(s.b).f64(s.c).str(s.d).flag(s.e).counts(s.f);
  return c.valid() && s.a >= s.f[0];
}

const std::string kThermalDump =
    "Thermal Status: 2\nCurrent temperatures from HAL:\n"
    "\tTemperature{mValue=41.5, mType=3, mName=skin, mStatus=2}\n";

}  // namespace

TEST_CASE("a checkpoint function writes its fields and reads them back into the same fields", "[checkpoint][source]") {
  Sample out{7, -3, 0.1 + 0.2, "two words\n", true, {5, 6, 7}};
  metrics::StateWriter w;
  metrics::Checkpoint save(w);
  CHECK_FALSE(save.loading());
  CHECK(describe(save, out));

  Sample in;
  metrics::StateReader r(w.text());
  metrics::Checkpoint load(r);
  CHECK(load.loading());
  CHECK(describe(load, in));
  CHECK(in.a == 7);
  CHECK(in.b == -3);
  CHECK(in.c == out.c);
  CHECK(in.d == "two words\n");
  CHECK(in.e);
  CHECK(in.f == out.f);
  CHECK(r.at_end());

  // A count no counter reaches is rejected, and so is the record's own rule.
  metrics::StateReader huge("2000000000000000000 0 0 \"x 0 1 1 1");
  metrics::Checkpoint damaged(huge);
  Sample bad;
  CHECK_FALSE(describe(damaged, bad));
  CHECK_FALSE(damaged.failed());  // the text itself reads on
  metrics::StateReader unequal("1 0 0 \"x 0 9 1 1");
  metrics::Checkpoint ruled(unequal);
  CHECK_FALSE(describe(ruled, bad));  // a part larger than its whole
}

TEST_CASE("every registered module has a unique name and its own slot and families", "[source]") {
  std::set<std::string_view> names;
  std::set<std::size_t> slots;
  for (const auto* source : metrics::device_sources()) {
    INFO(source->name());
    CHECK(names.insert(source->name()).second);
    CHECK(slots.insert(source->slot()).second);
    CHECK_FALSE(source->families().empty());
  }
  // The store's own optional records keep their tags: no module may take one
  // ("ts_device" left the store with TimeStats, whose module kept the tag).
  for (const char* own : {"surface", "ft_device", "log_pattern_device", "end", "device", "package"}) {
    CHECK_FALSE(names.contains(own));
  }
}

// A package record's optional parts are told apart from what follows the
// record by their tags alone: a device record after a device's last package
// whose tag a package part also had would be read as that part.
TEST_CASE("no tag of an optional package part is a tag of a record that may follow a package", "[checkpoint][source]") {
  std::set<std::string_view> follows = {"surface", "package", "device", "end"};
  for (const auto* source : metrics::device_sources()) follows.insert(source->record());
  std::set<std::string_view> parts = {"peaks"};  // the store's own optional part
  for (const auto* source : metrics::device_sources()) {
    for (const auto at : {metrics::PackageAt::framestats, metrics::PackageAt::profile, metrics::PackageAt::windows,
                          metrics::PackageAt::last}) {
      const std::string_view tag = source->package_tag(at);
      if (tag.empty()) continue;
      INFO(source->name() << " at place " << static_cast<int>(at) << ": " << tag);
      CHECK(parts.insert(tag).second);  // and no two parts share one
      CHECK(source->make_package_state() != nullptr);
    }
  }
  REQUIRE(parts.size() > 1);
  for (const std::string_view tag : parts) {
    INFO(tag);
    CHECK_FALSE(follows.contains(tag));
  }
}

TEST_CASE("a device's last package record followed by module records loads back whole", "[checkpoint][source]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_skip(store, d, "com.example.feed", 0, false, 12);
  metrics::record_skip(store, d, "com.example.feed", 0, false, 3);
  // A thermal record and no surface record: thermal's follows the package.
  metrics::record_thermal(store, d, parsers::parse_thermalservice(kThermalDump));
  const std::string text = store.save();
  REQUIRE(text.find("\nsurface ") == std::string::npos);
  REQUIRE(text.find("\nthermal ") != std::string::npos);

  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(text, error));
  CHECK(error.empty());
  auto& back = restored.device("s");
  REQUIRE(back.packages.contains("com.example.feed"));
  const auto* skips = metrics::skips_of(back.packages.at("com.example.feed"));
  REQUIRE(skips != nullptr);
  CHECK(skips->skip_events == 2);
  CHECK(skips->skipped_frames == 15);
  REQUIRE(metrics::thermal_of(back) != nullptr);
  CHECK(metrics::thermal_of(back)->dumps == 1);
  CHECK(restored.save() == text);
}

TEST_CASE("a module's record loads wherever it stands among the device's optional records", "[checkpoint][source]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_thermal(store, d, parsers::parse_thermalservice(kThermalDump));
  metrics::layers_state(d).input.list_lines = 4;  // a surface record too
  const std::string text = store.save();
  const auto thermal_at = text.find("\nthermal ");
  const auto surface_at = text.find("\nsurface ");
  REQUIRE(thermal_at != std::string::npos);
  REQUIRE(surface_at != std::string::npos);
  REQUIRE(surface_at < thermal_at);
  // The thermal record moved before the surface record, as files of older releases wrote it.
  const auto thermal_end = text.find('\n', thermal_at + 1);
  const std::string record = text.substr(thermal_at, thermal_end - thermal_at);
  std::string moved = text;
  moved.erase(thermal_at, thermal_end - thermal_at);
  moved.insert(surface_at, record);
  REQUIRE(moved != text);

  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(moved, error));
  const auto* t = metrics::thermal_of(restored.device("s"));
  REQUIRE(t != nullptr);
  CHECK(t->dumps == 1);
  CHECK(t->lines == metrics::thermal_of(d)->lines);
  CHECK(metrics::layers_state(restored.device("s")).input.list_lines == 4);
  CHECK(restored.save() == text);
}
