#include "app/report.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>

#include "exporters/run_report.h"

namespace jank::app {
namespace {

// Results files are a few MiB at most (720 steps per device); this only
// keeps a wrong file (a capture, /dev/zero) from eating the host's memory.
constexpr std::size_t kMaxInputBytes = 512u << 20;

enum class Target { runs, baseline, candidate };

struct Options {
  std::string output;  // "" = standard output
  std::string title;
  std::vector<std::string> runs, baseline, candidate;
  std::string verdict;
  bool help = false;
};

// Returns an error message, or "" on success. A file list option takes the
// arguments after it up to the next option, so that a shell glob fits.
std::string parse_args(const std::vector<std::string>& args, Options& o) {
  Target target = Target::runs;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& v) -> bool {
      if (i + 1 >= args.size()) return false;
      v = args[++i];
      return !v.empty();
    };
    if (a == "-h" || a == "--help") {
      o.help = true;
    } else if (a == "-o" || a == "--output") {
      if (!value(o.output)) return a + " needs a file name";
    } else if (a == "--title") {
      if (!value(o.title)) return "--title needs a text";
    } else if (a == "--verdict") {
      if (!value(o.verdict)) return "--verdict needs the JSON result of `jank_exporter compare`";
    } else if (a == "--baseline") {
      target = Target::baseline;
    } else if (a == "--candidate") {
      target = Target::candidate;
    } else if (a == "--") {
      for (++i; i < args.size(); ++i) o.runs.push_back(args[i]);
    } else if (a == "-" || (!a.empty() && a[0] != '-')) {
      (target == Target::runs ? o.runs : target == Target::baseline ? o.baseline : o.candidate).push_back(a);
    } else {
      return "unknown option " + a;
    }
  }
  if (o.help) return "";
  if (o.runs.empty() && o.baseline.empty() && o.candidate.empty()) return "no input: give one or more results files";
  if (o.baseline.empty() != o.candidate.empty()) return "--baseline and --candidate go together, each with files";
  return "";
}

// Reads a whole file ("-": `stdin_file`) or returns an error.
std::string read_input(const std::string& name, std::FILE* stdin_file, std::string& text) {
  std::FILE* f = name == "-" ? stdin_file : std::fopen(name.c_str(), "rb");
  if (f == nullptr) return "cannot open " + name + ": " + std::strerror(errno);
  char buf[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) {
    text.append(buf, got);
    if (text.size() > kMaxInputBytes) break;
  }
  const bool failed = std::ferror(f) != 0;
  const int saved = errno;
  if (f != stdin_file) std::fclose(f);
  if (failed) return "cannot read " + name + ": " + std::strerror(saved);
  if (text.size() > kMaxInputBytes) return name + ": larger than " + std::to_string(kMaxInputBytes >> 20) + " MiB, not a results file";
  return "";
}

std::string read_all(const std::vector<std::string>& names, std::FILE* stdin_file,
                     std::vector<exporters::results::InputFile>& files) {
  for (const auto& name : names) {
    exporters::results::InputFile f;
    f.name = name == "-" ? "standard input" : name;
    if (std::string e = read_input(name, stdin_file, f.text); !e.empty()) return e;
    files.push_back(std::move(f));
  }
  return "";
}

// Writes beside the target and renames over it: a reader (a CI artifact
// upload, a browser) never sees half a report, and a failure leaves the old one.
std::string write_output(const std::string& path, const std::string& html) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return "cannot write " + tmp + ": " + std::strerror(errno);
  const bool written = std::fwrite(html.data(), 1, html.size(), f) == html.size();
  const int saved = errno;
  if (std::fclose(f) != 0 || !written) {
    std::remove(tmp.c_str());
    return "cannot write " + tmp + ": " + std::strerror(written ? errno : saved);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return "cannot rename " + tmp + " to " + path + ": " + ec.message();
  }
  return "";
}

}  // namespace

void print_report_help(std::ostream& out) {
  out << "Usage: jank_exporter report [-o FILE] [--title TEXT] [INPUT...]\n"
         "                            [--baseline FILE... --candidate FILE... [--verdict FILE]]\n"
         "\n"
         "Writes one self-contained HTML page (no network: CSS, JS, data and charts\n"
         "inline) from run results files (docs/runs.md, format 1): each holds one run\n"
         "(`jank_exporter run show ID --json`, GET /api/runs/ID) or a list\n"
         "{\"format\": 1, \"runs\": [...]}. The page has the table of runs (one row per\n"
         "run and device) and, per device, SM and FPS over time, skipped and janky\n"
         "frames per step, jank causes and the frame-time distribution when the\n"
         "results carry them (run lists carry no series or histograms).\n"
         "\n"
         "Options:\n"
         "  -o, --output FILE     write the page to FILE (default: standard output)\n"
         "  --title TEXT          the page's title (default: Jank report)\n"
         "  --baseline FILE...    runs of the baseline build (the files up to the next option)\n"
         "  --candidate FILE...   runs of the candidate build: the page shows each metric's\n"
         "                        median per build and the change, side by side\n"
         "  --verdict FILE        the JSON result of `jank_exporter compare`: its verdict\n"
         "                        is shown, and its medians instead of the page's own\n"
         "  -h, --help            this text\n"
         "\n"
         "INPUT and FILE may be - for standard input (once). Exit status: 0 written,\n"
         "2 usage or input error (named by file and field, e.g.\n"
         "\"a.json: devices[0].metrics.sm: expected a number, found a string\"); nothing\n"
         "is written then.\n";
}

int run_report(const std::vector<std::string>& args, std::FILE* stdin_file, std::ostream& out, std::ostream& err) {
  Options o;
  if (std::string e = parse_args(args, o); !e.empty()) {
    err << "jank_exporter report: " << e << "\n";
    print_report_help(err);
    return kExitReportFailed;
  }
  if (o.help) {
    print_report_help(out);
    return 0;
  }
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
  if (!e.empty()) {
    err << "jank_exporter report: " << e << "\n";
    return kExitReportFailed;
  }
  const exporters::RunReportResult result = exporters::render_run_report(request);
  if (!result.ok()) {
    err << "jank_exporter report: " << result.error << "\n";
    return kExitReportFailed;
  }
  if (o.output.empty()) {
    out << result.html;
    out.flush();
    if (!out) {
      err << "jank_exporter report: cannot write standard output\n";
      return kExitReportFailed;
    }
    return 0;
  }
  if (std::string w = write_output(o.output, result.html); !w.empty()) {
    err << "jank_exporter report: " << w << "\n";
    return kExitReportFailed;
  }
  return 0;
}

}  // namespace jank::app
