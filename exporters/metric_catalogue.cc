#include "exporters/metric_catalogue.h"

#include <array>
#include <cstddef>
#include <functional>
#include <map>
#include <vector>

#include "metrics/source.h"

namespace jank::exporters {
namespace {

using F = Family;
constexpr metrics::FamilyType counter = metrics::FamilyType::counter;
constexpr metrics::FamilyType gauge = metrics::FamilyType::gauge;
constexpr metrics::FamilyType histogram = metrics::FamilyType::histogram;

// The families of the exporter itself and of the sources not yet in modules
// of their own; each source module declares its own (metrics/source.h).
struct CatalogueEntry {
  Family id;
  metrics::FamilySpec spec;
};

constexpr std::array<CatalogueEntry, kFamilyCount> kCatalogue = {{
    {F::android_device_up, {"android_device_up", gauge, "",
     "1 while the device's log is followed and counted (jank_exporter_device_state{state=\"following\"}).", "serial"}},
    {F::jank_exporter_device_state, {"jank_exporter_device_state", gauge, "",
     "What the exporter is doing with the device: 1 for the current state, 0 for the others.", "serial,state"}},
    {F::jank_exporter_device_state_reason, {"jank_exporter_device_state_reason", gauge, "",
     "1 while the device is stalled or unsupported, labelled with why: the failure and what the device said.",
     "serial,reason"}},
    {F::jank_exporter_device_command_deadline_seconds, {"jank_exporter_device_command_deadline_seconds", gauge,
     "seconds", "Deadline device commands get now: the configured one, longer while the device answers slowly.",
     "serial"}},
    {F::android_device_info, {"android_device_info", gauge, "", "Device facts from getprop; the value is always 1.",
     "serial,fingerprint,manufacturer,model,release,sdk"}},
    {F::android_choreographer_skip_threshold_frames, {"android_choreographer_skip_threshold_frames", gauge, "frames",
     "Smallest N that Choreographer logs for the device's running apps, as far as the exporter knows.", "serial"}},
    {F::jank_exporter_device_sessions_total, {"jank_exporter_device_sessions_total", counter, "",
     "Sessions started with the device (first one and reconnects).", "serial"}},
    {F::jank_exporter_logcat_streams_total, {"jank_exporter_logcat_streams_total", counter, "",
     "Logcat streams opened on the device.", "serial"}},
    {F::jank_exporter_logcat_resume_gaps_total, {"jank_exporter_logcat_resume_gaps_total", counter, "",
     "Log streams that found lines gone from the device's ring before they were read.", "serial"}},
    {F::jank_exporter_logcat_lost_lines_total, {"jank_exporter_logcat_lost_lines_total", counter, "lines",
     "Lines of the followed log buffers that left the device's ring (wrap, logcat -c) before they were read.",
     "serial"}},
    {F::jank_exporter_device_reboots_total, {"jank_exporter_device_reboots_total", counter, "",
     "Reboots seen (a new boot id); lines written between the last read and the reboot are unknown.", "serial"}},
    {F::jank_exporter_logd_restarts_total, {"jank_exporter_logd_restarts_total", counter, "",
     "logd restarts seen without a reboot; lines written between the last read and the restart are unknown.",
     "serial"}},
    {F::jank_exporter_logcat_unconfirmed_resumes_total, {"jank_exporter_logcat_unconfirmed_resumes_total", counter, "",
     "Resumes whose last counted line was not where logd's counts put it: the ring was counted as a new log, or "
     "(a ring that printed less than its statistics) placed by the counts alone.",
     "serial"}},
    {F::jank_exporter_logcat_unheld_lines_total, {"jank_exporter_logcat_unheld_lines_total", counter, "lines",
     "Lines of the followed log buffers that logd counted but never held as entries of their own (a log.tag "
     "property refusing them in logd, identical lines squashed into a chatty summary); not lost.",
     "serial"}},
    {F::android_device_clock_offset_seconds, {"android_device_clock_offset_seconds", gauge, "seconds",
     "Device wall clock minus host wall clock, learned from log lines as they arrive (within the read latency).",
     "serial"}},
    {F::jank_exporter_device_clock_steps_total, {"jank_exporter_device_clock_steps_total", counter, "",
     "Device clock steps seen in the log (a stamp after its arrival, or well before the line before it).", "serial"}},
    {F::jank_exporter_gfxinfo_polls_total, {"jank_exporter_gfxinfo_polls_total", counter, "",
     "dumpsys gfxinfo polls, by result.", "serial,result"}},
    {F::jank_exporter_package_polls_total, {"jank_exporter_package_polls_total", counter, "",
     "dumpsys package polls (app versions), by result (not_found: no such package, unrecognised: no version block).",
     "serial,result"}},
    {F::jank_exporter_surfaceflinger_polls_total, {"jank_exporter_surfaceflinger_polls_total", counter, "",
     "dumpsys SurfaceFlinger (--list, --latency, --frametimeline) and dumpsys power commands, by command and result.",
     "serial,command,result"}},
    {F::jank_exporter_device_commands_total, {"jank_exporter_device_commands_total", counter, "",
     "Shell commands run on the device, by result.", "serial,result"}},
    {F::jank_exporter_device_command_runs_total, {"jank_exporter_device_command_runs_total", counter, "",
     "The exporter's own shell commands on the device, by kind (resources, gfxinfo, sf_latency, power, ...).",
     "serial,command"}},
    {F::jank_exporter_device_command_seconds_total, {"jank_exporter_device_command_seconds_total", counter,
     "seconds", "Host time the exporter's commands took, from sending each to its whole answer, by kind.",
     "serial,command"}},
    {F::jank_exporter_device_command_output_bytes_total, {"jank_exporter_device_command_output_bytes_total",
     counter, "bytes", "Bytes the exporter's commands brought back from the device (stdout and stderr), by kind.",
     "serial,command"}},
    {F::jank_exporter_device_command_timed_total, {"jank_exporter_device_command_timed_total", counter, "",
     "The exporter's commands the device's own shell timed (shell protocol v2: mksh $EPOCHREALTIME stamps), by kind.",
     "serial,command"}},
    {F::jank_exporter_device_command_device_seconds_total, {"jank_exporter_device_command_device_seconds_total",
     counter, "seconds", "Time the timed commands took on the device by its shell's clock, by kind: their cost "
     "to the phone without the transport.", "serial,command"}},
    {F::jank_exporter_device_command_untimed_total, {"jank_exporter_device_command_untimed_total", counter, "",
     "Answered shell v2 commands without a device time, by reason (unstamped: a stamp missing or unreadable; "
     "implausible: the device's clock moved during the command).", "serial,reason"}},
    {F::jank_exporter_device_per_frame_polling, {"jank_exporter_device_per_frame_polling", gauge, "",
     "1 while every watched app of the device is polled frame by frame (per_frame.mode always, a run, a spike); "
     "0 while only per_frame.apps are.", "serial"}},
    {F::jank_exporter_device_budget_waits_total, {"jank_exporter_device_budget_waits_total", counter, "",
     "Commands that waited for the device's command budget (budget.max_commands_per_second).", "serial"}},
    {F::jank_exporter_device_budget_wait_seconds_total, {"jank_exporter_device_budget_wait_seconds_total", counter,
     "seconds", "Time those commands waited, together.", "serial"}},
    {F::jank_exporter_ingest_lag_seconds, {"jank_exporter_ingest_lag_seconds", gauge, "seconds",
     "Host time at receipt minus the host-time place of the newest log line read (how far behind the reader is).",
     "serial"}},
    {F::jank_exporter_last_line_timestamp_seconds, {"jank_exporter_last_line_timestamp_seconds", gauge, "seconds",
     "Time of the newest log line read, on the device's clock.", "serial"}},
    {F::jank_exporter_device_series, {"jank_exporter_device_series", gauge, "",
     "Series the device exported in this scrape (after its series budget), these two not counted.", "serial"}},
    {F::jank_exporter_device_series_dropped, {"jank_exporter_device_series_dropped", gauge, "",
     "Series of the device withheld in this scrape because it was over series.max_per_device: its detailed "
     "series, then whole apps.", "serial"}},

    {F::jank_exporter_build_info, {"jank_exporter_build_info", gauge, "",
     "Version of the running exporter; the value is always 1.", "version"}},
    {F::jank_exporter_adb_server_up, {"jank_exporter_adb_server_up", gauge, "",
     "1 while the adb server answers and its device list is followed.", "server"}},
    {F::jank_exporter_adb_errors_total, {"jank_exporter_adb_errors_total", counter, "", "Failed adb requests, by kind.",
     "server,kind"}},
    {F::jank_exporter_adb_device_list_lines_total, {"jank_exporter_adb_device_list_lines_total", counter, "lines",
     "Lines of the adb server's device lists received, by outcome (received = parsed + discarded).",
     "server,result"}},
    {F::jank_exporter_adb_device_list_polls_total, {"jank_exporter_adb_device_list_polls_total", counter, "",
     "Device list polls of the adb server, by result (polls = applied + discarded + failed).", "server,result"}},
    {F::jank_exporter_checkpoints_total, {"jank_exporter_checkpoints_total", counter, "", "State checkpoints, by result.",
     "result"}},
    {F::jank_exporter_state_load_failures_total, {"jank_exporter_state_load_failures_total", counter, "",
     "State files that could not be read at start-up (set aside; counting restarted).", ""}},
    {F::jank_exporter_state_rejected_records_total, {"jank_exporter_state_rejected_records_total", counter, "",
     "Records of the state file dropped at start for holding values that cannot be true, by record kind.", "record"}},
    {F::jank_exporter_config_reloads_total, {"jank_exporter_config_reloads_total", counter, "",
     "Configuration reloads (SIGHUP), by result.", "result"}},
    {F::jank_exporter_internal_errors_total, {"jank_exporter_internal_errors_total", counter, "",
     "Errors caught at a thread's barrier and logged, the daemon carrying on: an HTTP request answered 500, an io "
     "task or a trace save abandoned. By thread (http, io, trace_writer). Any is a bug to report.",
     "thread"}},
    {F::jank_exporter_traces_dropped_total, {"jank_exporter_traces_dropped_total", counter, "",
     "Traces removed from the trace directory by retention, by the limit (count, bytes, age).", "reason"}},
    {F::jank_exporter_traces_stored, {"jank_exporter_traces_stored", gauge, "", "Traces in the trace directory.", ""}},
    {F::jank_exporter_traces_stored_bytes, {"jank_exporter_traces_stored_bytes", gauge, "bytes",
     "Bytes of the traces in the trace directory.", ""}},
    {F::jank_exporter_trace_info, {"jank_exporter_trace_info", gauge, "",
     "The newest stored traces (the dashboard's table); the value is the trigger time in Unix seconds.",
     "serial,package,rule,trace_id"}},
    {F::jank_exporter_run_open, {"jank_exporter_run_open", gauge, "",
     "1 per device of each open run (starting, running or stopping); gone once the run finished.",
     "run,name,package,serial,state"}},
    {F::android_run_frames, {"android_run_frames", gauge, "frames",
     "HWUI frames rendered by the run's app on the device since the run's baseline, while the run is open.",
     "run,serial"}},
    {F::android_run_janky_frames, {"android_run_janky_frames", gauge, "frames",
     "Janky HWUI frames of the run's app on the device since the run's baseline, while the run is open.",
     "run,serial"}},
    {F::android_run_skipped_frames, {"android_run_skipped_frames", gauge, "frames",
     "Frames Choreographer skipped in the run's app on the device since the run's baseline, while the run is open.",
     "run,serial"}},
    {F::jank_exporter_runs_started_total, {"jank_exporter_runs_started_total", counter, "", "Runs started.", ""}},
    {F::jank_exporter_runs_finished_total, {"jank_exporter_runs_finished_total", counter, "",
     "Runs that took their final counts.", ""}},
    {F::jank_exporter_runs_dropped_total, {"jank_exporter_runs_dropped_total", counter, "",
     "Finished runs dropped, by reason (count: beyond runs.max_kept; age: older than runs.max_age_days).", "reason"}},

    {F::jank_exporter_logcat_lines_total, {"jank_exporter_logcat_lines_total", counter, "lines",
     "Logcat lines received, by outcome (received = parsed + unmatched + discarded).", "serial,result"}},
    {F::jank_exporter_logcat_discarded_lines_total, {"jank_exporter_logcat_discarded_lines_total", counter, "lines",
     "Logcat lines discarded, by reason.", "serial,reason"}},
    {F::jank_exporter_logcat_duplicate_lines_total, {"jank_exporter_logcat_duplicate_lines_total", counter, "lines",
     "Lines dropped after a reconnect or restart because they had been counted already.", "serial"}},
    {F::jank_exporter_package_overflow_events_total, {"jank_exporter_package_overflow_events_total", counter, "",
     "Events counted under package=\"_other_\" because the device reached its package cap.", "serial"}},

    {F::android_device_activity_state, {"android_device_activity_state", gauge, "",
     "active (a followed layer presented in its newest poll), idle (the screen is on, nothing presented) or off "
     "(the panel is off or dozing): 1 for the current one.",
     "serial,state"}},
}};

// The enumerators index the table: a family out of place is a build error.
constexpr bool in_order() {
  for (std::size_t i = 0; i < kCatalogue.size(); ++i) {
    if (static_cast<std::size_t>(kCatalogue[i].id) != i) return false;
  }
  return true;
}
static_assert(in_order(), "kCatalogue must list the families in the order of enum Family");

// The declarations alone, indexed by enumerator: a spec's place in it is its index.
constexpr auto kSpecs = [] {
  std::array<metrics::FamilySpec, kFamilyCount> specs{};
  for (std::size_t i = 0; i < kFamilyCount; ++i) specs[i] = kCatalogue[i].spec;
  return specs;
}();

}  // namespace

const metrics::FamilySpec& family(Family id) { return kSpecs[static_cast<std::size_t>(id)]; }

namespace {

// Every family: the table above, then each registered source's, in order.
struct AllFamilies {
  std::vector<metrics::FamilySpec> specs;
  std::vector<std::span<const metrics::FamilySpec>> tables;  // kSpecs, then the source modules' own arrays
  std::vector<std::size_t> offsets;                          // each table's first index in `specs`
  std::map<std::string_view, std::size_t, std::less<>> by_name;
};

const AllFamilies& all_families() {
  static const AllFamilies all = [] {
    AllFamilies a;
    a.tables.push_back(kSpecs);
    a.offsets.push_back(0);
    a.specs.assign(kSpecs.begin(), kSpecs.end());
    for (const auto* source : metrics::device_sources()) {
      a.tables.push_back(source->families());
      a.offsets.push_back(a.specs.size());
      a.specs.insert(a.specs.end(), source->families().begin(), source->families().end());
    }
    for (std::size_t i = 0; i < a.specs.size(); ++i) a.by_name.emplace(a.specs[i].name, i);
    return a;
  }();
  return all;
}

}  // namespace

std::span<const metrics::FamilySpec> catalogue() { return all_families().specs; }

std::size_t family_index(const metrics::FamilySpec& spec) {
  const std::less<const metrics::FamilySpec*> before;
  const auto within = [&](std::span<const metrics::FamilySpec> table) {
    return !before(&spec, table.data()) && before(&spec, table.data() + table.size());
  };
  const auto& all = all_families();
  for (std::size_t t = 0; t < all.tables.size(); ++t) {
    if (within(all.tables[t])) return all.offsets[t] + static_cast<std::size_t>(&spec - all.tables[t].data());
  }
  // A copy of a declaration rather than the declaration itself: found by its name.
  const auto it = all.by_name.find(spec.name);
  return it == all.by_name.end() ? all.specs.size() : it->second;
}

}  // namespace jank::exporters
