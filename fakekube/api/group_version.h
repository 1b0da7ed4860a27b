// Group/version/kind and group/version/resource names, as in
// k8s.io/apimachinery/pkg/runtime/schema.
#pragma once

#include <string>
#include <string_view>

namespace fakekube {

// A group and a resource (plural): how errors name what they are about ("configmaps",
// "widgets.example.com").
struct GroupResource {
  std::string group;
  std::string resource;

  // "configmaps" for the core group, "deployments.apps" otherwise (Kubernetes'
  // GroupResource.String).
  std::string str() const;
  bool operator==(const GroupResource&) const = default;
};

struct GroupVersionResource {
  std::string group;
  std::string version;
  std::string resource;

  GroupResource groupResource() const { return {group, resource}; }
  // "v1" or "apps/v1".
  std::string apiVersion() const;
  bool operator==(const GroupVersionResource&) const = default;
};

struct GroupVersionKind {
  std::string group;
  std::string version;
  std::string kind;

  std::string apiVersion() const;
  bool operator==(const GroupVersionKind&) const = default;
};

// Splits an apiVersion ("apps/v1", "v1") into group and version.
struct GroupVersion {
  std::string group;
  std::string version;
  static GroupVersion parse(std::string_view apiVersion);
  std::string str() const;
};

}  // namespace fakekube
