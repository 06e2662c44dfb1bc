// Which process a pid names on one device, as the log and process listings
// say. The log's own start and death lines apply in log order and are exact;
// a listing (ps) is a snapshot taken while the stream may still be reading
// older lines, so a pid it no longer lists keeps its name for two more
// listings, and a pid it lists under another name than the log gave is
// renamed only when the next listing says so too: the lines of a process
// that died just before the listing, and the start line of the one that
// took over its pid, are usually still on their way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace jank::metrics {

// A process listing: (pid, name) per running user process.
using ProcessListing = std::vector<std::pair<std::int32_t, std::string>>;

class ProcessNames {
 public:
  explicit ProcessNames(std::size_t capacity = 65536) : capacity_(capacity) {}

  // The name of `pid`, or nullptr.
  const std::string* find(std::int32_t pid) const;
  std::size_t size() const { return names_.size(); }

  // A start line in the log: the pid names this process from here on.
  void started(std::int32_t pid, std::string_view name);
  // A death line in the log: nothing logged after it can come from the pid.
  void died(std::int32_t pid);
  // A process listing: listed pids take their listed name (one named
  // otherwise at the second listing in a row that says so); pids it leaves
  // out are forgotten at the second listing after.
  void listed(const ProcessListing& processes);
  // A new boot: every pid of the old one is meaningless.
  void clear();

  // Names of the pids the last listing showed running (and those started
  // since): what keeps a package's series alive.
  template <typename F>
  void for_each_running(F&& f) const {
    for (const auto& [pid, name] : names_) {
      if (!unlisted_.contains(pid)) f(pid, name);
    }
  }
  // Every name, sorted by pid (the checkpoint).
  std::map<std::int32_t, std::string_view> sorted() const;

 private:
  void put(std::int32_t pid, std::string_view name);
  bool make_room();

  std::size_t capacity_;
  std::unordered_map<std::int32_t, std::string> names_;
  // Pids the listings stopped showing: the listing count when first missed.
  std::unordered_map<std::int32_t, std::uint64_t> unlisted_;
  // A listing's other name for a named pid, and that listing's count.
  std::unordered_map<std::int32_t, std::pair<std::string, std::uint64_t>> renames_;
  std::uint64_t listings_ = 0;
};

}  // namespace jank::metrics
