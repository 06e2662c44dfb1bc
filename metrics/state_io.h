// A small token format for the daemon's checkpoint: whitespace-separated
// tokens, strings percent-escaped, doubles with full precision. Readers
// never throw: a malformed file sets fail() and the caller reports it. A
// value that parses but cannot be true (a count near 2^64, a negative
// count) is rejected on its own: it reads as 0 and rejected() counts it, so
// that the caller can drop the record that holds it and keep the rest.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace jank::metrics {

class StateWriter {
 public:
  StateWriter& tag(std::string_view t);
  StateWriter& u64(std::uint64_t v);
  StateWriter& hash(std::uint64_t v) { return u64(v); }
  StateWriter& i64(std::int64_t v);
  StateWriter& f64(double v);
  StateWriter& str(std::string_view s);
  StateWriter& boolean(bool b) { return u64(b ? 1 : 0); }
  StateWriter& newline();
  const std::string& text() const { return out_; }

 private:
  void sep();
  std::string out_;
};

class StateReader {
 public:
  explicit StateReader(std::string_view text) : in_(text) {}

  bool expect(std::string_view tag);    // the next token must be `tag`
  bool peek(std::string_view tag);      // is the next token `tag`? (not consumed)
  // A count: at most kMaxCount, else rejected.
  std::uint64_t u64();
  // Any 64-bit value (hashes).
  std::uint64_t hash();
  std::int64_t i64();
  double f64();
  std::string str();
  bool boolean() { return u64() != 0; }
  // Bounds a count read from the file before it sizes anything.
  std::uint64_t count(std::uint64_t max);

  // No counter of this product reaches 2^60 (a billion events a second for
  // 36 years); a larger value in a state file is damage.
  static constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 60;
  std::uint64_t rejected() const { return rejected_; }
  void reject() { ++rejected_; }

  bool fail() const { return failed_; }
  const std::string& error() const { return error_; }
  void set_error(std::string message);
  bool at_end();

 private:
  std::string_view next();
  std::string_view in_;
  bool failed_ = false;
  std::uint64_t rejected_ = 0;
  std::string error_;
};

}  // namespace jank::metrics
