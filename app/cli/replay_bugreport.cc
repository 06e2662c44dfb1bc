#include "app/cli/replay_bugreport.h"

#include <zip.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <memory>
#include <vector>

#include "app/cli/replay_dumps.h"
#include "app/cli/replay_logcat.h"
#include "metrics/sources/battery.h"
#include "metrics/sources/graphicsstats.h"
#include "parsers/battery.h"
#include "parsers/bugreport.h"
#include "parsers/graphicsstats.h"

namespace jank::app {
namespace {

// The year of the banner "== dumpstate: 2024-03-01 12:00:00": threadtime
// lines carry none.
int banner_year(std::string_view text) {
  const std::size_t at = text.substr(0, 4096).find("== dumpstate: ");
  if (at == std::string_view::npos) return 0;
  const std::string_view digits = text.substr(at + 14, 4);
  int year = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), year);
  return ec == std::errc() && end == digits.data() + digits.size() && year >= 1970 && year <= 9999 ? year : 0;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};

}  // namespace

bool looks_like_zip(std::string_view head) { return head.substr(0, 4) == std::string_view("PK\x03\x04", 4); }

std::string bugreport_text_of_zip(const std::string& zip, std::size_t max_bytes, std::string& error) {
  zip_error_t ze;
  zip_error_init(&ze);
  zip_source_t* source = zip_source_buffer_create(zip.data(), zip.size(), 0, &ze);
  if (source == nullptr) {
    error = "cannot read the zip: " + std::string(zip_error_strerror(&ze));
    zip_error_fini(&ze);
    return {};
  }
  std::unique_ptr<zip_t, ZipCloser> archive(zip_open_from_source(source, ZIP_RDONLY, &ze));
  if (!archive) {
    zip_source_free(source);
    error = "not a readable zip: " + std::string(zip_error_strerror(&ze));
    zip_error_fini(&ze);
    return {};
  }
  zip_error_fini(&ze);
  auto read_entry = [&](zip_int64_t index, std::size_t cap, std::string& out) -> bool {
    zip_stat_t st;
    if (zip_stat_index(archive.get(), static_cast<zip_uint64_t>(index), 0, &st) != 0) return false;
    if ((st.valid & ZIP_STAT_SIZE) == 0 || st.size > cap) {
      error = "the bug report in the zip is larger than " + std::to_string(cap >> 20) + " MiB";
      return false;
    }
    std::unique_ptr<zip_file_t, int (*)(zip_file_t*)> f(zip_fopen_index(archive.get(), static_cast<zip_uint64_t>(index), 0),
                                                       zip_fclose);
    if (!f) return false;
    out.resize(static_cast<std::size_t>(st.size));
    std::size_t got = 0;
    while (got < out.size()) {
      const zip_int64_t n = zip_fread(f.get(), out.data() + got, out.size() - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    out.resize(got);
    if (got != st.size) error = "the bug report in the zip is damaged";
    return got == st.size;
  };
  // dumpstate writes the main text's name into main_entry.txt.
  zip_int64_t main = -1;
  const zip_int64_t named = zip_name_locate(archive.get(), "main_entry.txt", 0);
  if (named >= 0) {
    std::string entry;
    if (read_entry(named, 4096, entry)) {
      while (!entry.empty() && (entry.back() == '\n' || entry.back() == '\r')) entry.pop_back();
      main = zip_name_locate(archive.get(), entry.c_str(), 0);
    }
  }
  if (main < 0) {
    zip_uint64_t largest = 0;
    const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
    for (zip_int64_t i = 0; i < entries; ++i) {
      zip_stat_t st;
      if (zip_stat_index(archive.get(), static_cast<zip_uint64_t>(i), 0, &st) != 0 || (st.valid & ZIP_STAT_NAME) == 0) {
        continue;
      }
      const std::string_view entry_name = st.name;
      const bool report = entry_name.find('/') == std::string_view::npos && entry_name.starts_with("bugreport") &&
                          entry_name.ends_with(".txt");
      if (report && (st.valid & ZIP_STAT_SIZE) != 0 && (main < 0 || st.size > largest)) {
        main = i;
        largest = st.size;
      }
    }
  }
  if (main < 0) {
    error = "no bug report text in the zip (neither main_entry.txt nor a bugreport*.txt)";
    return {};
  }
  error.clear();
  std::string text;
  if (!read_entry(main, max_bytes, text)) {
    if (error.empty()) error = "cannot read the bug report in the zip";
    return {};
  }
  return text;
}

std::string replay_bugreport(const std::string& name, std::string_view text, const ReplayOptions& o,
                             metrics::Store& store, metrics::DeviceMetrics& device, std::ostream& err) {
  const parsers::Bugreport report = parsers::split_bugreport(text);
  if (report.sections.empty()) return "a bug report without any dumpstate section";
  ReplayOptions options = o;
  if (options.year == 0) options.year = banner_year(text);
  std::vector<std::string> used, skipped;
  std::string layer_name;
  for (const auto& s : report.sections) {
    std::string error;
    bool use = true;
    if (s.name == "SYSTEM LOG") {
      replay_logcat_text(s.text, options, store, device);
    } else if (s.service == "gfxinfo") {
      error = record_dump(parsers::InputKind::gfxinfo, name, s.text, store, device, layer_name, err);
    } else if (s.service == "power") {
      error = record_dump(parsers::InputKind::power_state, name, s.text, store, device, layer_name, err);
    } else if (s.service == "thermalservice") {
      error = record_dump(parsers::InputKind::thermal, name, s.text, store, device, layer_name, err);
    } else if (s.service == "graphicsstats") {
      metrics::record_graphicsstats(store, device, parsers::parse_graphicsstats(s.text), true);
    } else if (s.service == "battery") {
      metrics::record_battery(store, device, parsers::parse_battery(s.text));
    } else {
      use = false;
    }
    if (!error.empty()) return s.name + ": " + error;
    (use ? used : skipped).push_back(s.name);
  }
  err << "jank_exporter replay: " << name << ": bug report: used " << used.size() << " section"
      << (used.size() == 1 ? "" : "s") << (used.empty() ? "" : ": " + joined(used)) << "\n";
  err << "jank_exporter replay: " << name << ": bug report: skipped " << skipped.size() << " section"
      << (skipped.size() == 1 ? "" : "s") << (skipped.empty() ? "" : ": " + joined(skipped)) << "\n";
  return "";
}

}  // namespace jank::app
