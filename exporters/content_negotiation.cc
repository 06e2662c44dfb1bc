#include "exporters/content_negotiation.h"

#include <array>
#include <optional>
#include <string>

#include "parsers/text_scan.h"

namespace jank::exporters {

bool is_token_char(char c) {
  return parsers::scan::is_alnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

namespace {

using parsers::scan::equal_ignoring_case;

// A cursor over the header that reads its grammar's pieces; each read
// returns nullopt (or false) on text that is not that piece.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}
  bool done() const { return at_ == text_.size(); }
  char peek() const { return done() ? '\0' : text_[at_]; }
  bool take(char c) {
    if (peek() != c) return false;
    ++at_;
    return true;
  }
  void skip_spaces() { at_ = parsers::scan::skip_blank(text_, at_); }
  std::optional<std::string_view> token() {
    const std::size_t start = at_;
    while (!done() && is_token_char(text_[at_])) ++at_;
    if (at_ == start) return std::nullopt;
    return text_.substr(start, at_ - start);
  }
  // A quoted-string, unquoted.
  std::optional<std::string> quoted() {
    if (!take('"')) return std::nullopt;
    std::string out;
    while (!done()) {
      const auto c = static_cast<unsigned char>(text_[at_++]);
      if (c == '"') return out;
      if (c == '\\') {
        if (done()) return std::nullopt;
        out += text_[at_++];
      } else if (c == '\t' || c >= 0x20) {
        if (c == 0x7F) return std::nullopt;
        out += static_cast<char>(c);
      } else {
        return std::nullopt;
      }
    }
    return std::nullopt;  // no closing quote
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

// "0" ["." 0*3DIGIT] / "1" ["." 0*3("0")], in thousandths.
std::optional<int> parse_qvalue(std::string_view v) {
  if (v.empty() || (v[0] != '0' && v[0] != '1')) return std::nullopt;
  int q = (v[0] - '0') * 1000;
  if (v.size() == 1) return q;
  if (v[1] != '.' || v.size() > 5) return std::nullopt;
  int scale = 100;
  for (const char c : v.substr(2)) {
    if (c < '0' || c > '9') return std::nullopt;
    q += (c - '0') * scale;
    scale /= 10;
  }
  return q <= 1000 ? std::optional<int>(q) : std::nullopt;
}

struct MediaRange {
  std::string_view type, subtype;
  std::optional<std::string> version;
  int q = 1000;
};

// One media range and its parameters, up to the next ',' or the end.
std::optional<MediaRange> parse_range(Reader& in) {
  MediaRange range;
  const auto type = in.token();
  if (!type || !in.take('/')) return std::nullopt;
  const auto subtype = in.token();
  if (!subtype || (*type == "*" && *subtype != "*")) return std::nullopt;
  range.type = *type;
  range.subtype = *subtype;
  bool weighted = false;
  while (true) {
    in.skip_spaces();
    if (in.done() || in.peek() == ',') return range;
    if (!in.take(';')) return std::nullopt;
    in.skip_spaces();
    const auto name = in.token();
    if (!name) return std::nullopt;
    if (!in.take('=')) {
      if (!weighted) return std::nullopt;  // only an extension after q may go without a value
      continue;
    }
    std::optional<std::string> value;
    if (in.peek() == '"') {
      value = in.quoted();
    } else if (const auto t = in.token()) {
      value = std::string(*t);
    }
    if (!value) return std::nullopt;
    if (equal_ignoring_case(*name, "q")) {
      const auto q = parse_qvalue(*value);
      if (!q || weighted) return std::nullopt;
      range.q = *q;
      weighted = true;
    } else if (equal_ignoring_case(*name, "version")) {
      range.version = std::move(*value);
    }
  }
}

// A format /metrics can answer in, as media ranges name it.
struct Offer {
  std::string_view type, subtype;
  std::array<std::string_view, 2> versions;  // "" = unused slot
};
constexpr Offer kText = {"text", "plain", {"0.0.4", ""}};
constexpr Offer kOpenMetrics = {"application", "openmetrics-text", {"1.0.0", "0.0.1"}};

// How specifically `range` names `offer`: -1 not at all, 0 */*, 1 type/*,
// 2 type/subtype, 3 type/subtype with a version the offer has.
int specificity(const MediaRange& range, const Offer& offer) {
  if (range.type == "*") return 0;
  if (!equal_ignoring_case(range.type, offer.type)) return -1;
  if (range.subtype == "*") return 1;
  if (!equal_ignoring_case(range.subtype, offer.subtype)) return -1;
  if (!range.version) return 2;
  for (const auto v : offer.versions) {
    if (!v.empty() && *range.version == v) return 3;
  }
  return -1;
}

// The q the most specific matching range gives an offer (0: none matches).
class Quality {
 public:
  explicit Quality(const Offer& offer) : offer_(offer) {}
  void consider(const MediaRange& range) {
    const int s = specificity(range, offer_);
    if (s < 0) return;
    if (s > specificity_) {
      specificity_ = s;
      q_ = range.q;
    } else if (s == specificity_ && range.q > q_) {
      q_ = range.q;  // equally specific, e.g. both OpenMetrics versions listed
    }
  }
  int q() const { return q_; }

 private:
  const Offer& offer_;
  int specificity_ = -1;
  int q_ = 0;
};

}  // namespace

ExpositionFormat negotiate_format(std::string_view accept) {
  Quality text(kText), openmetrics(kOpenMetrics);
  Reader in(accept);
  while (true) {
    in.skip_spaces();
    if (in.done()) break;
    if (in.take(',')) continue;  // empty list elements are allowed
    const auto range = parse_range(in);
    if (!range) return ExpositionFormat::prometheus_0_0_4;
    text.consider(*range);
    openmetrics.consider(*range);
  }
  return openmetrics.q() > text.q() ? ExpositionFormat::openmetrics_1_0_0 : ExpositionFormat::prometheus_0_0_4;
}

}  // namespace jank::exporters
