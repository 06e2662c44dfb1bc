#include <catch2/catch.hpp>

#include <string>

#include "parsers/input_kind.h"
#include "tests/support/names.h"

using jank::parsers::detect_input_kind;
using jank::test::input_kind_name;
using jank::parsers::InputKind;

TEST_CASE("input_kind: names", "[input_kind]") {
  CHECK(input_kind_name(InputKind::logcat) == "logcat");
  CHECK(input_kind_name(InputKind::gfxinfo) == "gfxinfo");
  CHECK(input_kind_name(InputKind::sf_latency) == "sf_latency");
  CHECK(input_kind_name(InputKind::sf_layer_list) == "sf_layer_list");
  CHECK(input_kind_name(InputKind::power_state) == "power_state");
  CHECK(input_kind_name(InputKind::thermal) == "thermal");
}

TEST_CASE("input_kind: gfxinfo markers", "[input_kind]") {
  CHECK(detect_input_kind("Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 1\n") ==
        InputKind::gfxinfo);
  CHECK(detect_input_kind("  ** Graphics info for pid 1 [a] **\n") == InputKind::gfxinfo);
  CHECK(detect_input_kind("---PROFILEDATA---\nFlags,IntendedVsync,\n0,1,\n") == InputKind::gfxinfo);
  CHECK(detect_input_kind("Window:\nStats since: 17271434783ns\nTotal frames rendered: 0\n") ==
        InputKind::gfxinfo);
  // A BOM left in front does not hide the banner.
  CHECK(detect_input_kind("\xEF\xBB\xBF" "Applications Graphics Acceleration Info:\r\n") ==
        InputKind::gfxinfo);
}

TEST_CASE("input_kind: SurfaceFlinger --latency", "[input_kind]") {
  CHECK(detect_input_kind("16666667\r\n") == InputKind::sf_latency);
  CHECK(detect_input_kind("16666667\n0\t0\t0\n1\t2\t3\n") == InputKind::sf_latency);
  CHECK(detect_input_kind("C:\\Users\\me>adb shell dumpsys SurfaceFlinger --latency x\n"
                          "16666667\n10 20 30\n") == InputKind::sf_latency);
}

TEST_CASE("input_kind: several --latency polls in a row", "[input_kind]") {
  const std::string poll = "16666667\n0\t0\t0\n10\t20\t30\n\n";
  CHECK(detect_input_kind(poll + poll + poll) == InputKind::sf_latency);
  CHECK(detect_input_kind("$ adb shell dumpsys SurfaceFlinger --latency 'a/a.B#3'\n" + poll +
                          "$ adb shell dumpsys SurfaceFlinger --latency 'a/a.B#3'\n" + poll) == InputKind::sf_latency);
  // The head of a long capture cut inside a row is judged on its whole lines.
  CHECK(detect_input_kind(poll + poll + "10\t2") == InputKind::sf_latency);
  // Anything else between polls makes it another input.
  CHECK(detect_input_kind(poll + "some text\n" + poll) == InputKind::logcat);
}

TEST_CASE("input_kind: SurfaceFlinger --list", "[input_kind]") {
  CHECK(detect_input_kind("Display 0 name=\"Built-in Screen\"#2\nTask=5#40\ncom.a/com.a.Main#43\nStatusBar#75\n") ==
        InputKind::sf_layer_list);
  CHECK(detect_input_kind("com.a/com.a.Main#0\nSurfaceView - com.a/com.a.Main#0\n") == InputKind::sf_layer_list);
  CHECK(detect_input_kind("RequestedLayerState{com.a/com.a.Main#43 parentId=42}\n"
                          "RequestedLayerState{StatusBar#75 parentId=2}\n") == InputKind::sf_layer_list);
  CHECK(detect_input_kind("$ adb shell dumpsys SurfaceFlinger --list\ncom.a/com.a.Main#0\n") ==
        InputKind::sf_layer_list);
  // A line without the unique suffix is no layer list.
  CHECK(detect_input_kind("com.a/com.a.Main#0\nhello\n") == InputKind::logcat);
}

TEST_CASE("input_kind: dumpsys power", "[input_kind]") {
  CHECK(detect_input_kind("  mWakefulness=Awake\nDisplay Power: state=ON\n") == InputKind::power_state);
  CHECK(detect_input_kind("POWER MANAGER (dumpsys power)\n\nPower Manager State:\n  mDirty=0x0\n") ==
        InputKind::power_state);
  CHECK(detect_input_kind("Display Power: state=OFF\r\n") == InputKind::power_state);
  // A logcat message with the key inside is logcat.
  CHECK(detect_input_kind("01-02 03:04:05.678  1  1 I tag: mWakefulness=Awake\n") == InputKind::logcat);
}

TEST_CASE("input_kind: dumpsys thermalservice", "[input_kind][thermal]") {
  CHECK(detect_input_kind("IsStatusOverride: false\nThermalEventListeners:\n\tcallbacks: 1\n") == InputKind::thermal);
  CHECK(detect_input_kind("Thermal Status: 2\r\nCached temperatures:\r\n") == InputKind::thermal);
  // An excerpt that kept only a list.
  CHECK(detect_input_kind("Current temperatures from HAL:\n\tTemperature{mValue=40.0, mType=3, mName=skin, "
                          "mStatus=1}\n") == InputKind::thermal);
  // A log line quoting the status is logcat.
  CHECK(detect_input_kind("01-02 03:04:05.678  1  1 I ThermalHelper: Thermal Status: 3\n") == InputKind::logcat);
}

TEST_CASE("input_kind: logcat and everything else", "[input_kind]") {
  CHECK(detect_input_kind("") == InputKind::logcat);
  CHECK(detect_input_kind("--------- beginning of main\n"
                          "01-02 03:04:05.678  1234  1234 I Choreographer: Skipped 31 frames!  "
                          "The application may be doing too much work on its main thread.\n") ==
        InputKind::logcat);
  // A lone number followed by anything but three-integer rows is not sf_latency.
  CHECK(detect_input_kind("16666667\n01-02 03:04:05.678  1  1 I tag: msg\n") == InputKind::logcat);
  CHECK(detect_input_kind("a\nb\nc\n16666667\n") == InputKind::logcat);
  // Logcat mentioning a stats key inside a message is still logcat.
  CHECK(detect_input_kind("01-02 03:04:05.678  1  1 I tag: Stats since: 5ns\n") == InputKind::logcat);
}

TEST_CASE("input_kind: SurfaceFlinger --frametimeline", "[input_kind][frametimeline]") {
  CHECK(input_kind_name(InputKind::frametimeline) == "frametimeline");
  CHECK(detect_input_kind("Number of display frames : 1\nDisplay Frame 0\nPrediction State : Valid\n") ==
        InputKind::frametimeline);
  // -jank prints no count line; the marker and the frame's keys suffice.
  CHECK(detect_input_kind("Display Frame 3 [*] \nPrediction State : Valid\n    Layer - TX - a/a.B#4\n") ==
        InputKind::frametimeline);
  // A logcat line that mentions a display frame is no dump.
  CHECK(detect_input_kind("11-24 10:00:00.000  1  1 I Tag: Display Frame 3 was slow\n") == InputKind::logcat);
}

TEST_CASE("input_kind: SurfaceFlinger --timestats -dump", "[input_kind][timestats]") {
  CHECK(input_kind_name(InputKind::timestats) == "timestats");
  CHECK(detect_input_kind("SurfaceFlinger TimeStats:\nLegacy stats are as follows:\nstatsStart = 1\n") ==
        InputKind::timestats);
  CHECK(detect_input_kind("11-24 10:00:00.000  1  1 I Tag: SurfaceFlinger TimeStats: on\n") == InputKind::logcat);
}
