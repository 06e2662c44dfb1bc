// A scriptable stand-in for the adb server on 127.0.0.1:<ephemeral>, for the
// error paths a real server never produces. Single-threaded: it runs on the
// test's io_context next to the client under test.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio.hpp>

#include "ingest/endpoint.h"

namespace jank::ingest::testing {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct FakeConnection {
  explicit FakeConnection(asio::io_context& io) : socket(io), timer(io) {}
  tcp::socket socket;
  asio::steady_timer timer;
  std::vector<std::string> requests;
  bool pipelined = false;  // bytes beyond a request arrived before it was answered
  char head[4] = {};
  std::string body;
};

class FakeAdbServer {
 public:
  enum class After { close, hang, next_request };
  struct Action {
    std::string reply;
    After after = After::close;
    std::chrono::milliseconds delay{0};  // before replying
  };
  using Responder = std::function<Action(const std::string& request, FakeConnection& connection)>;

  FakeAdbServer(asio::io_context& io, Responder responder)
      : io_(io), acceptor_(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)), responder_(std::move(responder)) {
    accept();
  }
  ~FakeAdbServer() { stop(); }

  AdbEndpoint endpoint() const { return {"127.0.0.1", acceptor_.local_endpoint().port()}; }

  // Every request seen, in arrival order.
  const std::vector<std::string>& requests() const { return requests_; }
  const std::vector<std::shared_ptr<FakeConnection>>& connections() const { return connections_; }
  std::size_t accepted() const { return connections_.size(); }

  // Writes to every open connection whose first request was `first_request`.
  void send(const std::string& first_request, const std::string& bytes) {
    for (auto& c : connections_) {
      if (c->socket.is_open() && !c->requests.empty() && c->requests.front() == first_request) {
        auto data = std::make_shared<std::string>(bytes);
        asio::async_write(c->socket, asio::buffer(*data), [c, data](boost::system::error_code, std::size_t) {});
      }
    }
  }

  // EOF on every open connection.
  void close_connections() {
    for (auto& c : connections_) {
      boost::system::error_code ignored;
      c->timer.cancel();
      c->socket.shutdown(tcp::socket::shutdown_both, ignored);
      c->socket.close(ignored);
    }
  }

  void stop() {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    close_connections();
  }

 private:
  void accept() {
    auto connection = std::make_shared<FakeConnection>(io_);
    acceptor_.async_accept(connection->socket, [this, connection](boost::system::error_code ec) {
      if (ec) return;
      connections_.push_back(connection);
      read_request(connection);
      accept();
    });
  }

  void read_request(const std::shared_ptr<FakeConnection>& c) {
    asio::async_read(c->socket, asio::buffer(c->head, 4), [this, c](boost::system::error_code ec, std::size_t) {
      if (ec) return;
      auto length = std::stoul(std::string(c->head, 4), nullptr, 16);
      c->body.assign(length, '\0');
      asio::async_read(c->socket, asio::buffer(c->body), [this, c](boost::system::error_code ec2, std::size_t) {
        if (ec2) return;
        c->requests.push_back(c->body);
        requests_.push_back(c->body);
        auto action = responder_(c->body, *c);
        // Give a pipelining client time to have sent its second request.
        c->timer.expires_after(action.delay + std::chrono::milliseconds(20));
        c->timer.async_wait([this, c, action](boost::system::error_code ec3) {
          if (ec3 || !c->socket.is_open()) return;
          boost::system::error_code ignored;
          if (c->socket.available(ignored) > 0) c->pipelined = true;
          reply(c, action);
        });
      });
    });
  }

  void reply(const std::shared_ptr<FakeConnection>& c, const Action& action) {
    auto data = std::make_shared<std::string>(action.reply);
    asio::async_write(c->socket, asio::buffer(*data), [this, c, data, action](boost::system::error_code ec, std::size_t) {
      if (ec) return;
      boost::system::error_code ignored;
      switch (action.after) {
        case After::close:
          c->socket.shutdown(tcp::socket::shutdown_both, ignored);
          c->socket.close(ignored);
          break;
        case After::hang: break;
        case After::next_request: read_request(c); break;
      }
    });
  }

  asio::io_context& io_;
  tcp::acceptor acceptor_;
  Responder responder_;
  std::vector<std::string> requests_;
  std::vector<std::shared_ptr<FakeConnection>> connections_;
};

// hex4 + payload, as the server frames replies.
inline std::string framed(const std::string& payload) {
  char head[5];
  std::snprintf(head, sizeof head, "%04x", static_cast<unsigned>(payload.size()));
  return std::string(head, 4) + payload;
}

// Runs the io_context until `done()` or the timeout; true if done.
template <typename Pred>
bool run_until(asio::io_context& io, Pred done, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    io.restart();
    io.run_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Runs the io_context for a while regardless.
inline void run_for(asio::io_context& io, std::chrono::milliseconds duration) {
  auto deadline = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < deadline) {
    io.restart();
    io.run_for(std::chrono::milliseconds(5));
  }
}

}  // namespace jank::ingest::testing
