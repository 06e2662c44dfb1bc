#include "parsers/bugreport.h"

#include <optional>

namespace jank::parsers {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

std::string_view without_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// "------ NAME (COMMAND) ------" → NAME (COMMAND); an end marker → nullopt
// with `end` set.
std::optional<std::string_view> section_header(std::string_view line, bool& end) {
  end = false;
  constexpr std::string_view kDashes = "------ ";
  constexpr std::string_view kTail = " ------";
  if (!starts_with(line, kDashes) || !ends_with(line, kTail) || line.size() < kDashes.size() + kTail.size()) {
    return std::nullopt;
  }
  const std::string_view inner = line.substr(kDashes.size(), line.size() - kDashes.size() - kTail.size());
  if (inner.find("was the duration of") != std::string_view::npos) {
    end = true;
    return std::nullopt;
  }
  // A header names its section: "------  ------" is a line of the section.
  if (inner.empty() || inner.front() == ' ' || inner.front() == '(') return std::nullopt;
  return inner;
}

// NAME of "NAME (COMMAND)".
std::string section_name(std::string_view inner) {
  const std::size_t paren = inner.find(" (");
  return std::string(paren == std::string_view::npos ? inner : inner.substr(0, paren));
}

// NAME of "DUMP OF SERVICE [CRITICAL |HIGH ]NAME:".
std::optional<std::string> service_header(std::string_view line) {
  constexpr std::string_view kDump = "DUMP OF SERVICE ";
  if (!starts_with(line, kDump) || !ends_with(line, ":")) return std::nullopt;
  std::string_view rest = line.substr(kDump.size(), line.size() - kDump.size() - 1);
  for (const std::string_view priority : {"CRITICAL ", "HIGH ", "NORMAL "}) {
    if (starts_with(rest, priority)) rest.remove_prefix(priority.size());
  }
  if (rest.empty() || rest.find(' ') != std::string_view::npos) return std::nullopt;
  return std::string(rest);
}

bool service_end(std::string_view line) {
  return starts_with(line, "--------- ") && line.find("was the duration of dumpsys") != std::string_view::npos;
}

}  // namespace

bool looks_like_bugreport(std::string_view head) {
  std::size_t at = 0;
  for (int i = 0; i < 4 && at < head.size(); ++i) {
    std::size_t nl = head.find('\n', at);
    if (nl == std::string_view::npos) nl = head.size();
    if (starts_with(without_cr(head.substr(at, nl - at)), "== dumpstate: ")) return true;
    at = nl + 1;
  }
  return false;
}

Bugreport split_bugreport(std::string_view text) {
  Bugreport out;
  bool in_dumpsys = false;   // inside a DUMPSYS section
  bool open = false;         // a section (or a service's block) collects lines
  std::size_t body = 0;      // where the open one's lines begin
  auto close = [&](std::size_t at) {
    if (open) out.sections.back().text = text.substr(body, at - body);
    open = false;
  };
  auto start = [&](std::string name, std::string service, std::size_t next) {
    out.sections.push_back({std::move(name), std::move(service), {}});
    open = true;
    body = next;
  };
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    const std::size_t next = nl == std::string_view::npos ? text.size() : nl + 1;
    const std::string_view line = without_cr(text.substr(at, (nl == std::string_view::npos ? text.size() : nl) - at));
    bool end = false;
    if (const auto inner = section_header(line, end)) {
      close(at);
      const std::string name = section_name(*inner);
      in_dumpsys = starts_with(name, "DUMPSYS");
      if (!in_dumpsys) start(name, "", next);
    } else if (end) {
      close(at);
      in_dumpsys = false;
    } else if (in_dumpsys) {
      if (auto service = service_header(line)) {
        close(at);
        start("dumpsys " + *service, *service, next);
      } else if (service_end(line)) {
        close(at);
      }
    }
    at = next;
  }
  close(text.size());
  return out;
}

}  // namespace jank::parsers
