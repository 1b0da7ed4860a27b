// TlsCertificate: a certificate and its private key, PEM-encoded, for serving HTTPS.
//
// `fakekube serve --token` must serve HTTPS: Kubernetes clients (kubectl, client-go) send a
// bearer token only over TLS. A local development server has no certificate authority, so it
// makes its own self-signed certificate at start and writes it into the kubeconfig it hands out
// as the cluster's certificate-authority-data: clients then verify the server properly, with no
// --insecure-skip-tls-verify.
#pragma once

#include <string>
#include <vector>

#include "fakekube/api/status.h"

namespace fakekube {

struct TlsCertificate {
  std::string certificatePem;
  std::string privateKeyPem;
};

// A self-signed certificate (ECDSA P-256, SHA-256) for `hosts`: IP addresses and DNS names,
// all put in subjectAltName; the first is also the common name. Valid from an hour ago for a
// year (real clock: certificates are checked by other processes).
Result<TlsCertificate> makeSelfSignedCertificate(const std::vector<std::string>& hosts);

}  // namespace fakekube
