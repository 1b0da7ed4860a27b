// Metadata accessors over an object's JSON document.
//
// Objects stay JSON end to end so that no field a client sent is ever dropped; these free
// functions are the typed view of the part every object shares (metav1.ObjectMeta, TypeMeta).
// Getters never throw: a missing or badly typed field reads as empty. A string getter answers a
// reference into the document (or to a shared empty string), valid while the document lives and
// that member is not changed: controllers read these on every event, and a copy would allocate
// for every uid and most names. Take a copy (std::string x = meta::name(obj)) to keep one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"

namespace fakekube::meta {

// --- TypeMeta ---
const std::string& apiVersion(const Json& obj);
const std::string& kind(const Json& obj);

// --- ObjectMeta reads ---
const std::string& name(const Json& obj);
const std::string& generateName(const Json& obj);
const std::string& namespace_(const Json& obj);
const std::string& uid(const Json& obj);
const std::string& resourceVersion(const Json& obj);
std::int64_t generation(const Json& obj);
const std::string& creationTimestamp(const Json& obj);
const std::string& deletionTimestamp(const Json& obj);
bool isDeleting(const Json& obj);  // deletionTimestamp set
std::optional<std::int64_t> deletionGracePeriodSeconds(const Json& obj);
std::vector<std::string> finalizers(const Json& obj);
bool hasFinalizer(const Json& obj, std::string_view finalizer);
const std::string& label(const Json& obj, std::string_view key);  // "" when absent
std::optional<std::string> labelIfPresent(const Json& obj, std::string_view key);
const std::string& annotation(const Json& obj, std::string_view key);
// metadata.labels / annotations as stored (null when absent).
const Json& labels(const Json& obj);
const Json& annotations(const Json& obj);

// One entry of metadata.ownerReferences.
struct OwnerReference {
  std::string apiVersion;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool blockOwnerDeletion = false;
};
std::vector<OwnerReference> ownerReferences(const Json& obj);
// The reference with controller: true, if any.
std::optional<OwnerReference> controllerOf(const Json& obj);

// An owner reference read in place: views of the document's strings, valid as long as the
// document is. Every controller watching pods asks of every pod event whose pod it is; a view
// answers without building a string (a uid does not fit std::string's inline buffer).
struct OwnerReferenceView {
  std::string_view apiVersion;
  std::string_view kind;
  std::string_view name;
  std::string_view uid;
  bool controller = false;
  bool blockOwnerDeletion = false;

  OwnerReference owned() const;
};
std::vector<OwnerReferenceView> ownerReferenceViews(const Json& obj);
std::optional<OwnerReferenceView> controllerRefOf(const Json& obj);

// The API group of an apiVersion: "apps" of "apps/v1", "" of "v1" (GroupVersion::parse's group).
std::string_view groupOf(std::string_view apiVersion);
Json toJson(const OwnerReference& ref);
// An owner reference pointing at `owner` (controller and blockOwnerDeletion true), as
// metav1.NewControllerRef builds it.
OwnerReference controllerRefTo(const Json& owner);

// "ns/name" or "name" for cluster-scoped objects: the key a work queue uses.
std::string namespacedName(const Json& obj);

// --- ObjectMeta writes (create the metadata object when missing) ---
Json& metadata(Json& obj);
void setName(Json& obj, std::string_view name);
void setNamespace(Json& obj, std::string_view ns);
void setLabel(Json& obj, std::string_view key, std::string_view value);
void setAnnotation(Json& obj, std::string_view key, std::string_view value);
void addFinalizer(Json& obj, std::string_view finalizer);     // no-op when present
bool removeFinalizer(Json& obj, std::string_view finalizer);  // true when it was there
void setResourceVersion(Json& obj, std::string_view rv);
void addOwnerReference(Json& obj, const OwnerReference& ref);

}  // namespace fakekube::meta
