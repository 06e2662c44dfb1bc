#include "app/daemon/daemon_options.h"

namespace jank::app {

void apply_overrides(const DaemonOptions& options, config::Config& config) {
  if (!options.adb_override.empty()) config.adb_servers = options.adb_override;
  if (!options.listen_override.empty()) config.listen_address = options.listen_override;
  if (!options.state_dir_override.empty()) config.state_dir = options.state_dir_override;
  if (!options.log_level_override.empty()) config.log_level = options.log_level_override;
  if (!options.per_frame_override.empty()) config.per_frame_mode = options.per_frame_override;
}

}  // namespace jank::app
