#include "metrics/checkpoint.h"

namespace jank::metrics {

// Each field: read into `v` when loading, written from it when saving.
template <typename T, typename Read, typename Write>
Checkpoint& Checkpoint::field(T& v, Read read, Write write) {
  if (loading()) {
    v = (reader_->*read)();
  } else {
    (writer_->*write)(v);
  }
  return *this;
}

Checkpoint& Checkpoint::count(std::uint64_t& v) { return field(v, &StateReader::u64, &StateWriter::u64); }
Checkpoint& Checkpoint::i64(std::int64_t& v) { return field(v, &StateReader::i64, &StateWriter::i64); }
Checkpoint& Checkpoint::f64(double& v) { return field(v, &StateReader::f64, &StateWriter::f64); }
Checkpoint& Checkpoint::str(std::string& s) { return field(s, &StateReader::str, &StateWriter::str); }
Checkpoint& Checkpoint::flag(bool& b) { return field(b, &StateReader::boolean, &StateWriter::boolean); }

Checkpoint& Checkpoint::size(std::uint64_t& n, std::uint64_t max) {
  if (loading()) {
    n = reader_->count(max);
  } else {
    writer_->u64(n);
  }
  return *this;
}

Checkpoint& Checkpoint::newline() {
  if (!loading()) writer_->newline();
  return *this;
}

Checkpoint& Checkpoint::tag(std::string_view t) {
  if (loading()) {
    reader_->expect(t);
  } else {
    writer_->tag(t);
  }
  return *this;
}

bool Checkpoint::record(std::string_view tag, bool present) {
  if (!loading()) {
    if (present) writer_->newline().tag(tag);
    return present;
  }
  if (!reader_->peek(tag)) return false;
  reader_->expect(tag);
  return true;
}

bool Checkpoint::valid() const { return !loading() || (reader_->rejected() == rejected_at_start_ && !reader_->fail()); }

}  // namespace jank::metrics
