// The names KubeRay gives what it creates for a RayCluster (controllers/ray/utils/util.go): the
// head Service and its DNS name, pod names and generateName prefixes, the identifier label, and
// the trimming rules that keep generated names within Kubernetes' 63-character limits.
//
//   head Service      <cluster>-head-svc, unless spec.headGroupSpec.headService.metadata.name
//                     names it (only for a RayCluster; RayJob and RayService head Services are
//                     always <owner>-head-svc)
//   FQDN              <service>.<namespace>.svc.<CLUSTER_DOMAIN, default cluster.local>
//   head pod          generateName <cluster>-head- (or the name <cluster>-head with
//                     ENABLE_DETERMINISTIC_HEAD_POD_NAME)
//   worker pods       generateName <cluster>-<group>-worker-; the prefix is cut to 50 characters
//                     and the result lowercased, leaving room for "-worker-" and the 5 random
//                     characters
//   ray.io/identifier <cluster>-head / <cluster>-worker, passed through checkLabel
//   autoscaler RBAC   the ServiceAccount: the head template's serviceAccountName, else
//                     <cluster>; the Role and RoleBinding: <cluster> (each through checkName)
//   replica groups    <group>-<5 random characters> (ray.io/worker-group-replica-name)
#pragma once

#include <random>
#include <string>
#include <string_view>

#include "controllers/ray/raycluster_types.h"
#include "fakekube/api/json.h"

namespace fakekube::ray {

// GenerateHeadServiceName for a RayCluster (crdType RayCluster) or a RayJob / RayService owner.
std::string headServiceName(CrdType crdType, const Json& rayCluster, std::string_view ownerName);
// GenerateFQDNServiceName: the head Service's cluster DNS name.
std::string fqdnServiceName(const Json& rayCluster, std::string_view ns,
                            std::string_view clusterDomain);
// ExtractRayIPFromFQDN: the part before the first '.'.
std::string rayIpFromFqdn(std::string_view fqdn);
// PodName: `prefix` cut to 50 characters, + "-" + nodeType, lowercased, + "-" when it is a
// generateName.
std::string podName(std::string_view prefix, std::string_view nodeType, bool isGenerateName);
// CheckName: at most 50 characters (the *front* is cut), and a leading digit or punctuation
// becomes 'r'.
std::string checkName(std::string s);
// CheckLabel: at most 63 characters (the front is cut), a leading punctuation becomes 'r'.
std::string checkLabel(std::string s);
// GenerateIdentifier: <cluster>-<nodeType>.
std::string generateIdentifier(std::string_view clusterName, std::string_view nodeType);
// <cluster>-headless: the Service of multi-host worker groups.
std::string headlessServiceName(std::string_view clusterName);
// GetHeadGroupServiceAccountName: the head template's serviceAccountName, else the cluster's
// name (not yet clipped by checkName).
std::string headGroupServiceAccountName(const Json& rayCluster);
// `length` characters of k8s.io/apimachinery/pkg/util/rand's alphabet (no vowels, no 0, 1 or 3),
// drawn from `random` (utilrand.String).
std::string randomString(std::mt19937_64& random, int length);
// GenerateRayWorkerReplicaGroupName: <group>-<5 random characters>.
std::string generateRayWorkerReplicaGroupName(std::string_view groupName, std::mt19937_64& random);

}  // namespace fakekube::ray
