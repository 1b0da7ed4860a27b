// ValidatePodSpec of kube-apiserver (pkg/apis/core/validation), for a Pod's spec and the pod
// templates of Deployments, ReplicaSets, DaemonSets, Jobs, CronJobs and ReplicationControllers
// (not StatefulSets': kube leaves those unvalidated), run after the defaults are filled, with
// kube's field paths and messages:
//
//   containers          Required when empty; each container: name Required and a DNS-1123 label,
//                       unique among containers and init containers (Duplicate value), image
//                       Required, terminationMessagePolicy File | FallbackToLogsOnError,
//                       ports (below), imagePullPolicy Always | IfNotPresent | Never, resources
//                       (below)
//   ports               name an IANA_SVC_NAME and unique in the container, containerPort Required
//                       and 1-65535, hostPort 1-65535 when set, protocol SCTP | TCP | UDP
//   resources           each name a standard container resource (cpu, memory,
//                       ephemeral-storage, hugepages-*) or a domain-prefixed extended resource,
//                       quantities not negative, requests <= limits ("must be less than or equal
//                       to cpu limit of 1"), extended resources: requests == limits
//   restartPolicy       Always | OnFailure | Never
//   dnsPolicy           ClusterFirstWithHostNet | ClusterFirst | Default | None
//   activeDeadlineSeconds  1 to 2147483647
//
// A quantity that does not parse never gets here: decoding rejects it (checkQuantities).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube::strategy {

// Appends the errors of the pod spec `spec` found at `path` ("spec", "spec.template.spec").
void validatePodSpec(FieldErrors& errors, const Json& spec, const std::string& path);

// The 400 kube-apiserver's decoder answers when a container's resources hold a quantity that does
// not parse: `Pod in version "v1" cannot be handled as a Pod: quantities must match the regular
// expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`, for the built-in kinds that hold a
// pod spec (a Pod's, a workload's template's).
std::optional<Status> checkQuantities(std::string_view apiVersion, std::string_view kind,
                                      const Json& object);

}  // namespace fakekube::strategy
