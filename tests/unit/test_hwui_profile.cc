// HWUI "Profile data in ms" rows: the per-app tracker, the store feeding it
// from gfxinfo dumps of every layout, and its checkpoint.
#include <catch2/catch.hpp>

#include <string>

#include "exporters/prometheus_collector.h"
#include "metrics/hwui_profile.h"
#include "metrics/state_io.h"
#include "metrics/store.h"
#include "parsers/gfxinfo.h"
#include "tests/unit/gfxinfo_state.h"

using namespace jank;
using test::gfx;

namespace {

const metrics::Histogram& stage(const metrics::ProfileStages& p, metrics::ProfileStage s) {
  return p.stage_duration()[static_cast<std::size_t>(s)];
}

// Android 14: a table, then the Window: block of the same renderer.
std::string android14_dump(const std::string& rows) {
  return "** Graphics info for pid 31520 [com.example.u] **\n"
         "Profile data in ms:\n\n"
         "\tcom.example.u/com.example.u.Main/android.view.ViewRootImpl@8d1 (visibility=0)\n"
         "\tDraw\tPrepare\tProcess\tExecute\n" +
         rows +
         "\nWindow: com.example.u/com.example.u.Main\n"
         "Total frames rendered: 4\n\n"
         "View hierarchy:\n";
}

}  // namespace

TEST_CASE("hwui profile: each row is one frame with its four stages", "[hwui_profile]") {
  metrics::ProfileStages p;
  parsers::GfxProfileRow row;
  row.draw_ms = 12;
  row.prepare_ms = 0.5;
  row.process_ms = 3;
  row.execute_ms = 50;  // the 6+ clamp: 50 ms or more
  p.add(row);
  row.prepare_ms.reset();  // Android 4.x: three columns
  row.draw_ms = 1;
  p.add(row);
  CHECK(p.frames() == 2);
  CHECK(stage(p, metrics::ProfileStage::draw).count() == 2);
  CHECK(stage(p, metrics::ProfileStage::draw).sum() == Approx(0.013));
  CHECK(stage(p, metrics::ProfileStage::prepare).count() == 1);
  CHECK(stage(p, metrics::ProfileStage::prepare).sum() == Approx(0.0005));
  CHECK(stage(p, metrics::ProfileStage::execute).sum() == Approx(0.1));
  CHECK(metrics::profile_stage_name(metrics::ProfileStage::process) == "process");
}

TEST_CASE("hwui profile: a saved record reads back and one that cannot be true is refused", "[hwui_profile][state]") {
  metrics::ProfileStages p;
  parsers::GfxProfileRow row;
  row.draw_ms = 4;
  row.prepare_ms = 1;
  p.add(row);
  metrics::StateWriter w;
  p.save(w);
  const std::string text = w.text();

  metrics::ProfileStages back;
  metrics::StateReader r(text);
  REQUIRE(back.load(r));
  CHECK(back.frames() == 1);
  CHECK(stage(back, metrics::ProfileStage::draw).sum() == Approx(0.004));

  // More frames than draw observations: every frame has a draw stage.
  std::string more = text;
  more.replace(0, std::string("hwui_profile 1").size(), "hwui_profile 2");
  metrics::ProfileStages bad;
  metrics::StateReader r2(more);
  CHECK_FALSE(bad.load(r2));
  CHECK_FALSE(r2.fail());  // well-formed: the caller drops the record, not the file
}

TEST_CASE("hwui profile store: rows of every layout count under their app", "[hwui_profile][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  // Android 4.4: three columns, a decimal comma, -1.00 for a stage not run.
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo("** Graphics info for pid 29541 [com.example.kk] **\n"
                                                 "Profile data in ms:\n\n"
                                                 "\tcom.example.kk/com.example.kk.Main/android.view.ViewRootImpl@41\n"
                                                 "\tDraw\tProcess\tExecute\n"
                                                 "\t5.12\t3.40\t1.05\n"
                                                 "\t20,51\t-1.00\t-1.00\n\n"
                                                 "View hierarchy:\n"));
  // Android 14, with one malformed row.
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(android14_dump("\t50.00\t1.20\t3.40\t5.60\n"
                                                                "\t2.00\t0.20\t0.40\n"
                                                                "\t2.00\t0.20\t0.40\t0.60\n")));
  const auto& kk = d.packages.at("com.example.kk");
  CHECK(gfx(kk).has_hwui_profile);
  CHECK_FALSE(gfx(kk).has_gfxinfo);
  CHECK(gfx(kk).hwui_profile.frames() == 2);
  CHECK(stage(gfx(kk).hwui_profile, metrics::ProfileStage::prepare).count() == 0);
  CHECK(stage(gfx(kk).hwui_profile, metrics::ProfileStage::process).sum() == Approx(0.0034));
  const auto& u = d.packages.at("com.example.u");
  CHECK(gfx(u).hwui_profile.frames() == 2);
  CHECK(stage(gfx(u).hwui_profile, metrics::ProfileStage::draw).sum() == Approx(0.052));
  CHECK(gfx(d).input.profile_rows == 5);
  CHECK(gfx(d).input.profile_rows_discarded == 1);

  // The next poll prints only frames drawn since: each adds.
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(android14_dump("\t3.00\t0.10\t0.20\t0.30\n")));
  CHECK(gfx(u).hwui_profile.frames() == 3);
  // A header without rows: profiling on, nothing new.
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(android14_dump("")));
  CHECK(gfx(u).hwui_profile.frames() == 3);

  const std::string text = exporters::StoreCollector(store, exporters::input_time_now()).Text().str();
  CHECK(text.find("android_hwui_profile_frames_total{serial=\"s\",package=\"com.example.u\"} 3\n") !=
        std::string::npos);
  CHECK(text.find("android_hwui_profile_stage_duration_seconds_count{serial=\"s\",package=\"com.example.kk\","
                  "stage=\"prepare\"} 0\n") != std::string::npos);
  CHECK(text.find("jank_exporter_gfxinfo_profile_rows_total{serial=\"s\",result=\"parsed\"} 5\n") !=
        std::string::npos);
  CHECK(text.find("jank_exporter_gfxinfo_profile_rows_total{serial=\"s\",result=\"discarded\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("hwui profile store: a table outside any section counts under unknown", "[hwui_profile][store]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo("Profile data in ms:\n"
                                                 "\ta/a.Main/android.view.ViewRootImpl@1 (visibility=0)\n"
                                                 "\tDraw\tPrepare\tProcess\tExecute\n"
                                                 "\t1.00\t1.00\t1.00\t1.00\n\n"));
  REQUIRE(d.packages.count(std::string(metrics::kUnknownPackage)) == 1);
  CHECK(gfx(d.packages.at(std::string(metrics::kUnknownPackage))).hwui_profile.frames() == 1);
}

TEST_CASE("hwui profile store: the checkpoint keeps frames, stages and row counts", "[hwui_profile][store][state]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(android14_dump("\t4.00\t0.50\t2.00\t1.00\n\tx\n")));
  const std::string saved = store.save();

  metrics::Store restored;
  std::string error;
  REQUIRE(restored.load(saved, error));
  auto& r = restored.device("s");
  const auto& u = r.packages.at("com.example.u");
  CHECK(gfx(u).has_hwui_profile);
  CHECK(gfx(u).hwui_profile.frames() == 1);
  CHECK(stage(gfx(u).hwui_profile, metrics::ProfileStage::prepare).sum() == Approx(0.0005));
  CHECK(gfx(r).input.profile_rows == 2);
  CHECK(gfx(r).input.profile_rows_discarded == 1);
  CHECK(restored.save() == saved);
  metrics::record_gfxinfo(restored, r, parsers::parse_gfxinfo(android14_dump("\t4.00\t0.50\t2.00\t1.00\n")));
  CHECK(gfx(u).hwui_profile.frames() == 2);
}

TEST_CASE("hwui profile store: a saved record that cannot be true drops the package record", "[hwui_profile][store][state]") {
  metrics::Store store;
  auto& d = store.device("s");
  metrics::record_gfxinfo(store, d, parsers::parse_gfxinfo(android14_dump("\t4.00\t0.50\t2.00\t1.00\n")));
  std::string saved = store.save();
  const auto at = saved.find("hwui_profile 1 ");
  REQUIRE(at != std::string::npos);
  saved.replace(at, std::string("hwui_profile 1").size(), "hwui_profile 7");
  // And more discarded rows than rows.
  const auto input = saved.find("profile_input 1 0");
  REQUIRE(input != std::string::npos);
  saved.replace(input, std::string("profile_input 1 0").size(), "profile_input 1 2");
  metrics::Store restored;
  std::string error;
  metrics::Store::LoadReport report;
  REQUIRE(restored.load(saved, error, &report));
  CHECK(report.rejected_by_record["package"] == 1);
  CHECK(report.rejected_by_record["device_counters"] == 1);
  const auto& r = restored.device("s");
  CHECK_FALSE(gfx(r.packages.at("com.example.u")).has_hwui_profile);
  CHECK(gfx(r).input.profile_rows == 0);
}
