#include "app/cli/report.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <random>

#include "app/cli/cli_parse.h"
#include "app/cli/results_file.h"
#include "config/budgets.h"
#include "exporters/run_report.h"
#include "parsers/utf8.h"

namespace jank::app {
namespace {

struct Options {
  std::string output;  // "" = standard output
  std::string title;
  std::vector<std::string> runs, baseline, candidate;
  std::string verdict;
  std::string calibration;  // --calibration: compare --calibrate --json, shown as a table
  std::string budgets;  // --budgets: the limits per device tier, shown with their breaches
};

constexpr const char* kUsage =
    "Usage: jank_exporter report [-o FILE] [--title TEXT] [INPUT...]\n"
    "                            [--baseline FILE... --candidate FILE... [--verdict FILE]]\n"
    "                            [--calibration FILE] [--budgets FILE]\n"
    "\n"
    "Writes one self-contained HTML page (no network: CSS, JS, data and charts\n"
    "inline) from run results files (docs/runs.md, format 1): each holds one run\n"
    "(`jank_exporter run show ID --json`, GET /api/runs/ID) or a list\n"
    "{\"format\": 1, \"runs\": [...]}. The page has the table of runs (one row per\n"
    "run and device) and, per device, SM and FPS over time, skipped and janky\n"
    "frames per step, jank causes and the frame-time distribution when the\n"
    "results carry them (run lists carry no series or histograms).\n";

constexpr const char* kFooter =
    "INPUT and FILE may be - for standard input (once). Exit status: 0 written,\n"
    "64 bad usage, 2 an input or output error (named by file and field, e.g.\n"
    "\"a.json: devices[0].metrics.sm: expected a number, found a string\"); nothing\n"
    "is written then.";

// --baseline and --candidate take the arguments after them up to the next
// option, so that a shell glob fits.
void add_options(CLI::App& app, Options& o) {
  app.add_option("INPUT", o.runs, "a results file, or - for standard input")->option_text("...");
  app.add_option("-o,--output", o.output, "write the page to FILE (default: standard output)")->option_text("FILE");
  app.add_option("--title", o.title, "the page's title (default: Jank report)")->option_text("TEXT");
  app.add_option("--baseline", o.baseline, "runs of the baseline build (the files up to the next option)")
      ->option_text("FILE...")
      ->expected(1, CLI::detail::expected_max_vector_size);
  app.add_option("--candidate", o.candidate,
                 "runs of the candidate build: the page shows each metric's\n"
                 "median per build and the change, side by side")
      ->option_text("FILE...")
      ->expected(1, CLI::detail::expected_max_vector_size);
  app.add_option("--verdict", o.verdict,
                 "the JSON result of `jank_exporter compare`: its verdict\n"
                 "is shown, and its medians instead of the page's own")
      ->option_text("FILE");
  app.add_option("--calibration", o.calibration,
                 "the JSON result of `jank_exporter compare --calibrate`:\n"
                 "the gate's false alarms and the smallest regression it sees")
      ->option_text("FILE");
  app.add_option("--budgets", o.budgets,
                 "a budgets file (as `jank_exporter check` reads): each\n"
                 "device's limits and breaches are shown")
      ->option_text("FILE");
}

// Returns an error message, or "" when the options make a report.
std::string check(const CLI::App& app, const Options& o) {
  auto empty = [&](const char* name) {
    const CLI::Option* opt = app.get_option(name);
    return opt->count() > 0 && opt->results().back().empty();
  };
  if (empty("--output")) return "-o needs a file name";
  if (empty("--title")) return "--title needs a text";
  if (empty("--verdict")) return "--verdict needs the JSON result of `jank_exporter compare`";
  if (empty("--calibration")) return "--calibration needs the JSON result of `jank_exporter compare --calibrate`";
  if (o.runs.empty() && o.baseline.empty() && o.candidate.empty()) return "no input: give one or more results files";
  if (o.baseline.empty() != o.candidate.empty()) return "--baseline and --candidate go together, each with files";
  return "";
}

std::string read_all(const std::vector<std::string>& names, std::FILE* stdin_file,
                     std::vector<exporters::results::InputFile>& files) {
  for (const auto& name : names) {
    exporters::results::InputFile f;
    f.name = name == "-" ? "standard input" : name;
    if (std::string e = name == "-" ? read_results_stream(stdin_file, f.name, f.text)
                                    : read_results_file(name, f.name, f.text);
        !e.empty())
      return e;
    files.push_back(std::move(f));
  }
  return "";
}

// A temporary file beside `path`, created by this call alone: a name no one
// can guess, O_EXCL and O_NOFOLLOW, so a file or symlink planted there is
// never opened. Its mode is 0666 less the umask, as any new file's. -1 on failure.
int create_temporary(const std::string& path, std::string& tmp) {
  const std::filesystem::path target(path);
  std::random_device random;
  for (int attempt = 0; attempt < 16; ++attempt) {
    char suffix[24];
    std::snprintf(suffix, sizeof suffix, ".%08x%08x.tmp", random(), random());
    tmp = (target.parent_path() / ("." + target.filename().string() + suffix)).string();
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

bool write_all(int fd, const std::string& data) {
  for (std::size_t done = 0; done < data.size();) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Writes beside the target and renames over it: a reader (a CI artifact
// upload, a browser) never sees half a report, and a failure leaves the old
// one. rename() replaces the name itself: a symlink at `path` is replaced by
// the report, never followed.
std::string write_output(const std::string& path, const std::string& html) {
  std::string tmp;
  const int fd = create_temporary(path, tmp);
  if (fd < 0) return "cannot create a temporary file beside " + path + ": " + std::strerror(errno);
  const bool written = write_all(fd, html) && ::fsync(fd) == 0;
  const int saved = errno;
  if (::close(fd) != 0 || !written) {
    const int why = written ? errno : saved;
    ::unlink(tmp.c_str());
    return "cannot write " + tmp + ": " + std::strerror(why);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int why = errno;
    ::unlink(tmp.c_str());
    return "cannot rename " + tmp + " to " + path + ": " + std::strerror(why);
  }
  // The rename itself lasts once the directory is on disk too.
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return "";
}

}  // namespace

int run_report(const std::vector<std::string>& args, std::FILE* stdin_file, std::ostream& out, std::ostream& err) {
  const auto app = make_command("jank_exporter report", kUsage, kFooter);
  Options o;
  add_options(*app, o);
  if (auto status = parse_command(*app, args, out, err)) return *status;
  if (std::string e = check(*app, o); !e.empty()) return usage_error(*app, err, e);
  exporters::RunReportRequest request;
  request.title = o.title;
  std::string e = read_all(o.runs, stdin_file, request.runs);
  if (e.empty()) e = read_all(o.baseline, stdin_file, request.baseline);
  if (e.empty()) e = read_all(o.candidate, stdin_file, request.candidate);
  if (e.empty() && !o.verdict.empty()) {
    std::vector<exporters::results::InputFile> verdict;
    e = read_all({o.verdict}, stdin_file, verdict);
    if (e.empty()) request.verdict = std::move(verdict.front());
  }
  if (e.empty() && !o.calibration.empty()) {
    std::vector<exporters::results::InputFile> calibration;
    e = read_all({o.calibration}, stdin_file, calibration);
    if (e.empty()) request.calibration = std::move(calibration.front());
  }
  if (e.empty() && !o.budgets.empty()) {
    auto loaded = config::load_budgets_file(o.budgets);
    if (!loaded.ok()) e = loaded.errors.front().to_string();
    request.budgets = std::move(loaded.budgets);
    request.budgets_file = o.budgets;
  }
  if (!e.empty()) {
    err << "jank_exporter report: " << parsers::terminal_text(e) << "\n";
    return kExitReportFailed;
  }
  const exporters::RunReportResult result = exporters::render_run_report(request);
  if (!result.ok()) {
    err << "jank_exporter report: " << parsers::terminal_text(result.error) << "\n";
    return kExitReportFailed;
  }
  if (o.output.empty()) {
    out << result.html;
    out.flush();
    if (!out) {
      err << "jank_exporter report: cannot write standard output\n";
      return kExitReportFailed;
    }
    return kExitOk;
  }
  if (std::string w = write_output(o.output, result.html); !w.empty()) {
    err << "jank_exporter report: " << parsers::terminal_text(w) << "\n";
    return kExitReportFailed;
  }
  return kExitOk;
}

}  // namespace jank::app
