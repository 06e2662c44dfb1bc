#include "exporters/http_server.h"

#include <fcntl.h>
#include <openssl/ssl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <list>
#include <stdexcept>
#include <thread>
#include <type_traits>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
// GCC 12 with the sanitizers sees a maybe-uninitialized boost::optional inside
// Beast's parser (a false positive in the library's code, not ours).
// (clang, for the fuzz build, has no such warning.)
#pragma GCC diagnostic push
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#pragma GCC diagnostic pop

#include "exporters/content_negotiation.h"
#include "exporters/regular_file.h"
#include "parsers/text_scan.h"

namespace jank::exporters {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* kLandingPage =
    "<!doctype html><html><head><title>jank_exporter</title></head><body>"
    "<h1>jank_exporter</h1><p>Android UI smoothness for Prometheus.</p>"
    "<ul><li><a href=\"/metrics\">/metrics</a></li><li><a href=\"/healthz\">/healthz</a></li>"
    "<li><a href=\"/readyz\">/readyz</a></li></ul></body></html>\n";

std::string base64_decode(std::string_view in) {
  static constexpr std::string_view chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned value = 0;
  int bits = -8;
  std::size_t padding = 0;
  for (char c : in) {
    // Padding ends the text: nothing but more padding may follow it.
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return {};
    const auto pos = chars.find(c);
    if (pos == std::string_view::npos) return {};
    value = (value << 6) + static_cast<unsigned>(pos);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((value >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

// Compares without an early exit so that timing does not reveal the prefix.
bool equal_constant_time(std::string_view a, std::string_view b) {
  unsigned diff = static_cast<unsigned>(a.size() ^ b.size());
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned>(a[i] ^ b[i % (b.empty() ? 1 : b.size())]);
  return diff == 0 && !b.empty();
}

// ":9789" → every IPv4 interface; "HOST:PORT"; "[V6]:PORT" ("[::]" also takes IPv4).
tcp::endpoint listen_endpoint(asio::io_context& io, const std::string& address) {
  std::string host, port;
  if (!address.empty() && address.front() == '[') {
    const auto close = address.find("]:");
    if (close == std::string::npos) throw std::runtime_error("cannot listen on " + address + ": bad address");
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    const auto colon = address.rfind(':');
    if (colon == std::string::npos) throw std::runtime_error("cannot listen on " + address + ": bad address");
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
  }
  if (host.empty()) host = "0.0.0.0";
  boost::system::error_code ec;
  tcp::resolver resolver(io);
  const auto results = resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) throw std::runtime_error("cannot listen on " + address + ": " + ec.message());
  return results.begin()->endpoint();
}

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return status < 400 ? "OK" : "Error";
  }
}

// A handler's exception, to the server's owner; a report that fails itself
// changes no answer.
void report_handler_error(const HttpOptions& options, std::string_view path, std::string_view what) noexcept {
  if (!options.on_handler_error) return;
  try {
    options.on_handler_error(path, what);
  } catch (...) {
  }
}

// What every connection shares, owned by the server.
struct Settings {
  HttpOptions options;
  HttpServer::MetricsSource metrics;
  std::function<bool()> ready;
  HttpServer::ApiHandler api;
  std::vector<FileRoute> routes;
};

// A file being served: read in chunks, so memory stays bounded whatever its size.
class FileSource {
 public:
  FileSource() = default;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() { close(); }

  // A regular file, opened: removing it afterwards does not stop the reads.
  // A symlink or FIFO put in its place is refused (exporters/regular_file.h):
  // the server serves the file the route named, and never blocks on open.
  bool open(const std::string& path) {
    close();
    std::uint64_t size = 0;
    fd_ = open_regular_file(path, &size);
    if (fd_ < 0) return false;
    left_ = size;
    size_ = left_;
    return true;
  }
  std::uint64_t size() const { return size_; }
  std::uint64_t left() const { return left_; }
  void skip_all() { left_ = 0; }
  // The next chunk into `buffer` (kChunk bytes): its size, 0 when the file
  // ended before its size said (truncated meanwhile) or could not be read.
  std::size_t read(char* buffer) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, left_));
    ssize_t n = -1;
    do {
      n = ::read(fd_, buffer, want);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return 0;
    left_ -= static_cast<std::uint64_t>(n);
    return static_cast<std::size_t>(n);
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  static constexpr std::size_t kChunk = 64 * 1024;

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0, left_ = 0;
};

// Safe inside a quoted header parameter.
bool header_safe_file_name(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

bool header_token(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name) {
    if (!is_token_char(c)) return false;
  }
  return true;
}

// No control character but tab: CR or LF would end the header line.
bool header_value(std::string_view value) {
  return std::none_of(value.begin(), value.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

using parsers::scan::equal_ignoring_case;

// A route's extra headers as header lines; nullopt when one is unfit (see
// FileResponse::headers). `cache_control`: the route sets its own.
std::optional<std::string> route_header_lines(const std::vector<std::pair<std::string, std::string>>& headers,
                                              bool& cache_control) {
  std::string out;
  cache_control = false;
  for (const auto& [name, value] : headers) {
    if (!header_token(name)) return std::nullopt;
    for (const char* own : {"Content-Type", "Content-Length", "Transfer-Encoding", "Connection"}) {
      if (equal_ignoring_case(name, own)) return std::nullopt;
    }
    if (!header_value(value)) return std::nullopt;
    cache_control = cache_control || equal_ignoring_case(name, "Cache-Control");
    out += name + ": " + value + "\r\n";
  }
  return out;
}

// The part of a connection the server sees: whether it may be closed to make
// room for a new one (waiting for a request, none of it received), and since when.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual void close() = 0;
  bool idle = true;
  Clock::time_point idle_since = Clock::now();
};

template <class Stream>
class Session final : public Connection, public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

 public:
  Session(Stream stream, const Settings& settings)
      : stream_(std::move(stream)),
        settings_(settings),
        // Room for a whole request head and a little more: the parser's own
        // limits (413) are met before the buffer's.
        buffer_(static_cast<std::size_t>(settings.options.max_request_bytes) + 1024) {}

  void start() {
    // From accept, a whole request (the TLS handshake included) within the request timeout.
    lowest().expires_after(settings_.options.request_timeout);
    if constexpr (kTls) {
      stream_.async_handshake(ssl::stream_base::server, [self = this->shared_from_this()](beast::error_code ec) {
        if (ec || self->closed_) return self->close();
        self->wait_request(true);
      });
    } else {
      wait_request(true);
    }
  }

  void close() override {
    if (closed_) return;
    closed_ = true;
    beast::error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    lowest().close();  // pending operations end with operation_aborted; their handlers release this
  }

 private:
  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  // Waits for the first byte of a request: a kept-alive connection up to the
  // idle timeout, then the request timeout from that byte on.
  void wait_request(bool fresh) {
    idle = true;
    idle_since = Clock::now();
    if (buffer_.size() > 0) return read_request();  // pipelined
    if (!fresh) lowest().expires_after(settings_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(512), [self = this->shared_from_this(), fresh](beast::error_code ec,
                                                                                           std::size_t n) {
      if (ec || self->closed_) return self->close();
      self->buffer_.commit(n);
      if (!fresh) self->lowest().expires_after(self->settings_.options.request_timeout);
      self->read_request();
    });
  }

  void read_request() {
    idle = false;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(settings_.options.max_request_bytes));
    parser_->body_limit(static_cast<std::uint64_t>(settings_.options.max_request_bytes));
    // The head first: its framing is checked before any byte of a body is read.
    http::async_read_header(stream_, buffer_, *parser_, [self = this->shared_from_this()](beast::error_code ec,
                                                                                          std::size_t) {
      if (self->closed_) return;
      if (ec) return self->read_failed(ec);
      if (!self->framing_ok()) return self->reply_error(400, "Bad Request", "bad request framing\n");
      http::async_read(self->stream_, self->buffer_, *self->parser_,
                       [self](beast::error_code body_ec, std::size_t) {
                         if (self->closed_) return;
                         if (body_ec) return self->read_failed(body_ec);
                         self->handle();
                       });
    });
  }

  void read_failed(beast::error_code ec) {
    if (ec == http::error::header_limit || ec == http::error::body_limit || ec == http::error::buffer_overflow) {
      return reply_error(413, "Payload Too Large", "request too large\n");
    }
    // Malformed requests get 400; a client that went away or ran out of time is just closed.
    if (ec.category() == http::make_error_code(http::error::bad_method).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      return reply_error(400, "Bad Request", "bad request\n");
    }
    close();
  }

  // RFC 9112 §6.1 and §6.3: a request's body is framed by Content-Length, or
  // by a Transfer-Encoding whose one coding is chunked (the only one the
  // server decodes). Beast reads a body by Content-Length when
  // Transfer-Encoding ends in another coding ("xchunked", "chunked,
  // identity"), and as empty when there is no Content-Length either: a proxy
  // in front may frame the same bytes otherwise, and a request hidden in the
  // body would be read as the next one (request smuggling). So
  // Transfer-Encoding other than exactly "chunked", next to Content-Length,
  // or in an HTTP/1.0 request is refused with 400, and the connection closed.
  bool framing_ok() const {
    const auto& req = parser_->get();
    const auto [first, last] = req.equal_range(http::field::transfer_encoding);
    if (first == last) return true;
    if (req.version() < 11 || req.count(http::field::content_length) > 0) return false;
    std::size_t codings = 0;
    for (auto it = first; it != last; ++it) {
      std::string_view list(it->value().data(), it->value().size());
      while (true) {
        const auto comma = list.find(',');
        std::string_view coding = list.substr(0, comma);
        const auto begin = coding.find_first_not_of(" \t");
        coding = begin == std::string_view::npos ? std::string_view() : coding.substr(begin);
        coding = coding.substr(0, coding.find_last_not_of(" \t") + 1);
        if (!coding.empty()) {  // a list may hold empty elements (RFC 9110 §5.6.1)
          if (++codings > 1 || !equal_ignoring_case(coding, "chunked")) return false;
        }
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
      }
    }
    return codings == 1;
  }

  void handle() {
    const auto& req = parser_->get();
    keep_alive_ = req.keep_alive();
    head_only_ = req.method() == http::verb::head;
    const std::string_view target(req.target().data(), req.target().size());
    const auto question = target.find('?');
    const std::string_view path = target.substr(0, question);
    const std::string_view query = question == std::string_view::npos ? std::string_view() : target.substr(question + 1);
    // The runs API (docs/runs.md) is the only place that takes POST.
    const bool api = settings_.api && path.substr(0, 5) == "/api/";
    const bool post = req.method() == http::verb::post;
    if (req.method() != http::verb::get && !head_only_ && !(api && post)) {
      if (api) return reply(405, "Method Not Allowed", "text/plain", "GET or POST only\n", "Allow: GET, HEAD, POST\r\n");
      return reply(405, "Method Not Allowed", "text/plain", "GET only\n", "Allow: GET, HEAD\r\n");
    }
    if (path == "/healthz") return reply(200, "OK", "text/plain", "ok\n");
    if (path == "/readyz") {
      const auto ready = guarded(path, false, [this] { return !settings_.ready || settings_.ready(); });
      if (!ready) return;
      if (*ready) return reply(200, "OK", "text/plain", "ready\n");
      return reply(503, "Service Unavailable", "text/plain", "starting\n");
    }
    if (path == "/metrics") {
      if (!authorized()) return reply_unauthorized();
      return serve_metrics(path, query);
    }
    if (api) {
      if (!authorized()) return reply_unauthorized();
      const auto r = guarded(path, true, [&] {
        return settings_.api(ApiRequest{post ? "POST" : "GET", std::string(path), std::string(query), req.body()});
      });
      if (!r) return;
      if (!header_value(r->content_type)) return reply_internal_error(true);
      return reply(r->status, reason_phrase(r->status), r->content_type.c_str(), r->body);
    }
    for (const FileRoute& route : settings_.routes) {
      const bool match = route.exact ? path == route.prefix : path.starts_with(route.prefix);
      if (match && route.handler) return serve_files(route, path);
    }
    if (path != "/") return reply(404, "Not Found", "text/plain", "not found\n");
    if (!authorized()) return reply_unauthorized();
    return reply(200, "OK", "text/html; charset=utf-8", kLandingPage);
  }

  void serve_metrics(std::string_view path, std::string_view query) {
    // ?serial=S: one device. An empty, undecodable or over-long value is
    // refused rather than read as "every device".
    const QueryValue serial = query_parameter(query, "serial");
    if (serial.present && (!serial.valid || serial.value.empty() || serial.value.size() > 255)) {
      return reply(400, "Bad Request", "text/plain", "bad serial parameter\n");
    }
    const ExpositionFormat format = negotiate_format(accept_header());
    if (settings_.metrics) {
      auto exposition = guarded(path, false, [&] { return settings_.metrics(serial.value, format); });
      if (!exposition) return;
      exposition_ = std::move(*exposition);
    } else {
      exposition_ = {};
      finish_exposition(exposition_, format);
    }
    head_ = status_head(200, "OK", content_type(format), exposition_.size());
    std::vector<asio::const_buffer> buffers{asio::buffer(head_)};
    if (!head_only_) {
      for (const auto& f : exposition_.families) {
        if (!f.header.empty()) buffers.push_back(asio::buffer(f.header));
        if (!f.body.empty()) buffers.push_back(asio::buffer(f.body));
      }
    }
    write(std::move(buffers));
  }

  // Calls a handler the server was given (metrics, ready, api, a route's)
  // for `path`. What it throws costs that one request, never the server
  // thread: it is reported (HttpOptions::on_handler_error), answered 500
  // (JSON under /api/), and nullopt returned; the connection stays open.
  template <class F>
  std::optional<std::invoke_result_t<F>> guarded(std::string_view path, bool api, F&& handler) {
    try {
      return std::forward<F>(handler)();
    } catch (const std::exception& e) {
      report_handler_error(settings_.options, path, e.what());
    } catch (...) {
      report_handler_error(settings_.options, path, "unknown exception");
    }
    reply_internal_error(api);
    return std::nullopt;
  }

  void reply_internal_error(bool api) {
    if (api) return reply(500, "Internal Server Error", "application/json", "{\"error\":\"internal error\"}\n");
    reply(500, "Internal Server Error", "text/plain", "internal error\n");
  }

  void reply_unauthorized() {
    reply(401, "Unauthorized", "text/plain", "unauthorized\n", "WWW-Authenticate: Basic realm=\"jank_exporter\"\r\n");
  }

  // A FileRoute's path: its handler's body, or the file it names, streamed.
  void serve_files(const FileRoute& route, std::string_view path) {
    if (!authorized()) return reply_unauthorized();
    const auto handled = guarded(path, false, [&] { return route.handler(path); });
    if (!handled) return;
    const FileResponse& r = *handled;
    bool own_cache_control = false;
    auto extra = route_header_lines(r.headers, own_cache_control);
    if (!extra || !header_value(r.content_type)) {
      return reply(500, "Internal Server Error", "text/plain", "bad response header\n");
    }
    if (header_safe_file_name(r.attachment)) {
      *extra += "Content-Disposition: attachment; filename=\"" + r.attachment + "\"\r\n";
    }
    if (r.file.empty()) {
      return reply(r.status, reason_phrase(r.status), r.content_type.c_str(), r.body, extra->c_str(),
                   !own_cache_control);
    }
    // Gone since the handler looked (removed in between): as if never there.
    if (!file_.open(r.file)) return reply(404, "Not Found", "text/plain", "not found\n");
    head_ = status_head(r.status, reason_phrase(r.status), r.content_type.c_str(),
                        static_cast<std::size_t>(file_.size()), extra->c_str(), !own_cache_control);
    if (head_only_) file_.skip_all();
    buffers_ = {asio::buffer(head_)};
    stream_file();
  }

  // Writes what buffers_ holds and the file's next chunk, until the file is
  // sent; the response timeout runs per chunk.
  void stream_file() {
    if (file_.left() > 0) {
      if (!chunk_) chunk_ = std::make_unique<char[]>(FileSource::kChunk);
      const std::size_t n = file_.read(chunk_.get());
      // Shorter than the length announced: closing tells the client it is incomplete.
      if (n == 0) return close();
      buffers_.push_back(asio::buffer(chunk_.get(), n));
    }
    lowest().expires_after(settings_.options.response_timeout);
    asio::async_write(stream_, buffers_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
      if (self->closed_) return;
      self->buffers_.clear();
      if (ec) return self->close();
      if (self->file_.left() > 0) return self->stream_file();
      self->file_.close();
      self->chunk_.reset();  // a kept-alive connection holds no chunk buffer
      self->next_request();
    });
  }

  // Every Accept field of the request, as one list.
  std::string accept_header() const {
    std::string out;
    const auto [first, last] = parser_->get().equal_range(http::field::accept);
    for (auto it = first; it != last; ++it) {
      if (!out.empty()) out += ',';
      out.append(it->value().data(), it->value().size());
    }
    return out;
  }

  bool authorized() const {
    const auto& auth = settings_.options.basic_auth;
    if (!auth) return true;
    const auto& req = parser_->get();
    const auto it = req.find(http::field::authorization);
    if (it == req.end()) return false;
    std::string_view header(it->value().data(), it->value().size());
    // RFC 9110 §11.1: the scheme is case-insensitive; the credentials
    // (RFC 7617's token68) follow after one or more spaces or tabs.
    const auto gap = header.find_first_of(" \t");
    if (gap == std::string_view::npos || !equal_ignoring_case(header.substr(0, gap), "Basic")) return false;
    header.remove_prefix(gap);
    header.remove_prefix(std::min(header.size(), header.find_first_not_of(" \t")));
    header = header.substr(0, header.find_last_not_of(" \t") + 1);
    const std::string decoded = base64_decode(header);
    const auto colon = decoded.find(':');
    if (colon == std::string::npos) return false;
    const bool user_ok = equal_constant_time(std::string_view(decoded).substr(0, colon), auth->first);
    const bool password_ok = equal_constant_time(std::string_view(decoded).substr(colon + 1), auth->second);
    return user_ok && password_ok;
  }

  // `no_store`: the default Cache-Control (a route may send its own in `extra`).
  std::string status_head(int status, const char* text, const char* content_type, std::size_t length,
                          const char* extra = "", bool no_store = true) {
    // After a 400 or 413 the request may have been misread, and so may be
    // where the next one starts: the connection ends with this response.
    if (status == 400 || status == 413) keep_alive_ = false;
    return "HTTP/1.1 " + std::to_string(status) + " " + text + "\r\nContent-Type: " + content_type +
           "\r\nContent-Length: " + std::to_string(length) + "\r\n" + (no_store ? "Cache-Control: no-store\r\n" : "") +
           extra +
           (keep_alive_ ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n");
  }

  void reply(int status, const char* text, const char* content_type, std::string body, const char* extra = "",
             bool no_store = true) {
    head_ = status_head(status, text, content_type, body.size(), extra, no_store);
    body_ = std::move(body);
    std::vector<asio::const_buffer> buffers{asio::buffer(head_)};
    if (!head_only_ && !body_.empty()) buffers.push_back(asio::buffer(body_));
    write(std::move(buffers));
  }

  // The request could not be read whole: answer, then close.
  void reply_error(int status, const char* text, std::string body) {
    keep_alive_ = false;
    head_only_ = false;
    reply(status, text, "text/plain", std::move(body));
  }

  void write(std::vector<asio::const_buffer> buffers) {
    buffers_ = std::move(buffers);
    lowest().expires_after(settings_.options.response_timeout);
    asio::async_write(stream_, buffers_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
      if (self->closed_) return;
      self->exposition_ = {};
      self->body_.clear();
      self->buffers_.clear();
      if (ec) return self->close();
      self->next_request();
    });
  }

  // After a whole response: the next request of a kept-alive connection, else the end.
  void next_request() {
    if (!keep_alive_) return finish();
    parser_.reset();
    wait_request(false);
  }

  // Ends a connection after its last response so that the response arrives:
  // TLS says close_notify; plain TCP half-closes and drops what the client
  // still sends (closing with unread bytes would reset the connection and
  // could discard the response) for at most a second.
  void finish() {
    lowest().expires_after(std::chrono::seconds(1));
    if constexpr (kTls) {
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) { self->close(); });
    } else {
      beast::error_code ignored;
      lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
      drain();
    }
  }

  void drain() {
    buffer_.clear();
    lowest().async_read_some(buffer_.prepare(std::min<std::size_t>(4096, buffer_.max_size())),
                             [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                               if (ec || self->closed_) return self->close();
                               self->drain();
                             });
  }

  Stream stream_;
  const Settings& settings_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool keep_alive_ = false;
  bool head_only_ = false;
  bool closed_ = false;
  std::string head_, body_;
  Exposition exposition_;
  std::vector<asio::const_buffer> buffers_;
  FileSource file_;
  std::unique_ptr<char[]> chunk_;  // FileSource::kChunk bytes while a file is sent
};

// %XX escapes decoded, and '+' as a space when `plus_is_space` (a query);
// false when an escape is malformed.
bool decode_into(std::string_view raw, bool plus_is_space, std::string& out) {
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '+' && plus_is_space) {
      out.push_back(' ');
    } else if (raw[i] == '%') {
      const int hi = i + 2 < raw.size() ? parsers::scan::hex_value(raw[i + 1]) : -1;
      const int lo = i + 2 < raw.size() ? parsers::scan::hex_value(raw[i + 2]) : -1;
      if (hi < 0 || lo < 0) return false;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(raw[i]);
    }
  }
  return true;
}

}  // namespace

QueryValue query_parameter(std::string_view query, std::string_view name) {
  QueryValue out;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) != name) continue;
    out.present = true;
    const std::string_view raw = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    out.valid = decode_into(raw, true, out.value);
    return out;
  }
  return out;
}

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  if (!decode_into(text, false, out)) return std::nullopt;
  return out;
}

class HttpServer::Impl {
 public:
  Impl(const HttpOptions& options, MetricsSource metrics, std::function<bool()> ready, const Impl* previous,
       ApiHandler api, std::vector<FileRoute> routes)
      : settings_{options, std::move(metrics), std::move(ready), std::move(api), std::move(routes)}, acceptor_(io_) {
    if (options.tls) load_tls(*options.tls);
    boost::system::error_code ec;
    if (previous != nullptr && previous->settings_.options.listen_address == options.listen_address) {
      // The same listening socket, duplicated: see HttpServer's constructor.
      const int fd = ::fcntl(previous->listen_fd_, F_DUPFD_CLOEXEC, 0);
      if (fd < 0) throw std::runtime_error("cannot listen on " + options.listen_address + ": " + std::strerror(errno));
      acceptor_.assign(previous->protocol_, fd, ec);
      protocol_ = previous->protocol_;
      if (ec) {
        ::close(fd);
        throw std::runtime_error("cannot listen on " + options.listen_address + ": " + ec.message());
      }
    } else {
      const tcp::endpoint endpoint = listen_endpoint(io_, options.listen_address);
      protocol_ = endpoint.protocol();
      acceptor_.open(endpoint.protocol(), ec);
      if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
      if (!ec && endpoint.address().is_v6()) acceptor_.set_option(asio::ip::v6_only(false), ec);
      if (!ec) acceptor_.bind(endpoint, ec);
      if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
      if (ec) throw std::runtime_error("cannot listen on " + options.listen_address + ": " + ec.message());
    }
    listen_fd_ = acceptor_.native_handle();
    accept();
    thread_ = std::thread([this] { run(); });
  }

  ~Impl() {
    io_.stop();
    if (thread_.joinable()) thread_.join();
    // io_ goes before the members sessions refer to (declared above it),
    // and takes the pending handlers, hence the sessions, with it.
  }

  std::vector<int> ports() const { return {acceptor_.local_endpoint().port()}; }

 private:
  // The handlers the server was given are guarded one by one (Session::guarded);
  // this catches the rest (std::bad_alloc while writing a head, say). The
  // session whose completion handler threw is released with it, the others
  // go on: run() resumes where the exception left the io_context.
  void run() {
    for (;;) {
      try {
        io_.run();
        return;
      } catch (const std::exception& e) {
        report_handler_error(settings_.options, "", e.what());
      } catch (...) {
        report_handler_error(settings_.options, "", "unknown exception");
      }
    }
  }

  void load_tls(const TlsOptions& tls) {
    tls_.emplace(ssl::context::tls_server);
    tls_->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                      ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
    // Idle connections give their TLS buffers back: a thousand of them stay cheap.
    SSL_CTX_set_mode(tls_->native_handle(), SSL_MODE_RELEASE_BUFFERS);
    boost::system::error_code ec;
    tls_->use_certificate_chain_file(tls.certificate_file, ec);
    if (ec) throw std::runtime_error("http.tls.certificate_file " + tls.certificate_file + ": " + ec.message());
    tls_->use_private_key_file(tls.key_file, ssl::context::pem, ec);
    if (ec) throw std::runtime_error("http.tls.key_file " + tls.key_file + ": " + ec.message());
    if (SSL_CTX_check_private_key(tls_->native_handle()) != 1) {
      throw std::runtime_error("http.tls.key_file " + tls.key_file + ": key values mismatch with http.tls.certificate_file " +
                               tls.certificate_file);
    }
  }

  void accept() {
    acceptor_.async_accept(io_, [this](boost::system::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors, say: the connection waits in the backlog; try again shortly rather than spin.
        retry_.expires_after(std::chrono::milliseconds(100));
        retry_.async_wait([this](boost::system::error_code wait_ec) {
          if (!wait_ec) accept();
        });
        return;
      }
      // The next accept first: should admitting this one throw (run() reports
      // it), the server still takes connections.
      accept();
      admit(std::move(socket));
    });
  }

  void admit(tcp::socket socket) {
    sessions_.remove_if([](const std::weak_ptr<Connection>& w) { return w.expired(); });
    if (sessions_.size() >= static_cast<std::size_t>(std::max(1, settings_.options.max_connections))) {
      auto oldest = sessions_.end();
      std::shared_ptr<Connection> oldest_session;
      for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
        auto s = it->lock();
        if (s && s->idle && (!oldest_session || s->idle_since < oldest_session->idle_since)) {
          oldest = it;
          oldest_session = std::move(s);
        }
      }
      if (!oldest_session) {
        boost::system::error_code ignored;
        socket.close(ignored);  // every connection is busy with a request
        return;
      }
      oldest_session->close();
      sessions_.erase(oldest);
    }
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    if (tls_) {
      auto s = std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
          beast::ssl_stream<beast::tcp_stream>(beast::tcp_stream(std::move(socket)), *tls_), settings_);
      sessions_.push_back(s);
      s->start();
    } else {
      auto s = std::make_shared<Session<beast::tcp_stream>>(beast::tcp_stream(std::move(socket)), settings_);
      sessions_.push_back(s);
      s->start();
    }
  }

  Settings settings_;
  std::optional<ssl::context> tls_;
  std::list<std::weak_ptr<Connection>> sessions_;  // only touched on the server thread
  tcp protocol_ = tcp::v4();
  int listen_fd_ = -1;  // acceptor_'s, for a successor to duplicate
  asio::io_context io_{1};
  tcp::acceptor acceptor_;
  asio::steady_timer retry_{io_};
  std::thread thread_;
};

HttpServer::HttpServer(const HttpOptions& options, MetricsSource metrics, std::function<bool()> ready,
                       const HttpServer* previous, ApiHandler api, std::vector<FileRoute> routes)
    : impl_(std::make_unique<Impl>(options, std::move(metrics), std::move(ready),
                                   previous != nullptr ? previous->impl_.get() : nullptr, std::move(api),
                                   std::move(routes))) {}

HttpServer::~HttpServer() = default;

std::vector<int> HttpServer::ports() const { return impl_->ports(); }

}  // namespace jank::exporters
