#include "fakekube/cluster/internal/pod_template_hash.h"

#include <nlohmann/json.hpp>

namespace fakekube::workload {

std::uint32_t fnv32a(std::string_view bytes, std::uint32_t hash) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

std::string safeEncodeString(std::string_view text) {
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) out.push_back(kAlphabet[c % kAlphabet.size()]);
  return out;
}

std::string computePodTemplateHash(const Json& podTemplate,
                                   std::optional<std::int32_t> collisionCount) {
  std::uint32_t hash = fnv32a(podTemplate.dump());
  if (collisionCount) {
    auto count = static_cast<std::uint32_t>(*collisionCount);
    char bytes[4] = {static_cast<char>(count & 0xff), static_cast<char>((count >> 8) & 0xff),
                     static_cast<char>((count >> 16) & 0xff),
                     static_cast<char>((count >> 24) & 0xff)};
    hash = fnv32a(std::string_view(bytes, 4), hash);
  }
  return safeEncodeString(std::to_string(hash));
}

Json withoutPodTemplateHash(const Json& podTemplate) {
  Json copy = podTemplate;
  if (!copy.is_object()) return copy;
  auto metadata = copy.find("metadata");
  if (metadata == copy.end() || !metadata->is_object()) return copy;
  auto labels = metadata->find("labels");
  if (labels == metadata->end() || !labels->is_object()) return copy;
  labels->erase(std::string(kPodTemplateHashLabel));
  if (labels->empty()) metadata->erase("labels");
  return copy;
}

namespace {

void setDefault(Json& object, const char* key, const Json& value) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) object[key] = value;
}

// The template with the pod-spec fields the API server defaults filled in, so that a template
// written without them (an update or an apply does not default) equals the defaulted copy in a
// ReplicaSet.
Json withPodDefaults(Json podTemplate) {
  if (!podTemplate.is_object()) return podTemplate;
  auto spec = podTemplate.find("spec");
  if (spec == podTemplate.end() || !spec->is_object()) return podTemplate;
  setDefault(*spec, "restartPolicy", "Always");
  setDefault(*spec, "schedulerName", "default-scheduler");
  setDefault(*spec, "terminationGracePeriodSeconds", 30);
  setDefault(*spec, "dnsPolicy", "ClusterFirst");
  setDefault(*spec, "securityContext", Json::object());
  for (const char* list : {"containers", "initContainers"}) {
    auto containers = spec->find(list);
    if (containers == spec->end() || !containers->is_array()) continue;
    for (auto& c : *containers) {
      if (!c.is_object()) continue;
      setDefault(c, "terminationMessagePath", "/dev/termination-log");
      setDefault(c, "terminationMessagePolicy", "File");
      std::string image = c.value("image", "");
      std::string tail =
          image.substr(image.rfind('/') == std::string::npos ? 0 : image.rfind('/') + 1);
      bool latest = tail.find(':') == std::string::npos || tail.ends_with(":latest");
      if (image.find('@') != std::string::npos) latest = false;
      setDefault(c, "imagePullPolicy", latest ? "Always" : "IfNotPresent");
      if (auto ports = c.find("ports"); ports != c.end() && ports->is_array()) {
        for (auto& p : *ports) {
          if (p.is_object()) setDefault(p, "protocol", "TCP");
        }
      }
    }
  }
  return podTemplate;
}

}  // namespace

bool equalIgnoreHash(const Json& a, const Json& b) {
  return withPodDefaults(withoutPodTemplateHash(a)) == withPodDefaults(withoutPodTemplateHash(b));
}

}  // namespace fakekube::workload
