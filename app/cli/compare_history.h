// `jank_exporter compare --history`: the build where each metric stepped
// over a series of builds (docs/runs.md, "A series of builds").
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "metrics/run_compare.h"

namespace jank::app {

// Each source one build, oldest first (a results file, a directory of them
// or http://HOST:PORT), of `package` when given. kExitRegression when a
// metric stepped the worse way, kExitNoInput when a build has no finished
// run or no metric can be judged, else kExitOk.
int history(const std::vector<std::string>& sources, const std::string& package,
            const metrics::CompareOptions& options, bool json, double timeout_seconds, std::ostream& out,
            std::ostream& err);

}  // namespace jank::app
