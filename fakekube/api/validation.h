// Validation: the object-metadata rules of the Kubernetes API server, with its exact messages.
//
// These functions mirror k8s.io/apimachinery: pkg/util/validation (the Is* predicates, which return
// human-readable reasons), pkg/api/validation (name rules, annotations, owner references,
// finalizers, ValidateObjectMetaAccessor) and pkg/apis/meta/v1/validation (labels). Messages, field
// paths and the order in which errors are reported match Kubernetes byte for byte, because clients
// and tests compare them: `Status::invalid(...)` over the returned FieldErrors yields the same 422
// message a real server sends, e.g.
//
//   ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123
//   subdomain must consist of ...
//
// Two Kubernetes quirks are reproduced on purpose:
//   - Label-key, annotation-key and finalizer errors are reported on the map or list itself
//     ("metadata.labels", "metadata.finalizers"), with the offending key as the value; owner
//     reference errors use "metadata.ownerReferences.<field>" without an index. That is what
//     Kubernetes does, so that is what callers will see.
//   - A label value error is also reported on "metadata.labels", with the value as the value.
//
// Objects arrive as untyped JSON, so a field can hold the wrong type (a number where a string
// belongs, an array where an object belongs). Kubernetes would reject such a body while decoding;
// here it becomes an Invalid FieldError naming the field and the expected type. Nothing throws.
// JSON null counts as "absent", as it does when Go decodes into a struct.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fakekube/api/json.h"
#include "fakekube/api/status.h"

namespace fakekube {

// --- predicates (k8s.io/apimachinery/pkg/util/validation) ---
//
// Each returns the reasons the value is not valid; an empty vector means valid. Lengths are counted
// in bytes, as Go's len() does.

// A lowercase RFC 1123 subdomain (at most 253): "example.com". Most object names.
std::vector<std::string> isDns1123Subdomain(std::string_view value);
// A lowercase RFC 1123 label (at most 63): "my-name", "123-abc". Namespace names.
std::vector<std::string> isDns1123Label(std::string_view value);
// A DNS-1035 label (at most 63, starts with a letter): "my-name", "abc-123". Service names.
std::vector<std::string> isDns1035Label(std::string_view value);
// A qualified name: an optional DNS-subdomain prefix and '/', then a name part of at most 63
// alphanumerics, '-', '_' or '.' with alphanumeric ends: "example.com/MyName". Label keys,
// annotation keys (checked lowercased) and finalizers.
std::vector<std::string> isQualifiedName(std::string_view value);
// A label value: empty, or at most 63 alphanumerics, '-', '_' or '.' with alphanumeric ends.
std::vector<std::string> isValidLabelValue(std::string_view value);

// --- names (k8s.io/apimachinery/pkg/api/validation, ValidateNameFunc) ---

// The rule an object's name must follow. Which kind uses which rule is the caller's knowledge
// (most kinds and every custom resource: Dns1123Subdomain; Namespace: Dns1123Label; Service:
// Dns1035Label; RBAC roles and bindings: PathSegment).
enum class NameRule { Dns1123Subdomain, Dns1123Label, Dns1035Label, PathSegment };

// The reasons `name` breaks `rule`. With prefix = true the name is a generateName prefix: a
// trailing
// '-' is tolerated, exactly as Kubernetes' maskTrailingDash does it (which replaces the last TWO
// characters with "a", so "ab-" is checked as "a"; a quirk, kept), and PathSegment only checks for
// '/' and '%'.
std::vector<std::string> isValidName(std::string_view name, NameRule rule, bool prefix = false);

// One Invalid error at `field`, with `name` as the value, per reason from isValidName.
FieldErrors validateName(std::string_view name, NameRule rule,
                         std::string_view field = "metadata.name", bool prefix = false);

// --- metadata maps and lists ---
//
// Each accepts the JSON found at that place in the object (null = absent = valid) and reports on
// `field` and paths below it. Map entries are checked in key order (Kubernetes iterates a Go map,
// so its order is random; sorted is the deterministic choice).

// Keys must be qualified names, values label values (ValidateLabels). Both are reported on `field`
// itself: a bad key with the key as value, a bad value with the value as value.
FieldErrors validateLabels(const Json& labels, std::string_view field = "metadata.labels");

// Keys must be qualified names once lowercased; keys plus values must total at most 262144 bytes
// (TooLong on `field`: "must have at most 262144 bytes").
FieldErrors validateAnnotations(const Json& annotations,
                                std::string_view field = "metadata.annotations");

// Each finalizer must be a qualified name (reported on `field`, value the finalizer); "orphan" and
// "foregroundDeletion" may not both be present (Invalid on `field`, value the whole list rendered
// as Go's %#v: []string{"orphan", "foregroundDeletion"}). Kubernetes only warns about finalizers
// without a domain prefix; warnings are not errors and are not produced here.
FieldErrors validateFinalizers(const Json& finalizers, std::string field = "metadata.finalizers");

// Each reference needs an apiVersion with a version, a kind, a name and a uid (Invalid on
// `field`.apiVersion / .kind / .name / .uid); v1 Event may not be an owner; at most one reference
// may have controller: true (Invalid on `field`: "Only one reference can have Controller set to
// true. Found "true" in references for <Kind>/<name> and <Kind>/<name>", one error per extra
// controller).
FieldErrors validateOwnerReferences(const Json& refs,
                                    std::string field = "metadata.ownerReferences");

// --- whole metadata on create (ValidateObjectMetaAccessor) ---

// Validates `object`'s metadata the way the API server does on create, after generateName has been
// expanded (if it has not, a set generateName stands in for the missing name). In Kubernetes'
// order: generateName (as a name prefix), name (Required "name or generateName is required" when
// both are missing), namespace (namespaced: Required when empty, else a DNS-1123 label;
// cluster-scoped: Forbidden "not allowed on this type" when set), generation (not negative),
// labels, annotations, ownerReferences, finalizers. `object` must be a JSON object and its
// metadata, when present, an object.
FieldErrors validateObjectMetaOnCreate(const Json& object, NameRule nameRule, bool namespaced);

}  // namespace fakekube
