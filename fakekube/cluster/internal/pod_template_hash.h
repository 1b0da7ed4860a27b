// The pod-template-hash: the label that ties a Deployment's ReplicaSet, and its pods, to one
// version of the pod template (controller.ComputeHash).
//
// Kubernetes hashes the Go struct of the template with FNV-32a (hashutil.DeepHashObject), adds
// status.collisionCount (as 4 little-endian bytes) when the Deployment has one, and writes the
// decimal value of the hash in the "safe" alphabet of rand.SafeEncodeString (no vowels, no
// confusable characters): each decimal digit d becomes alphabet[d % 27], so the label is 8 to 10
// characters of "bcdfghjklmnpqrstvwxz2456789". Here the template is hashed in its canonical JSON
// form (keys sorted) instead of Go's struct dump: the same template always gets the same hash and
// different templates almost surely different ones, which is the property controllers rely on;
// the exact value differs from a real cluster's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fakekube/api/json.h"

namespace fakekube::workload {

// DefaultDeploymentUniqueLabelKey.
inline constexpr std::string_view kPodTemplateHashLabel = "pod-template-hash";

// FNV-32a of `bytes`, continuing from `hash` (the offset basis by default).
std::uint32_t fnv32a(std::string_view bytes, std::uint32_t hash = 2166136261u);

// rand.SafeEncodeString.
std::string safeEncodeString(std::string_view text);

// The label value for `podTemplate` (a PodTemplateSpec) and the Deployment's collisionCount.
std::string computePodTemplateHash(const Json& podTemplate,
                                   std::optional<std::int32_t> collisionCount);

// `podTemplate` without the pod-template-hash label (what EqualIgnoreHash compares).
Json withoutPodTemplateHash(const Json& podTemplate);
// EqualIgnoreHash: the templates are the same but for the pod-template-hash label (and pod-spec
// defaults the API server fills in on create but not on every update).
bool equalIgnoreHash(const Json& a, const Json& b);

}  // namespace fakekube::workload
