#include "controllers/ray/internal/naming.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "controllers/ray/constants.h"
#include "fakekube/api/object_meta.h"

namespace fakekube::ray {

namespace {

// Go's unicode.IsPunct for ASCII: the punctuation characters, not the symbols ($+<=>^`|~).
bool isPunct(char c) {
  return std::ispunct(static_cast<unsigned char>(c)) &&
         std::string_view("$+<=>^`|~").find(c) == std::string_view::npos;
}

std::string trimFront(std::string s, std::size_t maxLength) {
  if (s.size() > maxLength) s = s.substr(s.size() - maxLength);
  return s;
}

}  // namespace

std::string headServiceName(CrdType crdType, const Json& rayCluster, std::string_view ownerName) {
  std::string name = std::string(ownerName) + "-" + std::string(kHeadNode) + "-svc";
  if (crdType != CrdType::RayCluster) return name;
  const Json& head = headGroupSpec(rayCluster);
  auto service = head.find("headService");
  if (service != head.end() && service->is_object()) {
    auto metadata = service->find("metadata");
    if (metadata != service->end() && metadata->is_object()) {
      auto n = metadata->find("name");
      if (n != metadata->end() && n->is_string() && !n->get<std::string>().empty()) {
        return n->get<std::string>();
      }
    }
  }
  return name;
}

std::string fqdnServiceName(const Json& rayCluster, std::string_view ns,
                            std::string_view clusterDomain) {
  const std::string name = meta::name(rayCluster);
  std::string domain =
      clusterDomain.empty() ? std::string(kDefaultClusterDomain) : std::string(clusterDomain);
  return headServiceName(CrdType::RayCluster, rayCluster, name) + "." + std::string(ns) + ".svc." +
         domain;
}

std::string rayIpFromFqdn(std::string_view fqdn) {
  return std::string(fqdn.substr(0, fqdn.find('.')));
}

std::string podName(std::string_view prefix, std::string_view nodeType, bool isGenerateName) {
  constexpr std::size_t kMaxPrefixLength = 50;  // 63 - ("-worker-" + 5 random characters)
  std::string result(prefix.substr(0, std::min(prefix.size(), kMaxPrefixLength)));
  result += "-";
  result += nodeType;
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (isGenerateName) result += "-";
  return result;
}

std::string checkName(std::string s) {
  s = trimFront(std::move(s), 50);
  if (s.empty()) return s;
  if (std::isdigit(static_cast<unsigned char>(s[0]))) s[0] = 'r';
  if (isPunct(s[0])) s[0] = 'r';
  return s;
}

std::string checkLabel(std::string s) {
  s = trimFront(std::move(s), 63);
  if (!s.empty() && isPunct(s[0])) s[0] = 'r';
  return s;
}

std::string generateIdentifier(std::string_view clusterName, std::string_view nodeType) {
  return std::string(clusterName) + "-" + std::string(nodeType);
}

std::string headlessServiceName(std::string_view clusterName) {
  return std::string(clusterName) + "-" + std::string(kHeadlessServiceSuffix);
}

std::string headGroupServiceAccountName(const Json& rayCluster) {
  const std::string& name = stringField(podSpecOf(headGroupSpec(rayCluster)), "serviceAccountName");
  return name.empty() ? meta::name(rayCluster) : name;
}

std::string randomString(std::mt19937_64& random, int length) {
  // k8s.io/apimachinery/pkg/util/rand's alphabet: no vowels, no 0, 1 or 3.
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (int i = 0; i < length; ++i) out += kAlphabet[random() % kAlphabet.size()];
  return out;
}

std::string generateRayWorkerReplicaGroupName(std::string_view groupName, std::mt19937_64& random) {
  return std::string(groupName) + "-" + randomString(random, 5);
}

}  // namespace fakekube::ray
