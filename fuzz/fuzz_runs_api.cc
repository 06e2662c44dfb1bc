// RunsApi::handle on arbitrary requests, one SharedState per input with a
// followed device (its model not UTF-8). The input is a sequence of
// requests separated by "\n===\n"; each is "METHOD TARGET" on its first
// line (TARGET is the path, then ?query) and the body after it. Between
// requests the runs advance by a second. Holds: nothing throws; every
// status is one the API documents; every body is valid UTF-8, a JSON one
// parses (an error as {"error": string}); a run id echoed in an answer
// follows the run id grammar.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "app/api/runs_api.h"
#include "app/core/shared_state.h"
#include "metrics/run_book.h"
#include "parsers/utf8.h"

namespace {

using namespace jank;
constexpr std::int64_t kNow = 1'800'000'000'000'000'000;  // 2027-01-15

[[noreturn]] void fail(const std::string& why, std::string_view request) {
  std::fprintf(stderr, "runs_api: %s (request %s)\n", why.c_str(), parsers::terminal_text(request).c_str());
  std::abort();
}

void check(const exporters::ApiResponse& r, std::string_view request) {
  static const std::set<int> statuses{200, 201, 202, 400, 404, 405, 409, 429};
  if (!statuses.contains(r.status)) fail("status " + std::to_string(r.status), request);
  if (!parsers::is_valid_utf8(r.body)) fail("a body not UTF-8", request);
  if (r.content_type == "text/csv; charset=utf-8") {
    if (r.status != 200) fail("CSV for an error", request);
    return;
  }
  if (r.content_type != "application/json") fail("content type " + r.content_type, request);
  const auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) fail("a JSON body that is not an object", request);
  if (r.status >= 400) {
    if (!j.contains("error") || !j["error"].is_string()) fail("an error without its message", request);
    return;
  }
  auto check_run = [&](const nlohmann::json& run) {
    if (!run.is_object() || !run.contains("id") || !run["id"].is_string() ||
        !metrics::valid_run_id(run["id"].get<std::string>())) {
      fail("a run without a valid id", request);
    }
  };
  if (j.contains("runs")) {
    for (const auto& run : j["runs"]) check_run(run);
  } else {
    check_run(j);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  app::SharedState shared(metrics::StoreOptions{});
  auto& d = shared.store.device("emulator-5554");
  d.live.live = true;
  d.live.state = metrics::DeviceState::following;
  d.live.info["model"] = "caf\xe9 \xff";
  std::int64_t now = kNow;
  app::RunsApi api(shared, [&now] { return now; }, [](std::vector<std::string>) {});

  std::string_view input(reinterpret_cast<const char*>(data), size);
  constexpr std::string_view kSeparator = "\n===\n";
  for (int n = 0; n < 32; ++n) {  // a bound on the work one input can ask for
    const auto end = input.find(kSeparator);
    const std::string_view request = input.substr(0, end);
    const auto eol = request.find('\n');
    const std::string_view line = request.substr(0, eol);
    const std::string_view body = eol == std::string_view::npos ? std::string_view() : request.substr(eol + 1);
    const auto space = line.find(' ');
    const std::string_view method = line.substr(0, space);
    const std::string_view target = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    const auto question = target.find('?');
    exporters::ApiRequest r{std::string(method), std::string(target.substr(0, question)),
                            question == std::string_view::npos ? "" : std::string(target.substr(question + 1)),
                            std::string(body)};
    check(api.handle(r), request);
    now += 1'000'000'000;
    {
      std::lock_guard<std::mutex> lock(shared.mutex);
      shared.runs.advance(now, shared.store);
    }
    if (end == std::string_view::npos) break;
    input.remove_prefix(end + kSeparator.size());
  }
  return 0;
}
