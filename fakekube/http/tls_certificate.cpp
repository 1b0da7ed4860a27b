#include "fakekube/http/tls_certificate.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace fakekube {
namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

Status failed(std::string_view what) {
  return Status::internal(fmt::format("cannot make a TLS certificate: {}", what));
}

std::string drain(BIO* bio) {
  char* data = nullptr;
  long length = BIO_get_mem_data(bio, &data);
  return length > 0 ? std::string(data, static_cast<std::size_t>(length)) : std::string();
}

bool isIpAddress(const std::string& host) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

}  // namespace

Result<TlsCertificate> makeSelfSignedCertificate(const std::vector<std::string>& hosts) {
  if (hosts.empty()) return tl::unexpected(failed("no host names"));
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return tl::unexpected(failed("key generation"));

  CertPtr cert(X509_new());
  if (!cert) return tl::unexpected(failed("X509_new"));
  X509_set_version(cert.get(), 2);  // v3
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());

  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("fakekube"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(hosts.front().c_str()), -1, -1,
                             0);
  X509_set_issuer_name(cert.get(), name);  // self-signed

  std::string altNames;
  for (const auto& host : hosts) {
    if (!altNames.empty()) altNames += ",";
    altNames += (isIpAddress(host) ? "IP:" : "DNS:") + host;
  }
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, cert.get(), cert.get(), nullptr, nullptr, 0);
  // The certificate is its own CA: clients trust it as the kubeconfig's certificate authority.
  const std::pair<int, std::string> extensions[] = {
      {NID_subject_alt_name, altNames},
      {NID_basic_constraints, "critical,CA:TRUE"},
      {NID_key_usage, "critical,digitalSignature,keyCertSign"},
      {NID_ext_key_usage, "serverAuth"},
  };
  for (const auto& [nid, value] : extensions) {
    X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
    if (extension == nullptr) return tl::unexpected(failed("extension " + value));
    X509_add_ext(cert.get(), extension, -1);
    X509_EXTENSION_free(extension);
  }
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) {
    return tl::unexpected(failed("signing"));
  }

  TlsCertificate out;
  BioPtr certBio(BIO_new(BIO_s_mem()));
  BioPtr keyBio(BIO_new(BIO_s_mem()));
  if (!certBio || !keyBio || PEM_write_bio_X509(certBio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(keyBio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1) {
    return tl::unexpected(failed("PEM encoding"));
  }
  out.certificatePem = drain(certBio.get());
  out.privateKeyPem = drain(keyBio.get());
  return out;
}

}  // namespace fakekube
