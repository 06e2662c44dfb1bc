#include "metrics/checkpoint.h"

namespace jank::metrics {

Checkpoint& Checkpoint::count(std::uint64_t& v) {
  if (loading()) {
    v = reader_->u64();
  } else {
    writer_->u64(v);
  }
  return *this;
}

Checkpoint& Checkpoint::i64(std::int64_t& v) {
  if (loading()) {
    v = reader_->i64();
  } else {
    writer_->i64(v);
  }
  return *this;
}

Checkpoint& Checkpoint::f64(double& v) {
  if (loading()) {
    v = reader_->f64();
  } else {
    writer_->f64(v);
  }
  return *this;
}

Checkpoint& Checkpoint::str(std::string& s) {
  if (loading()) {
    s = reader_->str();
  } else {
    writer_->str(s);
  }
  return *this;
}

Checkpoint& Checkpoint::flag(bool& b) {
  if (loading()) {
    b = reader_->boolean();
  } else {
    writer_->boolean(b);
  }
  return *this;
}

Checkpoint& Checkpoint::newline() {
  if (!loading()) writer_->newline();
  return *this;
}

bool Checkpoint::valid() const { return !loading() || (reader_->rejected() == rejected_at_start_ && !reader_->fail()); }

}  // namespace jank::metrics
