// Kubeconfig: where a cluster is and how to authenticate to it, read from a kubeconfig file the
// way kubectl reads it (clientcmd's loading rules, reduced to one file).
//
// What is read: the context named `context` (or current-context), its cluster (server,
// certificate-authority[-data], insecure-skip-tls-verify, tls-server-name) and its user (token,
// tokenFile, client-certificate[-data], client-key[-data], username/password), and the
// context's namespace ("default" when it names none). Exec and auth-provider plugins are not
// run: a kubeconfig that needs one is refused with a clear error rather than half-used.
//
// Every error is a 400-style Status whose message names the file and what is wrong with it, so
// a CLI can print it as it is.
#pragma once

#include <string>
#include <string_view>

#include "fakekube/api/status.h"

namespace fakekube {

struct Kubeconfig {
  // "https://127.0.0.1:6443" or "http://127.0.0.1:8080".
  std::string server;
  std::string namespace_ = "default";

  // TLS: PEM text (the *-data fields decoded, or the files they name read).
  std::string certificateAuthority;
  std::string clientCertificate;
  std::string clientKey;
  bool insecureSkipTlsVerify = false;
  std::string tlsServerName;

  // Authentication: a bearer token, or basic auth.
  std::string token;
  std::string username;
  std::string password;
};

// Reads `path`; `context` "" means the file's current-context.
Result<Kubeconfig> loadKubeconfig(const std::string& path, std::string_view context = "");
// Parses kubeconfig YAML text; `baseDir` resolves relative file references.
Result<Kubeconfig> parseKubeconfig(std::string_view yaml, std::string_view context = "",
                                   const std::string& baseDir = ".");

// The kubeconfig text kubectl needs to reach `server` (plain HTTP or HTTPS), with a bearer token
// when `token` is not empty and the server's CA certificate (PEM) when `certificateAuthority` is
// not empty: one cluster, user and context, all named `name`.
std::string renderKubeconfig(std::string_view server, std::string_view token,
                             std::string_view certificateAuthority = "",
                             std::string_view name = "fakekube");

}  // namespace fakekube
