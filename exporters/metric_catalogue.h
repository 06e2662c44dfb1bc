// Every metric family the exporter serves, declared once: name, type, unit,
// help and label names; those of the source modules are declared by each
// module and listed here after the exporter's own. The text writer, the
// prometheus-cpp view of the same series and the documentation test all read
// it from here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "metrics/series.h"

namespace jank::exporters {

using metrics::FamilySpec;
using metrics::FamilyType;
using metrics::family_type_name;

// One enumerator per family, in catalogue order.
enum class Family : std::uint16_t {
  // Devices followed by the daemon.
  android_device_up,
  jank_exporter_device_state,
  jank_exporter_device_state_reason,
  jank_exporter_device_command_deadline_seconds,
  android_device_info,
  android_choreographer_skip_threshold_frames,
  jank_exporter_device_sessions_total,
  jank_exporter_logcat_streams_total,
  jank_exporter_logcat_resume_gaps_total,
  jank_exporter_logcat_lost_lines_total,
  jank_exporter_device_reboots_total,
  jank_exporter_logd_restarts_total,
  jank_exporter_logcat_unconfirmed_resumes_total,
  jank_exporter_logcat_unheld_lines_total,
  android_device_clock_offset_seconds,
  jank_exporter_device_clock_steps_total,
  jank_exporter_gfxinfo_polls_total,
  jank_exporter_package_polls_total,
  jank_exporter_surfaceflinger_polls_total,
  jank_exporter_device_commands_total,
  jank_exporter_device_command_runs_total,
  jank_exporter_device_command_seconds_total,
  jank_exporter_device_command_output_bytes_total,
  jank_exporter_device_command_timed_total,
  jank_exporter_device_command_device_seconds_total,
  jank_exporter_device_command_untimed_total,
  jank_exporter_device_per_frame_polling,
  jank_exporter_device_budget_waits_total,
  jank_exporter_device_budget_wait_seconds_total,
  jank_exporter_ingest_lag_seconds,
  jank_exporter_last_line_timestamp_seconds,
  jank_exporter_device_series,
  jank_exporter_device_series_dropped,
  // The daemon itself.
  jank_exporter_build_info,
  jank_exporter_adb_server_up,
  jank_exporter_adb_errors_total,
  jank_exporter_adb_device_list_lines_total,
  jank_exporter_adb_device_list_polls_total,
  jank_exporter_checkpoints_total,
  jank_exporter_state_load_failures_total,
  jank_exporter_state_rejected_records_total,
  jank_exporter_config_reloads_total,
  jank_exporter_internal_errors_total,
  // The trace directory (docs/traces.md).
  jank_exporter_traces_dropped_total,
  jank_exporter_traces_stored,
  jank_exporter_traces_stored_bytes,
  jank_exporter_trace_info,
  // Runs (docs/runs.md): the open ones only, so that run ids never pile up as series.
  jank_exporter_run_open,
  android_run_frames,
  android_run_janky_frames,
  android_run_skipped_frames,
  jank_exporter_runs_started_total,
  jank_exporter_runs_finished_total,
  jank_exporter_runs_dropped_total,
  // Every device, replay included.
  jank_exporter_logcat_lines_total,
  jank_exporter_logcat_discarded_lines_total,
  jank_exporter_logcat_duplicate_lines_total,
  jank_exporter_package_overflow_events_total,
  android_device_activity_state,
};
inline constexpr std::size_t kFamilyCount = static_cast<std::size_t>(Family::android_device_activity_state) + 1;

const FamilySpec& family(Family id);
// Every family the exporter serves: the ones above in enumerator order, then
// each registered source module's (metrics/source.h).
std::span<const FamilySpec> catalogue();
// A declared family's place in catalogue().
std::size_t family_index(const FamilySpec& spec);

}  // namespace jank::exporters
