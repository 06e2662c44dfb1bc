#include "devsim/perfetto.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <set>

#include "devsim/json.h"
#include "devsim/model.h"
#include "devsim/text.h"

namespace jank::devsim {

// A file in /data/misc/perfetto-traces: what its session will have written
// once whole, and how far it got. While being written the length grows
// linearly over [write_from, write_to) of the device's monotonic time.
struct TraceFile {
  TraceBytes content;
  std::uint64_t length = 0;
  bool writing = false;
  std::int64_t write_from = 0, write_to = 0;
  std::uint64_t record = 0;  // the trace record it belongs to (0: none, e.g. an empty file)

  std::uint64_t length_at(std::int64_t t) const {
    if (!writing) return length;
    if (t <= write_from) return 0;
    if (t >= write_to) return content.size();
    const long double part = static_cast<long double>(t - write_from) / static_cast<long double>(write_to - write_from);
    return std::min(content.size(), static_cast<std::uint64_t>(part * static_cast<long double>(content.size())));
  }
};

namespace {

constexpr std::int64_t kMs = 1'000'000;
// The service refuses a session right after the client connects: the
// background process logs the error into /dev/null and exits.
constexpr std::int64_t kRefusedExitNs = 60 * kMs;
// A session stopped without data: disable, an empty read-back, exit.
constexpr std::int64_t kEmptyExitNs = 40 * kMs;
// From the stop to the first byte written: the final flush of the data sources.
constexpr std::int64_t kFlushNs = 80 * kMs;
constexpr std::uint64_t kDefaultWriteSpeed = 16ull * 1024 * 1024;  // bytes per second
constexpr std::uint32_t kMaxDurationMs = 7u * 24 * 3600 * 1000;    // traced's kMaxTracingDurationMillis
constexpr std::size_t kMaxRecords = 256;
constexpr std::uint64_t kPacket = 4096;  // TracePacket size in generated traces

std::string fmt(const char* f, auto... a) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, f, a...);
  return std::string(buf, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof buf) - 1)));
}

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// ---- the text config ------------------------------------------------------

enum class FType : std::uint8_t { u32, u64, i32, i64, dbl, boolean, str, enumv, msg, any };

struct FieldSpec {
  std::string_view name;
  FType type;
  bool repeated = false;
  int ref = -1;  // msg: index in kMessages; enumv: index in kEnums
};
struct MsgSpec {
  std::string_view name;
  bool closed;  // unknown field names are errors (else skipped unchecked)
  std::vector<FieldSpec> fields;
};

// The messages the model reads, as in protos/perfetto/config/trace_config.proto.
enum : int { kTraceConfig, kBufferConfig, kDataSource, kDataSourceConfig, kTriggerConfig, kTrigger, kIncremental };
enum : int { kFillPolicy, kTriggerMode };

const std::vector<std::vector<std::string_view>>& enums() {
  static const std::vector<std::vector<std::string_view>> e = {
      {"UNSPECIFIED", "RING_BUFFER", "DISCARD"},
      {"UNSPECIFIED", "START_TRACING", "STOP_TRACING", "", "CLONE_SNAPSHOT"},
  };
  return e;
}

const std::vector<MsgSpec>& messages() {
  static const std::vector<MsgSpec> m = {
      {"TraceConfig",
       true,
       {{"buffers", FType::msg, true, kBufferConfig},
        {"data_sources", FType::msg, true, kDataSource},
        {"builtin_data_sources", FType::any},
        {"duration_ms", FType::u32},
        {"prefer_suspend_clock_for_duration", FType::boolean},
        {"enable_extra_guardrails", FType::boolean},
        {"lockdown_mode", FType::any},
        {"producers", FType::any, true},
        {"statsd_metadata", FType::any},
        {"write_into_file", FType::boolean},
        {"output_path", FType::str},
        {"file_write_period_ms", FType::u32},
        {"max_file_size_bytes", FType::u64},
        {"guardrail_overrides", FType::any},
        {"deferred_start", FType::boolean},
        {"flush_period_ms", FType::u32},
        {"flush_timeout_ms", FType::u32},
        {"data_source_stop_timeout_ms", FType::u32},
        {"notify_traceur", FType::boolean},
        {"bugreport_score", FType::i32},
        {"bugreport_filename", FType::str},
        {"trigger_config", FType::msg, false, kTriggerConfig},
        {"activate_triggers", FType::str, true},
        {"incremental_state_config", FType::msg, false, kIncremental},
        {"allow_user_build_tracing", FType::boolean},
        {"unique_session_name", FType::str},
        {"compression_type", FType::any},
        {"compression", FType::any},
        {"incident_report_config", FType::any},
        {"statsd_logging", FType::any},
        {"trace_uuid_msb", FType::i64},
        {"trace_uuid_lsb", FType::i64},
        {"trace_filter", FType::any},
        {"android_report_config", FType::any},
        {"cmd_trace_start_delay", FType::any},
        {"session_semaphores", FType::any, true},
        {"priority_boost", FType::any},
        {"exclusive_prio", FType::u32},
        {"write_flush_mode", FType::any},
        {"fflush_post_write", FType::any},
        {"trace_all_machines", FType::boolean},
        {"trace_attributes", FType::any}}},
      {"BufferConfig",
       true,
       {{"size_kb", FType::u32},
        {"fill_policy", FType::enumv, false, kFillPolicy},
        {"transfer_on_clone", FType::boolean},
        {"clear_before_clone", FType::boolean},
        {"name", FType::str},
        {"experimental_mode", FType::any}}},
      {"DataSource",
       true,
       {{"config", FType::msg, false, kDataSourceConfig},
        {"producer_name_filter", FType::str, true},
        {"producer_name_regex_filter", FType::str, true},
        {"machine_name_filter", FType::str, true}}},
      // Hundreds of per-source fields: only the name is read, the rest skipped.
      {"DataSourceConfig", false, {{"name", FType::str}, {"target_buffer", FType::u32}}},
      {"TriggerConfig",
       true,
       {{"trigger_mode", FType::enumv, false, kTriggerMode},
        {"use_clone_snapshot_if_available", FType::boolean},
        {"triggers", FType::msg, true, kTrigger},
        {"trigger_timeout_ms", FType::u32}}},
      {"Trigger",
       true,
       {{"name", FType::str},
        {"producer_name_regex", FType::str},
        {"stop_delay_ms", FType::u32},
        {"max_per_24_h", FType::u32},
        {"skip_probability", FType::dbl}}},
      {"IncrementalStateConfig", true, {{"clear_period_ms", FType::u32}}},
  };
  return m;
}

const char* type_name(FType t) {
  switch (t) {
    case FType::u32: return "uint32";
    case FType::u64: return "uint64";
    case FType::i32: return "int32";
    case FType::i64: return "int64";
    case FType::dbl: return "double";
    case FType::boolean: return "bool";
    case FType::str: return "string";
    case FType::enumv: return "enum";
    case FType::msg: return "message";
    case FType::any: return "any";
  }
  return "?";
}

bool ident_start(char c) { return text::is_alpha(c) || c == '_'; }
using text::is_word_char;
using text::is_ascii_space;

// Where a token starts, as perfetto's lexer counts: rows from 1; columns
// from 0 on the first row and from 1 after each newline.
struct Pos {
  std::size_t row = 1, col = 0;
};

class TxtParser {
 public:
  TxtParser(std::string_view text, std::string_view file) : text_(text), file_(file) {}

  std::optional<PerfettoConfig> run(std::string* err) {
    ctx_.push_back({kTraceConfig, {}});
    lex();
    if (!errors_.empty()) {
      *err = errors_;
      return std::nullopt;
    }
    return cfg_;
  }

 private:
  struct Ctx {
    int msg;  // -1: skipped subtree
    std::set<std::string, std::less<>> seen;
  };
  enum class Kind : std::uint8_t { number, ident, string, open };

  void error(Pos p, std::size_t length, const std::string& message) {
    const std::size_t row = p.row > 0 ? p.row - 1 : 0;
    const std::size_t col = p.col > 0 ? p.col - 1 : 0;
    std::size_t start = 0;
    for (std::size_t r = 0; r < row && start < text_.size(); ++r) {
      const std::size_t nl = text_.find('\n', start);
      start = nl == std::string_view::npos ? text_.size() : nl + 1;
    }
    std::size_t end = text_.find('\n', start);
    if (end == std::string_view::npos) end = text_.size();
    std::string guide(col + length, ' ');
    for (std::size_t i = col; i < col + length; ++i) guide[i] = i == col ? '^' : '~';
    errors_ += std::string(file_) + ":" + std::to_string(row + 1) + ":" + std::to_string(col + 1) + " error: " +
               message + "\n" + std::string(text_.substr(start, end - start)) + "\n" + guide + "\n";
  }

  // The field `key` of the current message, checked as perfetto checks it;
  // nullptr when unknown (an error in a closed message) or of another type.
  const FieldSpec* field(std::string_view key, Pos kpos, Kind kind, std::string_view value, Pos vpos,
                         std::size_t vlen) {
    Ctx& c = ctx_.back();
    if (c.msg < 0) return nullptr;
    const MsgSpec& m = messages()[static_cast<std::size_t>(c.msg)];
    const FieldSpec* f = nullptr;
    for (const auto& cand : m.fields) {
      if (cand.name == key) f = &cand;
    }
    if (!f) {
      if (m.closed) error(kpos, key.size(), "No field named \"" + std::string(key) + "\" in proto " + std::string(m.name));
      return nullptr;
    }
    if (!c.seen.insert(std::string(key)).second && !f->repeated) {
      error(kpos, key.size(), "Saw non-repeating field '" + std::string(key) + "' more than once");
    }
    bool ok = f->type == FType::any;
    switch (kind) {
      case Kind::number:
        ok = ok || f->type == FType::u32 || f->type == FType::u64 || f->type == FType::i32 || f->type == FType::i64 ||
             f->type == FType::dbl;
        break;
      case Kind::ident: ok = ok || f->type == FType::boolean || f->type == FType::enumv; break;
      case Kind::string: ok = ok || f->type == FType::str; break;
      case Kind::open: ok = ok || f->type == FType::msg; break;
    }
    if (!ok) {
      error(vpos, vlen,
            "Expected value of type " + std::string(type_name(f->type)) + " for field " + std::string(key) +
                " in proto " + std::string(m.name) + " instead saw '" + std::string(value) + "'");
      return nullptr;
    }
    return f->type == FType::any ? nullptr : f;
  }

  int msg() const { return ctx_.back().msg; }

  void on_number(std::string_view key, Pos kpos, std::string_view v, Pos vpos) {
    const FieldSpec* f = field(key, kpos, Kind::number, v, vpos, v.size());
    if (!f) return;
    if (f->type == FType::dbl) return;  // skip_probability: read, not modelled
    const bool negative = !v.empty() && v[0] == '-';
    std::uint64_t n = 0;
    bool digits = false, overflow = false;
    for (const char ch : v.substr(negative ? 1 : 0)) {
      if (ch < '0' || ch > '9') break;
      digits = true;
      if (n > (UINT64_MAX - 9) / 10) overflow = true;
      n = n * 10 + static_cast<std::uint64_t>(ch - '0');
    }
    const std::uint64_t max = f->type == FType::u32 ? UINT32_MAX : f->type == FType::i32 ? INT32_MAX : UINT64_MAX;
    if (!digits || overflow || n > max || (negative && (f->type == FType::u32 || f->type == FType::u64))) {
      // perfetto aborts on a CHECK here; the simulator reports it instead.
      error(vpos, v.size(), "Value '" + std::string(v) + "' out of range for field " + std::string(key));
      return;
    }
    const auto u32 = static_cast<std::uint32_t>(n);
    switch (msg()) {
      case kTraceConfig:
        if (key == "duration_ms") cfg_.duration_ms = u32;
        break;
      case kBufferConfig:
        if (key == "size_kb") cfg_.buffer_kb.back() = u32;
        break;
      case kTriggerConfig:
        if (key == "trigger_timeout_ms") cfg_.trigger_timeout_ms = u32;
        break;
      case kTrigger:
        if (key == "stop_delay_ms") cfg_.triggers.back().stop_delay_ms = u32;
        if (key == "max_per_24_h") cfg_.triggers.back().max_per_24_h = u32;
        break;
      default: break;
    }
  }

  void on_ident(std::string_view key, Pos kpos, std::string_view v, Pos vpos) {
    const FieldSpec* f = field(key, kpos, Kind::ident, v, vpos, v.size());
    if (!f) return;
    const std::string proto(messages()[static_cast<std::size_t>(msg())].name);
    if (f->type == FType::boolean) {
      if (v != "true" && v != "false") {
        error(vpos, v.size(),
              "Expected 'true' or 'false' for boolean field " + std::string(key) + " in proto " + proto +
                  " instead saw '" + std::string(v) + "'");
        return;
      }
      if (msg() == kTraceConfig && key == "write_into_file") cfg_.write_into_file = v == "true";
      return;
    }
    const auto& values = enums()[static_cast<std::size_t>(f->ref)];
    const auto it = std::find(values.begin(), values.end(), v);
    if (v.empty() || it == values.end()) {
      error(vpos, v.size(),
            "Unexpected value '" + std::string(v) + "' for enum field " + std::string(key) + " in proto " + proto);
      return;
    }
    if (msg() == kTriggerConfig && key == "trigger_mode") {
      cfg_.trigger_mode = static_cast<std::uint32_t>(it - values.begin());
    }
  }

  void on_string(std::string_view key, Pos kpos, std::string_view raw, Pos vpos) {
    const FieldSpec* f = field(key, kpos, Kind::string, raw, vpos, raw.size());
    if (!f) return;
    // Escapes: the usual C ones and \NNN octal.
    std::string s;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '"') {
        // Adjacent literals: skip to the opening quote of the next one.
        for (++i; i < raw.size() && raw[i] != '"'; ++i) {
          if (raw[i] == '#') i = std::min(raw.find('\n', i), raw.size() - 1);
        }
        continue;
      }
      if (raw[i] != '\\') {
        s += raw[i];
        continue;
      }
      const char e = i + 1 < raw.size() ? raw[++i] : '\\';
      switch (e) {
        case 'n': s += '\n'; break;
        case 't': s += '\t'; break;
        case 'r': s += '\r'; break;
        case '\\': case '\'': case '"': s += e; break;
        default:
          if (e >= '0' && e <= '3' && i + 2 < raw.size() && raw[i + 1] >= '0' && raw[i + 1] <= '7' &&
              raw[i + 2] >= '0' && raw[i + 2] <= '7') {
            s += static_cast<char>((e - '0') * 64 + (raw[i + 1] - '0') * 8 + (raw[i + 2] - '0'));
            i += 2;
            break;
          }
          error(vpos, raw.size(),
                "Unknown string escape in " + std::string(key) + " in proto " +
                    std::string(messages()[static_cast<std::size_t>(msg())].name) + ": '" + std::string(raw) + "'");
          return;
      }
    }
    switch (msg()) {
      case kTraceConfig:
        if (key == "unique_session_name") cfg_.unique_session_name = s;
        if (key == "activate_triggers") cfg_.activate_triggers.push_back(s);
        break;
      case kDataSourceConfig:
        if (key == "name") cfg_.data_sources.back() = s;
        break;
      case kTrigger:
        if (key == "name") cfg_.triggers.back().name = s;
        break;
      default: break;
    }
  }

  // False: stop parsing (perfetto gives up at a message it cannot enter).
  bool on_open(std::string_view key, Pos kpos, Pos vpos) {
    if (msg() < 0) {
      ctx_.push_back({-1, {}});
      return true;
    }
    const MsgSpec& m = messages()[static_cast<std::size_t>(msg())];
    const bool known = std::any_of(m.fields.begin(), m.fields.end(), [&](const FieldSpec& f) { return f.name == key; });
    const FieldSpec* f = field(key, kpos, Kind::open, "{", vpos, 1);
    if (!f) {
      // A field skipped unchecked (an open message's unknown one, `any`): enter it blind.
      const bool skip = (!known && !m.closed) ||
                        (known && std::any_of(m.fields.begin(), m.fields.end(),
                                              [&](const FieldSpec& g) { return g.name == key && g.type == FType::any; }));
      if (!skip) return false;
      ctx_.push_back({-1, {}});
      return true;
    }
    if (f->ref == kBufferConfig) cfg_.buffer_kb.push_back(0);
    if (f->ref == kDataSourceConfig) cfg_.data_sources.emplace_back();
    if (f->ref == kTrigger) cfg_.triggers.emplace_back();
    ctx_.push_back({f->ref, {}});
    return true;
  }

  // The lexer: perfetto's text format grammar (a number or identifier value
  // ends at a blank or `;`; the character that ends a key goes with it; one
  // optional `:`; adjacent string literals join).
  void lex() {
    enum class St : std::uint8_t { key_wait, key, value_wait, str, str_escape, str_cont, number, ident };
    St st = St::key_wait;
    Pos pos;
    bool colon = false, semicolon_ok = false, comment = false;
    std::size_t key_at = 0, depth = 0;
    Pos kpos, vpos;
    std::string_view key;
    for (std::size_t i = 0; i < text_.size(); ++i, ++pos.col) {
      const char c = text_[i];
      const bool last = i + 1 == text_.size();
      if (c == '\n') {
        pos.col = 0;
        ++pos.row;
        if (comment) {
          comment = false;
          continue;
        }
      }
      if (comment) continue;
      switch (st) {
        case St::key_wait:
          if (is_ascii_space(c)) continue;
          if (c == '#') {
            comment = true;
            continue;
          }
          if (c == '}') {
            if (depth == 0) {
              error(pos, 0, "Unmatched closing brace");
              return;
            }
            --depth;
            ctx_.pop_back();
            semicolon_ok = true;
            continue;
          }
          if (c == ';' && semicolon_ok) {
            semicolon_ok = false;
            continue;
          }
          if (ident_start(c)) {
            st = St::key;
            key_at = i;
            kpos = pos;
            colon = false;
            continue;
          }
          break;
        case St::key:
          if (is_word_char(c)) continue;
          key = text_.substr(key_at, i - key_at);
          st = St::value_wait;
          comment = c == '#';
          continue;
        case St::value_wait:
          if (is_ascii_space(c)) continue;
          if (c == '#') {
            comment = true;
            continue;
          }
          value_at_ = i;
          vpos = pos;
          if (c == ':' && !colon) {
            colon = true;
            continue;
          }
          if (c == '"') {
            st = St::str;
            continue;
          }
          if (c == '-' || c == '.' || (c >= '0' && c <= '9')) {
            st = St::number;
            continue;
          }
          if (ident_start(c)) {
            st = St::ident;
            continue;
          }
          if (c == '{') {
            ++depth;
            st = St::key_wait;
            if (!on_open(key, kpos, vpos)) return;
            continue;
          }
          break;
        case St::str:
          if (c == '\\') st = St::str_escape;
          if (c == '"') {
            st = St::str_cont;
            string_end_ = i;
          }
          continue;
        case St::str_escape:
          st = St::str;
          continue;
        case St::str_cont:
          if (is_ascii_space(c)) continue;
          if (c == '#') {
            comment = true;
            continue;
          }
          if (c == '"') {
            st = St::str;  // adjacent literals are one string
            continue;
          }
          emit_string(key, kpos, vpos);
          st = St::key_wait;
          semicolon_ok = true;
          // This character starts what follows: look at it again.
          --i;
          --pos.col;
          continue;
        case St::number:
        case St::ident: {
          const bool number = st == St::number;
          const bool ends = is_ascii_space(c) || c == ';' || (!number && c == '#') || last;
          if (ends) {
            const bool keep = last && !is_ascii_space(c) && c != ';' && (number || c != '#');
            const std::string_view v = text_.substr(value_at_, i - value_at_ + (keep ? 1 : 0));
            if (number) on_number(key, kpos, v, vpos);
            else on_ident(key, kpos, v, vpos);
            st = St::key_wait;
            semicolon_ok = c != ';';
            comment = !number && c == '#';
            continue;
          }
          if (number ? (c == '.' || text::is_digit(c)) : is_word_char(c)) continue;
          break;
        }
      }
      error(pos, 0, std::string("Unexpected character '") + c + "'");
      return;
    }
    if (st == St::str_cont) {
      emit_string(key, kpos, vpos);
      st = St::key_wait;
    }
    if (depth > 0) error(pos, 0, "Nested message not closed");
    if (st != St::key_wait) error(pos, 0, "Unexpected end of input");
  }

  void emit_string(std::string_view key, Pos kpos, Pos vpos) {
    ++vpos.col;  // the token is the text inside the quotes
    on_string(key, kpos, text_.substr(value_at_ + 1, string_end_ - value_at_ - 1), vpos);
  }

  std::string_view text_, file_;
  PerfettoConfig cfg_;
  std::vector<Ctx> ctx_;
  std::string errors_;
  std::size_t value_at_ = 0, string_end_ = 0;
};

}  // namespace

std::optional<PerfettoConfig> parse_perfetto_txt(std::string_view text, std::string_view file_name, std::string* err) {
  return TxtParser(text, file_name).run(err);
}

// ---- trace bytes ------------------------------------------------------------

std::string TraceBytes::slice(std::uint64_t offset, std::size_t n) const {
  if (offset >= size_) return {};
  n = static_cast<std::size_t>(std::min<std::uint64_t>(n, size_ - offset));
  std::string out(n, '\0');
  // Pseudo-random words, addressed by their position: any range can be made alone.
  for (std::size_t i = 0; i < n;) {
    const std::uint64_t at = offset + i;
    const std::uint64_t word = splitmix(key_ ^ (at / 8) * 0xd1342543de82ef95ull);
    const auto shift = static_cast<unsigned>((at % 8) * 8);
    for (unsigned b = shift; b < 64 && i < n; b += 8) out[i++] = static_cast<char>((word >> b) & 0xff);
  }
  if (size_ < 5) return out;
  // TracePacket framing: packets of kPacket bytes, the last one taking a
  // remainder too short for a header of its own.
  const std::uint64_t whole = size_ / kPacket, rest = size_ % kPacket;
  const std::uint64_t packets = whole == 0 ? 1 : (rest >= 5 ? whole + 1 : whole);
  for (std::uint64_t k = offset / kPacket; k < packets && k * kPacket < offset + n; ++k) {
    const std::uint64_t start = k * kPacket;
    const std::uint64_t len = k + 1 == packets ? size_ - start : kPacket;
    const std::uint64_t payload = len - 3;  // a two-byte length (non-minimal below 128: still valid)
    const unsigned char head[5] = {0x0a, static_cast<unsigned char>(0x80 | (payload & 0x7f)),
                                   static_cast<unsigned char>(payload >> 7), 0x00, 0xff};
    for (std::uint64_t j = 0; j < 5; ++j) {
      if (start + j >= offset && start + j < offset + n) out[static_cast<std::size_t>(start + j - offset)] = static_cast<char>(head[j]);
    }
  }
  return out;
}

std::uint64_t TraceBytes::fnv1a64(std::uint64_t len) const {
  std::uint64_t h = 14695981039346656037ull;  // the FNV-1a 64 offset basis
  constexpr std::size_t kChunk = 1 << 20;
  for (std::uint64_t at = 0; at < std::min(len, size_); at += kChunk) {
    const std::string part = slice(at, static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, len - at)));
    for (const char c : part) {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
  }
  return h;
}

// ---- the device's perfetto -----------------------------------------------------

Perfetto::Perfetto(Device& dev)
    : dev_(dev), rng_(dev.config().seed ^ 0x7065726665747430ull), write_speed_(kDefaultWriteSpeed) {}

void Perfetto::boot(std::int64_t now) {
  now_ = now;
  next_pid_ = std::uniform_int_distribution<std::int32_t>(12000, 14000)(rng_);
  traced_pid_ = traced_probes_pid_ = 0;
  if (dev_.config().sdk < 29) return;  // the model starts at Android 10 (traced off by default before)
  // perfetto.rc: traced is `disabled`; `on property:persist.traced.enable=1`
  // makes the trace directory and starts traced and traced_probes. The
  // property is set by default from Android 11 (Model::Device), on 10 only
  // by some vendors (Pixels) or by hand.
  if (dev_.getprop("persist.traced.enable") != "1") return;
  trace_dir_ = true;
  // init starts traced and traced_probes early: low pids.
  auto low = [&] {
    std::int32_t p = 0;
    do {
      p = std::uniform_int_distribution<std::int32_t>(480, 900)(rng_);
    } while (dev_.pid_in_use(p) || p == traced_pid_);
    return p;
  };
  traced_pid_ = low();
  traced_probes_pid_ = low();
}

void Perfetto::traced_property_set(std::string_view value) {
  if (dev_.config().sdk < 29) return;
  if (value == "1" && !traced_pid_) {
    trace_dir_ = true;
    traced_pid_ = new_pid();
    traced_probes_pid_ = new_pid();
  } else if (value == "0" && traced_pid_) {
    // `stop traced`: every client loses the service; a session's file stays as far as it got.
    for (auto& [pid, p] : procs_) die(p);
    procs_.clear();
    trigger_history_.clear();
    traced_pid_ = traced_probes_pid_ = 0;
  }
}

void Perfetto::set_write_speed(std::uint64_t bytes_per_s) { write_speed_ = bytes_per_s ? bytes_per_s : kDefaultWriteSpeed; }

std::int32_t Perfetto::new_pid() {
  for (;;) {
    next_pid_ += std::uniform_int_distribution<std::int32_t>(1, 40)(rng_);
    if (next_pid_ > 32000) next_pid_ = 10000;
    if (!dev_.pid_in_use(next_pid_) && !procs_.count(next_pid_) && next_pid_ != traced_pid_ &&
        next_pid_ != traced_probes_pid_) {
      return next_pid_;
    }
  }
}

std::int64_t Perfetto::host_ms(std::int64_t mono) const {
  return (dev_.wall_of(mono) - dev_.clock_offset_ns()) / kMs;
}
std::int64_t Perfetto::device_ms(std::int64_t mono) const { return dev_.wall_of(mono) / kMs; }

// perfetto's stderr lines: "[SSS.mmm] " (wall seconds modulo 1000), then
// "file.cc:LINE" right-aligned in 23 columns, then the message.
std::string Perfetto::log_line(const char* file, int line, const std::string& msg) const {
  const std::int64_t ms = device_ms(now_);
  const std::string where = std::to_string(line);
  const int width = static_cast<int>(24 - where.size() - 2);
  return fmt("[%03d.%03d] %*s:%s ", static_cast<int>(ms / 1000 % 1000), static_cast<int>(ms % 1000), width,
             file, where.c_str()) +
         msg + "\n";
}

std::vector<std::int32_t> Perfetto::pids() const {
  std::vector<std::int32_t> v;
  for (const auto& [pid, p] : procs_) v.push_back(pid);
  return v;
}

bool Perfetto::is_process(std::int32_t pid) const { return procs_.count(pid) != 0; }

std::optional<std::string> Perfetto::cmdline(std::int32_t pid) const {
  const auto it = procs_.find(pid);
  if (it == procs_.end()) return std::nullopt;
  return it->second.cmdline;
}

bool Perfetto::file_exists(std::string_view path) const { return files_.find(path) != files_.end(); }

bool Perfetto::remove_file(std::string_view path) {
  const auto it = files_.find(path);
  if (it == files_.end()) return false;
  files_.erase(it);
  return true;
}

Perfetto::TraceRecord* Perfetto::record_of(const std::shared_ptr<TraceFile>& f) {
  if (!f || f->record == 0) return nullptr;
  for (auto& r : traces_) {
    if (r.id == f->record) return &r;
  }
  return nullptr;
}

TraceRead Perfetto::cat(std::string_view path) {
  TraceRead r;
  if (fail_pulls_ > 0) {
    --fail_pulls_;
    ++n_.pulls_failed;
    r.kind = TraceRead::Kind::denied;
    return r;
  }
  if (hang_pulls_) {
    ++n_.pulls_hung;
    r.kind = TraceRead::Kind::hang;
    return r;
  }
  const auto it = files_.find(path);
  if (it == files_.end()) {
    ++n_.pulls_missing;
    return r;
  }
  const TraceFile& f = *it->second;
  r.kind = TraceRead::Kind::data;
  r.content = f.content;
  r.length = f.length_at(now_);
  ++n_.pulls_served;
  n_.bytes_served += r.length;
  if (f.writing || r.length < f.content.size()) {
    ++n_.pulls_partial;
  } else if (TraceRecord* rec = record_of(it->second)) {
    if (rec->complete) ++rec->pulls;
  }
  return r;
}

std::string Perfetto::refusal(const PerfettoConfig& cfg) const {
  // traced's checks in the order it makes them (TracingServiceImpl::EnableTracing).
  if (cfg.duration_ms > kMaxDurationMs) {
    return fmt("Requested too long trace (%" PRIu32 "ms  > %" PRIu32 " ms)", cfg.duration_ms, kMaxDurationMs);
  }
  const bool triggers = cfg.trigger_mode != 0;
  if (triggers && (cfg.trigger_timeout_ms == 0 || cfg.trigger_timeout_ms > kMaxDurationMs)) {
    return fmt("Traces with START_TRACING triggers must provide a positive trigger_timeout_ms < 7 days (received %" PRIu32
               "ms)",
               cfg.trigger_timeout_ms);
  }
  if (triggers && cfg.duration_ms != 0) return "duration_ms was set, this must not be set for traces with triggers.";
  if ((cfg.trigger_mode == 2 || cfg.trigger_mode == 4) && cfg.write_into_file) {
    return "Specifying trigger mode STOP_TRACING/CLONE_SNAPSHOT and write_into_file together is unsupported";
  }
  std::set<std::string, std::less<>> names;
  for (const auto& t : cfg.triggers) {
    if (!names.insert(t.name).second) return "Duplicate trigger name: " + t.name;
  }
  if (!cfg.unique_session_name.empty()) {
    for (const auto& [pid, p] : procs_) {
      if (p.state != State::refused && p.cfg.unique_session_name == cfg.unique_session_name) {
        return "A trace with this unique session name (" + cfg.unique_session_name + ") already exists";
      }
    }
  }
  return {};
}

PerfettoRun Perfetto::run_perfetto(const std::vector<std::string>& argv, const std::string* stdin_text) {
  PerfettoRun r;
  const int sdk = dev_.config().sdk;
  auto usage = [&](PerfettoRun& run) {
    // Abbreviated: a real perfetto prints its whole option list here.
    run.err += "\nUsage: " + argv[0] + " [--background] --config FILE|- [--txt] --out FILE\n";
    run.exit = 1;
    return run;
  };
  auto not_simulated = [&](const std::string& what) {
    r.err += "perfetto: " + what + " is not simulated by jank_devsim\n";
    r.exit = 2;
    return r;
  };
  // getopt_long over the options of the release (Android 9's client knew no --txt).
  struct Opt {
    std::string_view name;
    char short_name;
    bool arg;
  };
  static const Opt kModern[] = {{"help", 'h', false},      {"config", 'c', true},     {"out", 'o', true},
                                {"background", 'd', false}, {"background-wait", 'D', false},
                                {"time", 't', true},       {"buffer", 'b', true},     {"size", 's', true},
                                {"app", 'a', true},        {"txt", 0, false},         {"upload", 0, false},
                                {"dropbox", 0, true},      {"query", 0, false},       {"query-raw", 0, false},
                                {"attach", 0, true},       {"detach", 0, true},       {"version", 0, false}};
  static const Opt kPie[] = {{"help", 'h', false},       {"config", 'c', true},      {"out", 'o', true},
                             {"background", 'b', false}, {"dropbox", 'd', true},     {"no-guardrails", 'n', false},
                             {"alert-id", 0, true},      {"config-id", 0, true},     {"config-uid", 0, true},
                             {"reset-guardrails", 0, false}};
  const Opt* opts = sdk >= 29 ? kModern : kPie;
  const std::size_t nopts = sdk >= 29 ? std::size(kModern) : std::size(kPie);
  std::optional<std::string> config_arg, out;
  bool background = false, txt = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const Opt* o = nullptr;
    std::optional<std::string> val;
    if (a.rfind("--", 0) == 0 && a.size() > 2) {
      const std::size_t eq = a.find('=');
      const std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      for (std::size_t k = 0; k < nopts; ++k) {
        if (opts[k].name == name) o = &opts[k];
      }
      if (!o) {
        r.err += "perfetto: unknown option -- " + name + "\n";
        return usage(r);
      }
      if (eq != std::string::npos) val = a.substr(eq + 1);
    } else if (a.size() >= 2 && a[0] == '-') {
      for (std::size_t k = 0; k < nopts; ++k) {
        if (opts[k].short_name == a[1]) o = &opts[k];
      }
      if (!o) {
        r.err += std::string("perfetto: unknown option -- ") + a[1] + "\n";
        return usage(r);
      }
      if (a.size() > 2) val = a.substr(2);
    } else {
      return not_simulated("a config from the command line (FTRACE_EVENT, ATRACE_CAT)");
    }
    if (o->arg && !val) {
      if (i + 1 >= argv.size()) {
        r.err += "perfetto: option requires an argument -- " + std::string(o->name) + "\n";
        return usage(r);
      }
      val = argv[++i];
    }
    const std::string_view name = o->name;
    if (name == "help") return usage(r);
    if (name == "config") config_arg = *val;
    else if (name == "out") out = *val;
    else if (name == "background" || name == "background-wait") background = true;
    else if (name == "txt") txt = true;
    else return not_simulated("--" + std::string(name));
  }
  if (!config_arg) return not_simulated("perfetto without --config");
  std::string raw;
  if (*config_arg == "-") {
    raw = stdin_text ? *stdin_text : std::string();
  } else {
    r.err += log_line("perfetto_cmd.cc", 362, "Could not open " + *config_arg +
                               ". If this is a permission denied error, try placing the config in "
                               "/data/misc/perfetto-configs: Perfetto should always be able to access this "
                               "directory. (errno: 2, No such file or directory)");
    r.exit = 1;
    return r;
  }
  if (raw.empty()) {
    r.err += log_line("perfetto_cmd.cc", 680, "The TraceConfig is empty");
    r.exit = 1;
    return r;
  }
  std::optional<PerfettoConfig> cfg;
  if (txt) {
    std::string err;
    cfg = parse_perfetto_txt(raw, *config_arg, &err);
    if (!cfg) r.err += err + "\n";
  }
  if (!cfg) {
    // Without --txt the bytes are a binary TraceConfig; a pipe of text is not one.
    r.err += log_line("perfetto_cmd.cc", 704, "The trace config is invalid, bailing out.");
    if (!txt && std::all_of(raw.begin(), raw.end(), [](char c) { return (c >= 32 && c <= 126) || (c >= 9 && c <= 13); })) {
      r.err += log_line("perfetto_cmd.cc", 706, "Looks like you are passing a textual config but I'm expecting a proto-encoded binary config.");
      r.err += log_line("perfetto_cmd.cc", 709, "Try adding --txt to the cmdline.");
    }
    r.exit = 1;
    return r;
  }
  if (!cfg->activate_triggers.empty()) {
    // The shorthand for trigger_perfetto: no session, no file.
    if (!traced_pid_) {
      // TriggerProducer never connects and gives up after 10 s (src/perfetto_cmd/trigger_producer.cc:41-51
      // at perfetto 011cf7ffbd); here at once.
      r.exit = 1;
      return r;
    }
    ++n_.trigger_calls;
    for (const auto& t : cfg->activate_triggers) trigger(t);
    return r;
  }
  if (!out) {
    r.err += log_line("perfetto_cmd.cc", 870, "Either --out or --upload is required");
    r.exit = 1;
    return r;
  }
  if (!background) return not_simulated("perfetto in the foreground (without --background)");
  // The client opens (creates, truncates) the output file before it
  // daemonizes: only the trace directory is writable by perfetto.
  const std::string& path = *out;
  const bool in_dir = path.rfind(kPerfettoTraceDir, 0) == 0 && path.size() > kPerfettoTraceDir.size();
  const bool flat = in_dir && path.find('/', kPerfettoTraceDir.size()) == std::string::npos;
  if (flat && !trace_dir_) {
    // Android 10 without persist.traced.enable=1: init never made the
    // directory. Android 10's client logs with its own format (no time,
    // colours; include/perfetto/base/logging.h PERFETTO_XLOG_STDERR and
    // OpenOutputFile's PERFETTO_PLOG, src/perfetto_cmd/perfetto_cmd.cc:863-867
    // and :537-539 at perfetto 011cf7ffbd).
    const std::string msg = "Failed to open " + path +
                            ". If you get permission denied in /data/misc/perfetto-traces, the file might have been "
                            "created by another user, try deleting it first. (errno: 2, No such file or directory)";
    r.err += sdk == 29 ? fmt("\x1b[90m%-24.24s\x1b[0m \x1b[31m%s\x1b[0m\n", "perfetto_cmd.cc:863", msg.c_str())
                       : log_line("perfetto_cmd.cc", 1352, msg);
    r.exit = 1;
    return r;
  }
  if (!flat) {
    r.err += log_line("perfetto_cmd.cc", 1352, "Failed to open " + path +
                                ". If you get permission denied in /data/misc/perfetto-traces, the file might have "
                                "been created by another user, try deleting it first. " +
                                (in_dir ? "(errno: 2, No such file or directory)" : "(errno: 13, Permission denied)"));
    r.exit = 1;
    return r;
  }
  auto file = std::make_shared<TraceFile>();
  files_[path] = file;
  Process p;
  p.pid = new_pid();
  p.session = ++sessions_;
  for (const auto& a : argv) p.cmdline += a + std::string(1, '\0');
  p.path = path;
  p.cfg = *cfg;
  p.file = file;
  // Without traced the background client cannot connect and gives up as a refused one does.
  const std::string why = traced_pid_ ? refusal(p.cfg) : std::string("traced is not running");
  if (!why.empty()) {
    p.state = State::refused;
    p.exit_at = now_ + kRefusedExitNs;
    ++n_.refused;
    last_refusal_ = why;
  } else {
    ++n_.started;
    if (p.cfg.trigger_mode != 0) p.timeout_at = now_ + std::int64_t{p.cfg.trigger_timeout_ms} * kMs;
    else if (p.cfg.duration_ms != 0) p.stop_at = now_ + std::int64_t{p.cfg.duration_ms} * kMs;
  }
  r.out = std::to_string(p.pid) + "\n";
  procs_.emplace(p.pid, std::move(p));
  return r;
}

PerfettoRun Perfetto::trigger_perfetto(const std::vector<std::string>& argv) {
  PerfettoRun r;
  std::vector<std::string> names;
  bool unknown = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "-h" || argv[i] == "--help") {
      r.err += log_line("trigger_perfetto.cc", 31, "\nUsage: " + argv[0] + " TRIGGER...\n  -h|--help  Show this message\n");
      r.exit = 1;
      return r;
    }
    if (argv[i].size() > 1 && argv[i][0] == '-') unknown = true;
    else names.push_back(argv[i]);
  }
  if (unknown) r.err += log_line("trigger_perfetto.cc", 78, "Ignoring unknown arguments. See --help for usage.");
  if (names.empty()) {
    r.err += log_line("trigger_perfetto.cc", 85, "At least one trigger must be specified.");
    r.err += log_line("trigger_perfetto.cc", 31, "\nUsage: " + argv[0] + " TRIGGER...\n  -h|--help  Show this message\n");
    r.exit = 1;
    return r;
  }
  if (!traced_pid_) {
    r.exit = 1;  // as above: no producer connection, exit 1 (after 10 s on a device)
    return r;
  }
  ++n_.trigger_calls;
  for (const auto& name : names) trigger(name);
  return r;
}

void Perfetto::trigger(const std::string& name) {
  // traced's ActivateTriggers: every session waiting for a trigger of that
  // name takes it once (within its max_per_24_h); STOP_TRACING stops
  // stop_delay_ms later.
  // Only names that matched are remembered: any name may be sent.
  static const std::deque<std::int64_t> kNone;
  auto found = trigger_history_.find(name);
  if (found != trigger_history_.end()) {
    while (!found->second.empty() && found->second.front() < now_ - 24 * 3600 * 1000 * kMs) found->second.pop_front();
  }
  const std::deque<std::int64_t>& history = found == trigger_history_.end() ? kNone : found->second;
  bool matched = false;
  for (auto& [pid, p] : procs_) {
    if (p.state != State::tracing || p.cfg.trigger_mode == 0 || p.triggered) continue;
    for (const auto& t : p.cfg.triggers) {
      if (t.name != name) continue;
      if (t.max_per_24_h > 0 && history.size() >= t.max_per_24_h) continue;
      matched = true;
      p.triggered = true;
      p.trigger = name;
      p.trigger_host_ms = host_ms(now_);  // now: a later clock step must not move it
      p.trigger_device_ms = device_ms(now_);
      p.stop_at = now_ + std::int64_t{t.stop_delay_ms} * kMs;
      ++n_.triggers_received;
      break;
    }
  }
  if (matched) trigger_history_[name].push_back(now_);
}

std::uint64_t Perfetto::next_trace_size(const Process& p) {
  if (trace_bytes_ > 0) return trace_bytes_;
  // A few tens of KiB, as a short ring buffer of sched and atrace events;
  // never more than the buffers hold.
  std::uint64_t n = 24 * 1024 + splitmix(dev_.config().seed ^ p.session) % (40 * 1024);
  std::uint64_t buffers = 0;
  for (const auto kb : p.cfg.buffer_kb) buffers += std::uint64_t{kb} * 1024;
  if (!p.cfg.buffer_kb.empty()) n = std::min(n, buffers);
  return n;
}

void Perfetto::write_out(Process& p, const std::string& how) {
  const std::uint64_t size = next_trace_size(p);
  const std::uint64_t key = splitmix(dev_.config().seed * 0x9e3779b97f4a7c15ull + p.session);
  TraceFile& f = *p.file;
  f.content = TraceBytes(key, size);
  f.length = 0;
  f.writing = true;
  f.write_from = now_ + kFlushNs;
  const long double write_ns = static_cast<long double>(size) * 1e9L / static_cast<long double>(write_speed_);
  f.write_to = f.write_from + static_cast<std::int64_t>(std::min(write_ns, 1e18L));
  p.state = State::writing;
  p.stop_at = p.timeout_at = INT64_MAX;
  p.exit_at = f.write_to;
  TraceRecord rec;
  rec.id = ++traces_written_;
  rec.session = p.session;
  rec.pid = p.pid;
  rec.foreign = p.foreign;
  rec.path = p.path;
  rec.how = how;
  rec.trigger = p.trigger;
  if (p.triggered) {
    rec.triggered_host_ms = p.trigger_host_ms;
    rec.triggered_device_ms = p.trigger_device_ms;
  }
  rec.stopped_host_ms = host_ms(now_);
  rec.file = p.file;
  f.record = rec.id;
  traces_.push_back(std::move(rec));
  if (traces_.size() > kMaxRecords) traces_.pop_front();
}

void Perfetto::end_empty(Process& p) {
  // traced returns no data for a session with triggers that never got one:
  // the file stays as the client created it, empty.
  p.state = State::ending;
  p.stop_at = p.timeout_at = INT64_MAX;
  p.exit_at = now_ + kEmptyExitNs;
}

void Perfetto::die(Process& p) {
  TraceFile& f = *p.file;
  if (f.writing) {
    f.length = f.length_at(now_);
    f.writing = false;
  }
}

void Perfetto::exit_process(std::map<std::int32_t, Process>::iterator it) {
  Process& p = it->second;
  TraceFile& f = *p.file;
  if (f.writing) {
    f.length = f.content.size();
    f.writing = false;
    if (TraceRecord* rec = record_of(p.file)) rec->complete = true;
  }
  // Since 2023 the client removes the empty file of a session the service
  // refused (perfetto_cmd's b/279753347 change): the path, whatever is there now.
  if (p.state == State::refused && dev_.config().sdk >= 34) remove_file(p.path);
  procs_.erase(it);
}

void Perfetto::advance(std::int64_t now) {
  for (;;) {
    auto best = procs_.end();
    std::int64_t t = INT64_MAX;
    for (auto it = procs_.begin(); it != procs_.end(); ++it) {
      const Process& p = it->second;
      const std::int64_t e = std::min({p.stop_at, p.timeout_at, p.exit_at});
      if (e < t) t = e, best = it;
    }
    if (best == procs_.end() || t > now) break;
    now_ = std::max(now_, t);
    Process& p = best->second;
    if (p.exit_at == t) {
      exit_process(best);
    } else if (p.stop_at == t) {
      write_out(p, p.triggered ? "trigger" : "duration");
    } else if (p.triggered) {
      p.timeout_at = INT64_MAX;  // a trigger overrides the timeout
    } else {
      ++n_.expired;
      end_empty(p);
    }
  }
  now_ = std::max(now_, now);
}

int Perfetto::signal(std::int32_t pid, int sig) {
  const auto it = procs_.find(pid);
  if (it == procs_.end()) return ESRCH;
  Process& p = it->second;
  if (sig == 0) return 0;
  // SIGINT/SIGTERM: perfetto's handler (installed with SA_RESETHAND) flushes
  // and disables tracing; a second one, or any other signal, kills it.
  const bool graceful = (sig == 2 || sig == 15) && p.sigterms == 0;
  if (!graceful) {
    ++n_.sigkilled;
    die(p);
    procs_.erase(it);
    return 0;
  }
  ++p.sigterms;
  if (p.state != State::tracing) return 0;  // already stopping
  ++n_.killed;
  // The read-back returns data if the session has no triggers or got one.
  if (p.triggered || p.cfg.trigger_mode == 0) write_out(p, "sigterm");
  else end_empty(p);
  return 0;
}

void Perfetto::reboot(std::int64_t now) {
  for (auto& [pid, p] : procs_) {
    if (p.state == State::tracing || p.state == State::writing) ++n_.rebooted;
    die(p);
  }
  procs_.clear();
  trigger_history_.clear();  // traced's memory
  boot(now);
}

std::int32_t Perfetto::start_foreign(double seconds, const std::string& unique_name, bool* refused) {
  Process p;
  p.pid = new_pid();
  p.session = ++sessions_;
  p.foreign = true;
  p.path = std::string(kPerfettoTraceDir) + "foreign_" + std::to_string(p.pid) + ".perfetto-trace";
  for (const std::string a : {"perfetto", "--background", "--txt", "-c", "/data/misc/perfetto-configs/foreign.pbtxt",
                              "-o", p.path.c_str()}) {
    p.cmdline += a + std::string(1, '\0');
  }
  p.cfg.unique_session_name = unique_name;
  p.cfg.buffer_kb = {32768};
  p.cfg.duration_ms = seconds > 0 ? static_cast<std::uint32_t>(std::min(seconds * 1000, 7.0 * 24 * 3600 * 1000)) : 0;
  p.file = std::make_shared<TraceFile>();
  files_[p.path] = p.file;
  const std::string why = refusal(p.cfg);
  *refused = !why.empty();
  if (*refused) {
    p.state = State::refused;
    p.exit_at = now_ + kRefusedExitNs;
    ++n_.refused;
    last_refusal_ = why;
  } else {
    ++n_.foreign;
    if (p.cfg.duration_ms) p.stop_at = now_ + std::int64_t{p.cfg.duration_ms} * kMs;
  }
  const std::int32_t pid = p.pid;
  procs_.emplace(pid, std::move(p));
  return pid;
}

std::size_t Perfetto::end_ours() {
  std::size_t n = 0;
  for (auto& [pid, p] : procs_) {
    if (p.foreign || p.state != State::tracing || p.cfg.trigger_mode == 0 || p.triggered) continue;
    ++n_.expired;
    ++n_.ended;
    end_empty(p);
    ++n;
  }
  return n;
}

Json Perfetto::truth() const {
  auto state_name = [](State s) {
    switch (s) {
      case State::refused: return "refused";
      case State::tracing: return "tracing";
      case State::writing: return "writing";
      case State::ending: return "ending";
    }
    return "?";
  };
  Json t;
  t["sessions_started"] = n_.started;
  t["foreign_started"] = n_.foreign;
  t["refused"] = n_.refused;
  t["expired"] = n_.expired;
  t["ended_by_control"] = n_.ended;
  t["killed"] = n_.killed;
  t["sigkilled"] = n_.sigkilled;
  t["ended_by_reboot"] = n_.rebooted;
  t["trigger_calls"] = n_.trigger_calls;
  t["triggers_received"] = n_.triggers_received;
  t["traces_written"] = traces_written_;
  t["last_refusal"] = last_refusal_;
  t["pulls_served"] = n_.pulls_served;
  t["pulls_partial"] = n_.pulls_partial;
  t["pulls_failed"] = n_.pulls_failed;
  t["pulls_hung"] = n_.pulls_hung;
  t["pulls_missing"] = n_.pulls_missing;
  t["bytes_served"] = n_.bytes_served;
  t["fail_pulls_left"] = fail_pulls_;
  t["hang_pulls"] = hang_pulls_;
  t["trace_bytes"] = trace_bytes_;
  t["write_bytes_per_s"] = write_speed_;
  t["traced_pid"] = traced_pid_;
  Json running = Json::array();
  for (const auto& [pid, p] : procs_) {
    running.push_back({{"pid", pid},
                       {"session", p.session},
                       {"foreign", p.foreign},
                       {"state", state_name(p.state)},
                       {"triggered", p.triggered},
                       {"unique_session_name", p.cfg.unique_session_name},
                       {"path", p.path}});
  }
  t["running"] = std::move(running);
  Json traces = Json::array();
  for (const auto& r : traces_) {
    const TraceFile& f = *r.file;
    const std::uint64_t len = f.length_at(now_);
    if (r.fnv_len != len) {
      r.fnv = f.content.fnv1a64(len);
      r.fnv_len = len;
    }
    const auto here = files_.find(r.path);
    traces.push_back({{"trace", r.id},
                      {"session", r.session},
                      {"pid", r.pid},
                      {"foreign", r.foreign},
                      {"how", r.how},
                      {"trigger", r.trigger},
                      {"path", r.path},
                      {"triggered_at_ms", r.triggered_host_ms},
                      {"device_triggered_at_ms", r.triggered_device_ms},
                      {"stopped_at_ms", r.stopped_host_ms},
                      {"size", f.content.size()},
                      {"bytes", len},
                      {"complete", r.complete},
                      {"writing", f.writing},
                      {"fnv1a64", fmt("%016" PRIx64, r.fnv)},
                      {"at_path", here != files_.end() && here->second == r.file},
                      {"pulls", r.pulls}});
  }
  t["traces"] = std::move(traces);
  return t;
}

}  // namespace jank::devsim
