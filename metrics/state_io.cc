#include "metrics/state_io.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace jank::metrics {

void StateWriter::sep() {
  if (!out_.empty() && out_.back() != '\n') out_.push_back(' ');
}

StateWriter& StateWriter::tag(std::string_view t) {
  sep();
  out_.append(t);
  return *this;
}

StateWriter& StateWriter::u64(std::uint64_t v) {
  sep();
  out_.append(std::to_string(v));
  return *this;
}

StateWriter& StateWriter::i64(std::int64_t v) {
  sep();
  out_.append(std::to_string(v));
  return *this;
}

StateWriter& StateWriter::f64(double v) {
  sep();
  char buf[40];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  out_.append(buf, ec == std::errc() ? end : buf);
  return *this;
}

StateWriter& StateWriter::str(std::string_view s) {
  sep();
  out_.push_back('"');  // marks a string so that "" survives tokenising
  for (unsigned char c : s) {
    if (c <= ' ' || c == '%' || c == '"' || c >= 0x7F) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out_.append(buf);
    } else {
      out_.push_back(static_cast<char>(c));
    }
  }
  return *this;
}

StateWriter& StateWriter::newline() {
  out_.push_back('\n');
  return *this;
}

void StateReader::set_error(std::string message) {
  if (!failed_) {
    failed_ = true;
    error_ = std::move(message);
  }
}

std::string_view StateReader::next() {
  std::size_t i = 0;
  while (i < in_.size() && (in_[i] == ' ' || in_[i] == '\n')) ++i;
  std::size_t j = i;
  while (j < in_.size() && in_[j] != ' ' && in_[j] != '\n') ++j;
  std::string_view token = in_.substr(i, j - i);
  in_.remove_prefix(j);
  if (token.empty()) set_error("unexpected end of state");
  return token;
}

bool StateReader::at_end() {
  std::size_t i = 0;
  while (i < in_.size() && (in_[i] == ' ' || in_[i] == '\n')) ++i;
  return i == in_.size();
}

bool StateReader::peek(std::string_view tag) {
  std::string_view saved = in_;
  const bool failed = failed_;
  std::string_view token = next();
  in_ = saved;
  failed_ = failed;
  return token == tag;
}

bool StateReader::expect(std::string_view tag) {
  if (failed_) return false;
  std::string_view token = next();
  if (token != tag) {
    set_error("expected '" + std::string(tag) + "', found '" + std::string(token.substr(0, 40)) + "'");
    return false;
  }
  return true;
}

std::uint64_t StateReader::hash() {
  if (failed_) return 0;
  std::string_view t = next();
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) set_error("bad number '" + std::string(t.substr(0, 40)) + "'");
  return v;
}

std::uint64_t StateReader::u64() {
  if (failed_) return 0;
  std::string_view t = next();
  // Any integer parses (a negative or oversized one is a bad value, not a
  // broken file); only a token that is no integer at all breaks the file.
  const bool negative = !t.empty() && t.front() == '-';
  const std::string_view digits = negative ? t.substr(1) : t;
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  const bool integer = !digits.empty() && p == digits.data() + digits.size() &&
                       (ec == std::errc() || ec == std::errc::result_out_of_range);
  if (!integer) {
    set_error("bad number '" + std::string(t.substr(0, 40)) + "'");
    return 0;
  }
  if (negative || ec != std::errc() || v > kMaxCount) {
    ++rejected_;
    return 0;
  }
  return v;
}

std::int64_t StateReader::i64() {
  if (failed_) return 0;
  std::string_view t = next();
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) set_error("bad number '" + std::string(t.substr(0, 40)) + "'");
  return v;
}

double StateReader::f64() {
  if (failed_) return 0;
  std::string_view t = next();
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v)) {
    set_error("bad number '" + std::string(t.substr(0, 40)) + "'");
  }
  return v;
}

std::string StateReader::str() {
  if (failed_) return {};
  std::string_view t = next();
  if (t.empty() || t.front() != '"') {
    set_error("expected a string");
    return {};
  }
  t.remove_prefix(1);
  std::string out;
  out.reserve(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '%') {
      out.push_back(t[i]);
      continue;
    }
    unsigned value = 0;
    if (i + 2 >= t.size() || std::from_chars(t.data() + i + 1, t.data() + i + 3, value, 16).ptr != t.data() + i + 3) {
      set_error("bad escape in string");
      return {};
    }
    out.push_back(static_cast<char>(value));
    i += 2;
  }
  return out;
}

std::uint64_t StateReader::count(std::uint64_t max) {
  std::uint64_t n = hash();
  if (n > max) {
    set_error("count " + std::to_string(n) + " exceeds " + std::to_string(max));
    return 0;
  }
  return n;
}

}  // namespace jank::metrics
