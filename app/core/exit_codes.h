// Every exit status of jank_exporter, the daemon and its commands, named once
// (docs/architecture.md, "Exit statuses"). The sysexits.h values where one
// fits, which operators' tooling already knows; a command's own outcomes
// (a regression, a report that could not be made) keep their small numbers.
#pragma once

namespace jank::app {

inline constexpr int kExitOk = 0;  // EX_OK: done, or --help of any command
// The daemon could not start (its state directory, its listen address);
// `run`: the exporter refused, could not be reached, or a wait timed out.
inline constexpr int kExitFailure = 1;
inline constexpr int kExitRegression = 1;    // `compare`: at least one metric regressed
inline constexpr int kExitReportFailed = 2;  // `report`: an input is unreadable or wrong, or the page unwritable
inline constexpr int kExitUnequalWork = 3;   // `compare`: the builds' runs did not do the same work
inline constexpr int kExitBudgetBreached = 4;  // `check`: a device's results broke a limit of its tier
inline constexpr int kExitInsufficientPower = 5;  // `compare --calibration`: the runs could not have seen the change
inline constexpr int kExitObserverCost = 6;     // `observer-test`: polling measurably made the app's frames janky
inline constexpr int kExitUsage = 64;        // EX_USAGE: a command line error, whichever the command
inline constexpr int kExitNoInput = 66;      // EX_NOINPUT: `replay`, `compare`, `check`: an input cannot be read or used
// EX_UNAVAILABLE: `observer-test`: the device cannot be measured (unreachable, a
// release without the counters, too few usable phases)
inline constexpr int kExitUnavailable = 69;
inline constexpr int kExitCantCreate = 73;   // EX_CANTCREAT: `check` or `compare --junit`: the file cannot be written
inline constexpr int kExitConfig = 78;       // EX_CONFIG: the configuration file (or `check`'s budgets file) is not valid

}  // namespace jank::app
