// One description of a record, read and written by the same code: a source's
// checkpoint function lists its fields once, and a Checkpoint either writes
// them (saving) or reads them back into the same fields (loading). So a field
// cannot be saved in one order and loaded in another, and a new field is one
// line. Built on the token format of metrics/state_io.h.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/state_io.h"

namespace jank::metrics {

class Checkpoint {
 public:
  explicit Checkpoint(StateWriter& writer) : writer_(&writer) {}
  explicit Checkpoint(StateReader& reader) : reader_(&reader), rejected_at_start_(reader.rejected()) {}

  bool loading() const { return reader_ != nullptr; }

  // A count: on loading at most StateReader::kMaxCount, else the value is
  // rejected (reads as 0, and valid() turns false).
  Checkpoint& count(std::uint64_t& v);
  template <std::size_t N>
  Checkpoint& counts(std::array<std::uint64_t, N>& values) {
    for (auto& v : values) count(v);
    return *this;
  }
  Checkpoint& i64(std::int64_t& v);
  Checkpoint& f64(double& v);
  Checkpoint& str(std::string& s);
  Checkpoint& flag(bool& b);
  Checkpoint& newline();
  // A tag the record always holds here: on loading, the text is refused without it.
  Checkpoint& tag(std::string_view t);
  // An optional record on a line of its own: saving, its line break and tag
  // are written when `present`; loading, it is there when its tag is next
  // (consumed). Whether its fields follow.
  bool record(std::string_view tag, bool present);
  // A list's length: on loading at most `max`, else the text is refused.
  Checkpoint& size(std::uint64_t& n, std::uint64_t max);
  // A map: its size, then each entry's fields as `entry(c, key, value)`
  // lists them. Loading replaces the map with the entries read.
  template <class Map, class Entry>
  Checkpoint& entries(Map& map, std::uint64_t max, Entry entry) {
    std::uint64_t n = map.size();
    size(n, max);
    if (!loading()) {
      for (auto& [k, v] : map) {
        auto key = k;  // the entry function takes it writable, as it does when loading
        entry(*this, key, v);
      }
      return *this;
    }
    Map read;
    for (std::uint64_t i = 0; i < n && !failed(); ++i) {
      typename Map::key_type key{};
      typename Map::mapped_type value{};
      entry(*this, key, value);
      read.insert_or_assign(std::move(key), std::move(value));
    }
    map = std::move(read);
    return *this;
  }
  // A part that keeps its own layout through a save/load pair (a tracker
  // whose record predates Checkpoint): false when loading found values that
  // cannot be true together.
  template <class Part>
  bool part(Part& p) {
    if (loading()) return p.load(*reader_);
    p.save(*writer_);
    return true;
  }

  // Whether every value read so far was one a file can hold (always true
  // when saving). A source's checkpoint function adds its own rules (a part
  // never larger than its whole) and returns the conjunction.
  bool valid() const;
  // A checkpoint of the record's fields from here on, judged apart: its
  // valid() looks only at the values read through it (a part of a record
  // that is dropped alone).
  Checkpoint group() const { return loading() ? Checkpoint(*reader_) : Checkpoint(*writer_); }
  // Whether the text itself is broken (loading): the whole file is refused.
  bool failed() const { return reader_ != nullptr && reader_->fail(); }

 private:
  template <typename T, typename Read, typename Write>
  Checkpoint& field(T& v, Read read, Write write);

  StateWriter* writer_ = nullptr;
  StateReader* reader_ = nullptr;
  std::uint64_t rejected_at_start_ = 0;
};

}  // namespace jank::metrics
