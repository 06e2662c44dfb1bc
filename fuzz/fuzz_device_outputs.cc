// The device-output parsers (display, SurfaceFlinger, its layer list, ps,
// getprop, focus, package, power) on arbitrary text, raw and after
// UTF-16LE/BOM decoding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "parsers/display_info.h"
#include "parsers/foreground_app.h"
#include "parsers/package_info.h"
#include "parsers/power_state.h"
#include "parsers/process_list.h"
#include "parsers/properties.h"
#include "parsers/sf_layers.h"
#include "parsers/text_input.h"

namespace {

void run_all(std::string_view text) {
  using namespace jank::parsers;
  (void)parse_display_info(text);
  (void)parse_surfaceflinger_info(text);
  (void)parse_process_list(text);
  (void)device_facts(parse_properties(text));
  (void)parse_foreground_app(text);
  (void)parse_package_info(text);
  (void)parse_package_info(text, "com.example.app");
  (void)parse_power_state(text).screen();
  for (const auto& name : parse_sf_layer_list(text).names) (void)classify_layer(name);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  run_all(bytes);
  const std::string decoded = jank::parsers::decode_to_utf8(bytes);
  if (decoded != bytes) run_all(decoded);
  return 0;
}
