#include "config/files.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

namespace jank::config {
namespace {

namespace fs = std::filesystem;

std::string openssl_error() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  return buf;
}

// Only what no user could fix by running the check as the daemon's user:
// writability depends on who runs it (systemd's StateDirectory= creates the
// directory for the service user at start).
std::string check_state_dir(const std::string& dir) {
  std::error_code ec;
  for (fs::path p = fs::absolute(dir, ec); !ec && !p.empty(); p = p.parent_path()) {
    if (fs::exists(p, ec)) {
      if (!fs::is_directory(p, ec)) return "state_dir: " + p.string() + " is not a directory";
      return "";
    }
    if (p == p.parent_path()) break;
  }
  return ec ? "state_dir: " + dir + ": " + ec.message() : "";
}

}  // namespace

std::optional<std::string> read_password_file(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read http.basic_auth.password_file " + path;
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string password = text.str();
  while (!password.empty() && (password.back() == '\n' || password.back() == '\r')) password.pop_back();
  if (password.empty()) {
    error = "http.basic_auth.password_file " + path + " is empty";
    return std::nullopt;
  }
  return password;
}

std::string check_tls_files(const TlsFiles& files) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) return "http.tls: cannot create a TLS context: " + openssl_error();
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), files.certificate_file.c_str()) != 1) {
    return "http.tls.certificate_file " + files.certificate_file + ": " + openssl_error();
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_file(files.key_file.c_str(), "r"), BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
  if (!key) return "http.tls.key_file " + files.key_file + ": " + openssl_error();
  if (X509_check_private_key(SSL_CTX_get0_certificate(ctx.get()), key.get()) != 1) {
    ERR_clear_error();
    return "http.tls.key_file " + files.key_file + " does not belong to the certificate in " + files.certificate_file;
  }
  return "";
}

std::vector<std::string> check_named_files(const Config& config) {
  std::vector<std::string> problems;
  if (config.basic_auth) {
    std::string error;
    if (!read_password_file(config.basic_auth->password_file, error)) problems.push_back(error);
  }
  if (config.tls) {
    if (std::string e = check_tls_files(*config.tls); !e.empty()) problems.push_back(e);
  }
  if (std::string e = check_state_dir(config.state_dir); !e.empty()) problems.push_back(e);
  return problems;
}

}  // namespace jank::config
