#include "fakekube/api/object_meta.h"

#include <nlohmann/json.hpp>

#include "fakekube/api/internal/json_build.h"
#include "fakekube/api/json_lookup.h"

namespace fakekube::meta {

namespace {

const Json& nullJson() {
  static const Json kNull;
  return kNull;
}

// Keys are string_views so that each comparison on the way down the object's map knows both
// lengths (a const char* key costs a strlen per comparison).
const Json& field(const Json& obj, std::string_view key) {
  const Json* found = jsonFind(obj, key);
  return found == nullptr ? nullJson() : *found;
}

const Json& metaField(const Json& obj, std::string_view key) {
  return field(field(obj, "metadata"), key);
}

const std::string& emptyString() {
  static const std::string kEmpty;
  return kEmpty;
}

const std::string& stringOf(const Json& j) {
  return j.is_string() ? j.get_ref<const std::string&>() : emptyString();
}

}  // namespace

const std::string& apiVersion(const Json& obj) { return stringOf(field(obj, "apiVersion")); }
const std::string& kind(const Json& obj) { return stringOf(field(obj, "kind")); }
const std::string& name(const Json& obj) { return stringOf(metaField(obj, "name")); }
const std::string& generateName(const Json& obj) {
  return stringOf(metaField(obj, "generateName"));
}
const std::string& namespace_(const Json& obj) { return stringOf(metaField(obj, "namespace")); }
const std::string& uid(const Json& obj) { return stringOf(metaField(obj, "uid")); }
const std::string& resourceVersion(const Json& obj) {
  return stringOf(metaField(obj, "resourceVersion"));
}

std::int64_t generation(const Json& obj) {
  const Json& g = metaField(obj, "generation");
  return g.is_number_integer() ? g.get<std::int64_t>() : 0;
}

const std::string& creationTimestamp(const Json& obj) {
  return stringOf(metaField(obj, "creationTimestamp"));
}
const std::string& deletionTimestamp(const Json& obj) {
  return stringOf(metaField(obj, "deletionTimestamp"));
}
bool isDeleting(const Json& obj) { return !deletionTimestamp(obj).empty(); }

std::optional<std::int64_t> deletionGracePeriodSeconds(const Json& obj) {
  const Json& g = metaField(obj, "deletionGracePeriodSeconds");
  if (!g.is_number_integer()) return std::nullopt;
  return g.get<std::int64_t>();
}

std::vector<std::string> finalizers(const Json& obj) {
  std::vector<std::string> out;
  const Json& f = metaField(obj, "finalizers");
  if (!f.is_array()) return out;
  for (const auto& e : f) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

bool hasFinalizer(const Json& obj, std::string_view finalizer) {
  const Json& f = metaField(obj, "finalizers");
  if (!f.is_array()) return false;
  for (const auto& e : f) {
    if (e.is_string() && e.get_ref<const std::string&>() == finalizer) return true;
  }
  return false;
}

const Json& labels(const Json& obj) { return metaField(obj, "labels"); }
const Json& annotations(const Json& obj) { return metaField(obj, "annotations"); }

std::optional<std::string> labelIfPresent(const Json& obj, std::string_view key) {
  const Json& l = labels(obj);
  if (!l.is_object()) return std::nullopt;
  auto it = l.find(key);
  if (it == l.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

const std::string& label(const Json& obj, std::string_view key) {
  const Json* value = jsonFind(labels(obj), key);
  return value == nullptr ? emptyString() : stringOf(*value);
}

const std::string& annotation(const Json& obj, std::string_view key) {
  const Json* value = jsonFind(annotations(obj), key);
  return value == nullptr ? emptyString() : stringOf(*value);
}

namespace {

bool isTrue(const Json& j) { return j.is_boolean() && j.get<bool>(); }

std::string_view stringViewOf(const Json& j) {
  return j.is_string() ? std::string_view(j.get_ref<const std::string&>()) : std::string_view();
}

// One walk over the reference's members (it has only the six below, normally) instead of a
// lookup for each, told apart by their length first: every controller watching pods decodes a
// pod's controller on every event.
OwnerReferenceView ownerReferenceOf(const Json& r) {
  OwnerReferenceView ref;
  for (const auto& [member, value] : r.get_ref<const Json::object_t&>()) {
    const std::string_view key = member;
    switch (key.size()) {
      case 3:
        if (key == "uid") ref.uid = stringViewOf(value);
        break;
      case 4:
        if (key == "kind") {
          ref.kind = stringViewOf(value);
        } else if (key == "name") {
          ref.name = stringViewOf(value);
        }
        break;
      case 10:
        if (key == "apiVersion") {
          ref.apiVersion = stringViewOf(value);
        } else if (key == "controller") {
          ref.controller = isTrue(value);
        }
        break;
      case 18:
        if (key == "blockOwnerDeletion") ref.blockOwnerDeletion = isTrue(value);
        break;
      default:
        break;
    }
  }
  return ref;
}

}  // namespace

OwnerReference OwnerReferenceView::owned() const {
  return {std::string(apiVersion), std::string(kind), std::string(name),
          std::string(uid),        controller,        blockOwnerDeletion};
}

std::vector<OwnerReferenceView> ownerReferenceViews(const Json& obj) {
  std::vector<OwnerReferenceView> out;
  const Json& refs = metaField(obj, "ownerReferences");
  if (!refs.is_array()) return out;
  out.reserve(refs.size());
  for (const auto& r : refs) {
    if (r.is_object()) out.push_back(ownerReferenceOf(r));
  }
  return out;
}

std::vector<OwnerReference> ownerReferences(const Json& obj) {
  std::vector<OwnerReference> out;
  const Json& refs = metaField(obj, "ownerReferences");
  if (!refs.is_array()) return out;
  for (const auto& r : refs) {
    if (r.is_object()) out.push_back(ownerReferenceOf(r).owned());
  }
  return out;
}

// Only the controller's reference is decoded.
std::optional<OwnerReferenceView> controllerRefOf(const Json& obj) {
  const Json& refs = metaField(obj, "ownerReferences");
  if (!refs.is_array()) return std::nullopt;
  for (const auto& r : refs) {
    if (!r.is_object()) continue;
    OwnerReferenceView ref = ownerReferenceOf(r);  // one walk, the controller flag included
    if (ref.controller) return ref;
  }
  return std::nullopt;
}

std::optional<OwnerReference> controllerOf(const Json& obj) {
  auto view = controllerRefOf(obj);
  if (!view) return std::nullopt;
  return view->owned();
}

std::string_view groupOf(std::string_view apiVersion) {
  const auto slash = apiVersion.find('/');
  return slash == std::string_view::npos ? std::string_view() : apiVersion.substr(0, slash);
}

Json toJson(const OwnerReference& ref) {
  Json j =
      jsonObject("apiVersion", ref.apiVersion, "kind", ref.kind, "name", ref.name, "uid", ref.uid);
  auto& members = j.get_ref<Json::object_t&>();
  if (ref.controller) members.emplace("controller", true);
  if (ref.blockOwnerDeletion) members.emplace("blockOwnerDeletion", true);
  return j;
}

OwnerReference controllerRefTo(const Json& owner) {
  return {apiVersion(owner), kind(owner), name(owner), uid(owner), true, true};
}

std::string namespacedName(const Json& obj) {
  std::string ns = namespace_(obj);
  return ns.empty() ? name(obj) : ns + "/" + name(obj);
}

Json& metadata(Json& obj) {
  Json& m = jsonMember(obj, "metadata");
  if (!m.is_object()) m = Json::object();
  return m;
}

void setName(Json& obj, std::string_view name) { jsonMember(metadata(obj), "name") = name; }
void setNamespace(Json& obj, std::string_view ns) { jsonMember(metadata(obj), "namespace") = ns; }

void setLabel(Json& obj, std::string_view key, std::string_view value) {
  Json& l = metadata(obj)["labels"];
  if (!l.is_object()) l = Json::object();
  l[std::string(key)] = value;
}

void setAnnotation(Json& obj, std::string_view key, std::string_view value) {
  Json& a = metadata(obj)["annotations"];
  if (!a.is_object()) a = Json::object();
  a[std::string(key)] = value;
}

void addFinalizer(Json& obj, std::string_view finalizer) {
  if (hasFinalizer(obj, finalizer)) return;
  Json& f = metadata(obj)["finalizers"];
  if (!f.is_array()) f = Json::array();
  f.push_back(finalizer);
}

bool removeFinalizer(Json& obj, std::string_view finalizer) {
  Json& m = metadata(obj);
  auto it = m.find("finalizers");
  if (it == m.end() || !it->is_array()) return false;
  bool removed = false;
  Json kept = Json::array();
  for (auto& e : *it) {
    if (e.is_string() && e.get_ref<const std::string&>() == finalizer) {
      removed = true;
    } else {
      kept.push_back(std::move(e));
    }
  }
  if (kept.empty()) {
    m.erase(it);
  } else {
    *it = std::move(kept);
  }
  return removed;
}

void setResourceVersion(Json& obj, std::string_view rv) { metadata(obj)["resourceVersion"] = rv; }

void addOwnerReference(Json& obj, const OwnerReference& ref) {
  Json& refs = metadata(obj)["ownerReferences"];
  if (!refs.is_array()) refs = Json::array();
  refs.push_back(toJson(ref));
}

}  // namespace fakekube::meta
