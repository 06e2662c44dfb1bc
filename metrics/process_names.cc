#include "metrics/process_names.h"
#include "parsers/utf8.h"

#include <unordered_set>

namespace jank::metrics {
namespace {
constexpr std::size_t kMaxNameBytes = 256;
// A pid a listing no longer shows keeps its name until this many listings.
constexpr std::uint64_t kListingsKept = 2;
}  // namespace

const std::string* ProcessNames::find(std::int32_t pid) const {
  const auto it = names_.find(pid);
  return it == names_.end() ? nullptr : &it->second;
}

bool ProcessNames::make_room() {
  if (names_.size() < capacity_) return true;
  if (unlisted_.empty()) return false;
  // The longest gone first.
  auto oldest = unlisted_.begin();
  for (auto it = unlisted_.begin(); it != unlisted_.end(); ++it) {
    if (it->second < oldest->second || (it->second == oldest->second && it->first < oldest->first)) oldest = it;
  }
  names_.erase(oldest->first);
  unlisted_.erase(oldest);
  return true;
}

void ProcessNames::put(std::int32_t pid, std::string_view name) {
  if (pid < 0) return;
  unlisted_.erase(pid);
  if (auto it = names_.find(pid); it != names_.end()) {
    it->second.assign(parsers::utf8_prefix(name, kMaxNameBytes));
    return;
  }
  if (!make_room()) return;
  names_.emplace(pid, std::string(parsers::utf8_prefix(name, kMaxNameBytes)));
}

void ProcessNames::started(std::int32_t pid, std::string_view name) {
  renames_.erase(pid);
  put(pid, name);
}

void ProcessNames::died(std::int32_t pid) {
  names_.erase(pid);
  unlisted_.erase(pid);
  renames_.erase(pid);
}

void ProcessNames::listed(const ProcessListing& processes) {
  ++listings_;
  std::unordered_set<std::int32_t> seen;
  seen.reserve(processes.size());
  for (const auto& [pid, name] : processes) {
    if (pid < 0) continue;
    seen.insert(pid);
  }
  for (auto it = names_.begin(); it != names_.end();) {
    if (seen.contains(it->first)) {
      ++it;
      continue;
    }
    auto [since, inserted] = unlisted_.try_emplace(it->first, listings_);
    if (!inserted && listings_ - since->second >= kListingsKept) {
      unlisted_.erase(since);
      it = names_.erase(it);
    } else {
      ++it;
    }
  }
  std::unordered_map<std::int32_t, std::pair<std::string, std::uint64_t>> renames;
  for (const auto& [pid, name] : processes) {
    const auto known = names_.find(pid);
    const std::string_view listed_name = parsers::utf8_prefix(name, kMaxNameBytes);
    if (known == names_.end() || known->second == listed_name) {
      put(pid, name);
      continue;
    }
    const auto before = renames_.find(pid);
    if (before != renames_.end() && before->second.first == listed_name && before->second.second + 1 == listings_) {
      put(pid, name);  // two listings in a row: the log's start line is not coming
    } else {
      unlisted_.erase(pid);
      renames.emplace(pid, std::make_pair(std::string(listed_name), listings_));
    }
  }
  renames_ = std::move(renames);
}

void ProcessNames::clear() {
  names_.clear();
  unlisted_.clear();
  renames_.clear();
}

std::map<std::int32_t, std::string_view> ProcessNames::sorted() const {
  return {names_.begin(), names_.end()};
}

}  // namespace jank::metrics
