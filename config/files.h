// The files a configuration names, read and checked the way the daemon uses
// them: `--check-config` runs these so that a file the daemon would refuse
// at start (or at a reload) is refused before.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"

namespace jank::config {

// The password of http.basic_auth: the file's content without trailing line
// breaks; nullopt and `error` when unreadable or empty.
std::optional<std::string> read_password_file(const std::string& path, std::string& error);

// The certificate chain and private key of http.tls load as PEM and the key
// belongs to the certificate; "" or what is wrong, naming the file.
std::string check_tls_files(const TlsFiles& files);

// Every file and directory the configuration names: the password file, the
// TLS files, and the state directory (a directory, or not there yet). One
// message per problem, naming its key.
std::vector<std::string> check_named_files(const Config& config);

}  // namespace jank::config
