// customResourceDefinition(): an apiextensions.k8s.io/v1 CustomResourceDefinition of one kind
// from what sets it apart, for the definitions the project's controllers install (KubeRay's
// RayCluster, Volcano's and scheduler-plugins' PodGroups, the Gateway API, ...).
//
// Every one of them has the same frame: one version, served and stored, with the status
// subresource, printer columns, and a structural schema whose top level is apiVersion, kind,
// metadata, spec and status. Only the names, the columns and the spec and status schemas differ,
// so those are what a caller writes; the rest is filled in as kube-apiserver defaults it
// (listKind <Kind>List, singular the kind in lower case, metadata.name <plural>.<group>).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/resource_registry.h"

namespace fakekube {

// What sets one custom kind's definition apart.
struct CustomResourceKind {
  std::string group;
  std::string version;
  std::string kind;
  std::string plural;
  bool namespaced = true;
  std::vector<std::string> shortNames;
  std::vector<std::string> categories;
  // metadata.annotations (api-approved.kubernetes.io for a group under k8s.io).
  std::vector<std::pair<std::string, std::string>> annotations;
  // additionalPrinterColumns (what `kubectl get` prints): name, type, jsonPath, description,
  // priority (1: only with -o wide).
  std::vector<PrinterColumn> printerColumns;
  // openAPIV3Schema's properties besides apiVersion, kind and metadata: {"spec": {...},
  // "status": {...}}.
  Json properties;
};

Json customResourceDefinition(const CustomResourceKind& kind);

// The YAML text of a schema the program itself holds as a constant, as JSON. Throws
// std::logic_error when it does not parse: that is a bug in the program, not bad input.
Json schemaFromYaml(const char* yaml);

}  // namespace fakekube
