// `jank_exporter replay` of recorded device dumps (every input kind but
// logcat): each parsed and recorded into the store as the daemon's pollers
// record their answers.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "metrics/store.h"
#include "parsers/input_kind.h"

namespace jank::app {

// Records `text`, an input of `kind` named `name`. `layer_name` is the
// --latency layer, carried from one input to the next (a command line in a
// capture names it; --layer gives the first). Notices go to `err`. Returns an
// error message or "".
std::string record_dump(parsers::InputKind kind, const std::string& name, std::string_view text,
                        metrics::Store& store, metrics::DeviceMetrics& device, std::string& layer_name,
                        std::ostream& err);

}  // namespace jank::app
