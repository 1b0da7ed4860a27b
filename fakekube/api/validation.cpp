#include "fakekube/api/validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace fakekube {

namespace {

// --- the patterns and messages of k8s.io/apimachinery/pkg/util/validation ---
//
// The regexes are matched by hand below (they are all "charset with constrained ends"), but the
// text of each is kept because Kubernetes quotes it in its messages.

constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character";
constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";

constexpr size_t kDns1123SubdomainMaxLength = 253;
constexpr size_t kDns1123LabelMaxLength = 63;
constexpr size_t kDns1035LabelMaxLength = 63;
constexpr size_t kQualifiedNameMaxLength = 63;
constexpr size_t kLabelValueMaxLength = 63;
constexpr size_t kTotalAnnotationSizeLimitBytes = 256 * (1 << 10);

// MaxLenError.
std::string maxLenError(size_t length) {
  return fmt::format("must be no more than {} characters", length);
}

// RegexError. Each example is followed by "', " and examples are joined by " or ", which is where
// the double space in "'my-name',  or '123-abc'" comes from.
std::string regexError(std::string_view msg, std::string_view format,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    return out + " (regex used for validation is '" + std::string(format) + "')";
  }
  out += " (e.g. ";
  bool first = true;
  for (std::string_view example : examples) {
    if (!first) out += " or ";
    first = false;
    out += "'" + std::string(example) + "', ";
  }
  out += "regex used for validation is '" + std::string(format) + "')";
  return out;
}

// EmptyError.
constexpr std::string_view kEmptyError = "must be non-empty";

bool isLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool isAlnum(char c) { return isLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }

// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$
bool matchesDns1123Label(std::string_view s) {
  if (s.empty() || !isLowerAlnum(s.front()) || !isLowerAlnum(s.back())) return false;
  for (char c : s) {
    if (!isLowerAlnum(c) && c != '-') return false;
  }
  return true;
}

// Labels joined by single dots.
bool matchesDns1123Subdomain(std::string_view s) {
  while (true) {
    size_t dot = s.find('.');
    if (!matchesDns1123Label(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

// ^[a-z]([-a-z0-9]*[a-z0-9])?$
bool matchesDns1035Label(std::string_view s) {
  return matchesDns1123Label(s) && s.front() >= 'a' && s.front() <= 'z';
}

// ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$
bool matchesQualifiedNamePart(std::string_view s) {
  if (s.empty() || !isAlnum(s.front()) || !isAlnum(s.back())) return false;
  for (char c : s) {
    if (!isAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// maskTrailingDash: "if the name ends in '-', replace the last two characters with 'a'". The two is
// Kubernetes' off-by-one, kept so the same prefixes pass and fail. Go would panic on "-" alone
// (older releases guarded it with len > 1); the guard is the sane reading.
std::string maskTrailingDash(std::string_view name) {
  if (name.size() > 1 && name.back() == '-') {
    return std::string(name.substr(0, name.size() - 2)) + "a";
  }
  return std::string(name);
}

// IsValidPathSegmentName / IsValidPathSegmentPrefix (k8s.io/apimachinery/pkg/api/validation/path).
std::vector<std::string> pathSegmentErrors(std::string_view name, bool prefix) {
  if (!prefix) {
    if (name == ".") return {"may not be '.'"};
    if (name == "..") return {"may not be '..'"};
  }
  std::vector<std::string> errs;
  if (name.find('/') != std::string_view::npos) errs.push_back("may not contain '/'");
  if (name.find('%') != std::string_view::npos) errs.push_back("may not contain '%'");
  return errs;
}

// --- rendering bad values the way field.Error does ---

// Scalars as %v, strings as %q. Containers never reach Kubernetes' validators (its decoder rejects
// them first), so they are shown as compact JSON, which is what the user sent.
std::string renderJson(const Json& v) {
  if (v.is_string()) return goQuote(v.get_ref<const std::string&>());
  if (v.is_null()) return "null";
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Go's %#v of a []string: []string{"a", "b"}.
std::string renderGoStringSlice(const std::vector<std::string>& items) {
  std::string out = "[]string{";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += goQuote(items[i]);
  }
  return out + "}";
}

std::string jsonTypeName(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "object";
    case Json::value_t::array:
      return "array";
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::binary:
      return "binary";
    case Json::value_t::discarded:
      return "discarded";
    default:
      return "number";
  }
}

FieldError wrongType(std::string field, const Json& v, std::string_view expected) {
  return FieldError::invalid(std::move(field), renderJson(v),
                             fmt::format("must be {}, not {}", expected, jsonTypeName(v)));
}

// Go's field.Path.Key: metadata.labels[app].
std::string keyPath(const std::string& field, std::string_view key) {
  return fmt::format("{}[{}]", field, key);
}
std::string indexPath(const std::string& field, size_t i) {
  return fmt::format("{}[{}]", field, i);
}

void append(FieldErrors& to, FieldErrors from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// A string-valued field of an object: its value if it is a string, "" if absent or null, and a
// type error otherwise (then ok = false).
std::string stringField(const Json& obj, std::string_view key, std::string_view path,
                        FieldErrors& errs, bool& ok) {
  ok = true;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return "";
  if (!it->is_string()) {
    errs.push_back(wrongType(std::string(path), *it, "a string"));
    ok = false;
    return "";
  }
  return it->get_ref<const std::string&>();
}

// One owner reference, decoded leniently for the checks and the %#v rendering.
struct OwnerRef {
  std::string apiVersion, kind, name, uid;
  bool apiVersionOk = true, kindOk = true, nameOk = true, uidOk = true;
  int controller = -1;          // -1 nil, 0 false, 1 true
  int blockOwnerDeletion = -1;  // same
};

// Go's %#v of a *bool. Kubernetes prints the pointer's address, which differs on every run; a fixed
// Go-heap-looking address keeps the shape without pretending to be stable.
std::string renderGoBoolPtr(int v) { return v < 0 ? "(*bool)(nil)" : "(*bool)(0xc000000000)"; }

std::string renderGoOwnerRef(const OwnerRef& r) {
  return fmt::format(
      "v1.OwnerReference{{APIVersion:{}, Kind:{}, Name:{}, UID:{}, Controller:{}, "
      "BlockOwnerDeletion:{}}}",
      goQuote(r.apiVersion), goQuote(r.kind), goQuote(r.name), goQuote(r.uid),
      renderGoBoolPtr(r.controller), renderGoBoolPtr(r.blockOwnerDeletion));
}

std::string renderGoOwnerRefs(const std::vector<OwnerRef>& refs) {
  std::string out = "[]v1.OwnerReference{";
  for (size_t i = 0; i < refs.size(); ++i) {
    if (i > 0) out += ", ";
    out += renderGoOwnerRef(refs[i]);
  }
  return out + "}";
}

// schema.FromAPIVersionAndKind + ParseGroupVersion: "v1" -> ("", "v1"), "apps/v1" -> ("apps",
// "v1"), "" or anything with more than one '/' -> no version.
std::pair<std::string, std::string> parseApiVersion(std::string_view apiVersion) {
  size_t slash = apiVersion.find('/');
  if (slash == std::string_view::npos) return {"", std::string(apiVersion)};
  if (apiVersion.find('/', slash + 1) != std::string_view::npos) return {"", ""};
  return {std::string(apiVersion.substr(0, slash)), std::string(apiVersion.substr(slash + 1))};
}

}  // namespace

std::vector<std::string> isDns1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errs.push_back(maxLenError(kDns1123SubdomainMaxLength));
  }
  if (!matchesDns1123Subdomain(value)) {
    errs.push_back(regexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> isDns1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1123LabelMaxLength) errs.push_back(maxLenError(kDns1123LabelMaxLength));
  if (!matchesDns1123Label(value)) {
    errs.push_back(regexError(kDns1123LabelErrMsg, kDns1123LabelFmt, {"my-name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> isDns1035Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kDns1035LabelMaxLength) errs.push_back(maxLenError(kDns1035LabelMaxLength));
  if (!matchesDns1035Label(value)) {
    errs.push_back(regexError(kDns1035LabelErrMsg, kDns1035LabelFmt, {"my-name", "abc-123"}));
  }
  return errs;
}

std::vector<std::string> isQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::string_view name = value;
  size_t slash = value.find('/');
  if (slash != std::string_view::npos) {
    if (value.find('/', slash + 1) != std::string_view::npos) {
      // More than one '/': Kubernetes gives up on the parts and explains the whole format.
      errs.push_back(
          "a qualified name " +
          regexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return errs;
    }
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) {
      errs.push_back("prefix part " + std::string(kEmptyError));
    } else {
      for (auto& msg : isDns1123Subdomain(prefix)) errs.push_back("prefix part " + msg);
    }
  }
  if (name.empty()) {
    errs.push_back("name part " + std::string(kEmptyError));
  } else if (name.size() > kQualifiedNameMaxLength) {
    errs.push_back("name part " + maxLenError(kQualifiedNameMaxLength));
  }
  // Not an else: an empty name part fails the pattern too, and Kubernetes reports both.
  if (!matchesQualifiedNamePart(name)) {
    errs.push_back("name part " + regexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> isValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > kLabelValueMaxLength) errs.push_back(maxLenError(kLabelValueMaxLength));
  if (!value.empty() && !matchesQualifiedNamePart(value)) {
    errs.push_back(regexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

std::vector<std::string> isValidName(std::string_view name, NameRule rule, bool prefix) {
  std::string masked;
  if (prefix && rule != NameRule::PathSegment) {
    masked = maskTrailingDash(name);
    name = masked;
  }
  switch (rule) {
    case NameRule::Dns1123Subdomain:
      return isDns1123Subdomain(name);
    case NameRule::Dns1123Label:
      return isDns1123Label(name);
    case NameRule::Dns1035Label:
      return isDns1035Label(name);
    case NameRule::PathSegment:
      return pathSegmentErrors(name, prefix);
  }
  return {};
}

FieldErrors validateName(std::string_view name, NameRule rule, std::string_view field,
                         bool prefix) {
  FieldErrors errs;
  for (auto& msg : isValidName(name, rule, prefix)) {
    errs.push_back(FieldError::invalidString(std::string(field), name, std::move(msg)));
  }
  return errs;
}

namespace {

// Whether metadata maps are valid, building no field paths, copies or messages: metadata is
// validated on every write and is nearly always valid, so the reporting walk below runs only when
// this says no. (isQualifiedName and isValidLabelValue allocate nothing for a valid value.)
bool labelsAreValid(const Json& labels) {
  if (labels.is_null()) return true;
  if (!labels.is_object()) return false;
  for (const auto& [key, value] : labels.get_ref<const Json::object_t&>()) {
    if (!isQualifiedName(key).empty() || !value.is_string() ||
        !isValidLabelValue(value.get_ref<const std::string&>()).empty()) {
      return false;
    }
  }
  return true;
}

bool annotationsAreValid(const Json& annotations) {
  if (annotations.is_null()) return true;
  if (!annotations.is_object()) return false;
  std::uint64_t totalSize = 0;
  for (const auto& [key, value] : annotations.get_ref<const Json::object_t&>()) {
    // Upper case is allowed (the rule ignores case): such keys take the full check.
    bool upper = std::any_of(key.begin(), key.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    if (upper || !isQualifiedName(key).empty() || !value.is_string()) return false;
    totalSize += key.size() + value.get_ref<const std::string&>().size();
  }
  return totalSize <= kTotalAnnotationSizeLimitBytes;
}

}  // namespace

FieldErrors validateLabels(const Json& labels, std::string_view fieldName) {
  FieldErrors errs;
  if (labelsAreValid(labels)) return errs;
  const std::string field(fieldName);
  if (!labels.is_object()) {
    errs.push_back(wrongType(field, labels, "an object of string values"));
    return errs;
  }
  for (const auto& [key, value] : labels.items()) {
    // ValidateLabelName, then IsValidLabelValue; both on the map's own path.
    for (auto& msg : isQualifiedName(key)) {
      errs.push_back(FieldError::invalidString(field, key, std::move(msg)));
    }
    if (!value.is_string()) {
      errs.push_back(wrongType(keyPath(field, key), value, "a string"));
      continue;
    }
    const std::string& v = value.get_ref<const std::string&>();
    for (auto& msg : isValidLabelValue(v)) {
      errs.push_back(FieldError::invalidString(field, v, std::move(msg)));
    }
  }
  return errs;
}

FieldErrors validateAnnotations(const Json& annotations, std::string_view fieldName) {
  FieldErrors errs;
  if (annotationsAreValid(annotations)) return errs;
  const std::string field(fieldName);
  if (!annotations.is_object()) {
    errs.push_back(wrongType(field, annotations, "an object of string values"));
    return errs;
  }
  uint64_t totalSize = 0;
  for (const auto& [key, value] : annotations.items()) {
    // "The rule is QualifiedName except that case doesn't matter."
    std::string lower = key;
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    for (auto& msg : isQualifiedName(lower)) {
      errs.push_back(FieldError::invalidString(field, key, std::move(msg)));
    }
    totalSize += key.size();
    if (!value.is_string()) {
      errs.push_back(wrongType(keyPath(field, key), value, "a string"));
      continue;
    }
    totalSize += value.get_ref<const std::string&>().size();
  }
  if (totalSize > kTotalAnnotationSizeLimitBytes) {
    errs.push_back(FieldError::tooLong(
        field, fmt::format("must have at most {} bytes", kTotalAnnotationSizeLimitBytes)));
  }
  return errs;
}

FieldErrors validateFinalizers(const Json& finalizers, std::string field) {
  FieldErrors errs;
  if (finalizers.is_null()) return errs;
  if (!finalizers.is_array()) {
    errs.push_back(wrongType(field, finalizers, "an array of strings"));
    return errs;
  }
  std::vector<std::string> names;
  bool orphan = false;
  bool foreground = false;
  for (size_t i = 0; i < finalizers.size(); ++i) {
    const Json& f = finalizers[i];
    if (!f.is_string()) {
      errs.push_back(wrongType(indexPath(field, i), f, "a string"));
      continue;
    }
    const std::string& name = f.get_ref<const std::string&>();
    names.push_back(name);
    // ValidateFinalizerName reports on the list's path, not the element's.
    for (auto& msg : isQualifiedName(name)) {
      errs.push_back(FieldError::invalidString(field, name, std::move(msg)));
    }
    if (name == "orphan") orphan = true;
    if (name == "foregroundDeletion") foreground = true;
  }
  if (orphan && foreground) {
    errs.push_back(
        FieldError::invalid(field, renderGoStringSlice(names),
                            "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  return errs;
}

FieldErrors validateOwnerReferences(const Json& refs, std::string field) {
  FieldErrors errs;
  if (refs.is_null()) return errs;
  if (!refs.is_array()) {
    errs.push_back(wrongType(field, refs, "an array of objects"));
    return errs;
  }

  // Decode first: the controller error renders the whole list.
  std::vector<OwnerRef> decoded;
  for (size_t i = 0; i < refs.size(); ++i) {
    const Json& r = refs[i];
    std::string path = indexPath(field, i);
    if (!r.is_object()) {
      errs.push_back(wrongType(path, r, "an object"));
      continue;
    }
    OwnerRef ref;
    ref.apiVersion = stringField(r, "apiVersion", path + ".apiVersion", errs, ref.apiVersionOk);
    ref.kind = stringField(r, "kind", path + ".kind", errs, ref.kindOk);
    ref.name = stringField(r, "name", path + ".name", errs, ref.nameOk);
    ref.uid = stringField(r, "uid", path + ".uid", errs, ref.uidOk);
    for (auto [key, slot] : {std::pair{"controller", &ref.controller},
                             std::pair{"blockOwnerDeletion", &ref.blockOwnerDeletion}}) {
      auto it = r.find(key);
      if (it == r.end() || it->is_null()) continue;
      if (!it->is_boolean()) {
        errs.push_back(wrongType(path + "." + key, *it, "a boolean"));
        continue;
      }
      *slot = it->get<bool>() ? 1 : 0;
    }
    decoded.push_back(std::move(ref));
  }

  std::string firstController;
  for (const OwnerRef& ref : decoded) {
    // validateOwnerReference: the child paths hang off the list's path, without an index.
    auto [group, version] = parseApiVersion(ref.apiVersion);
    if (ref.apiVersionOk && version.empty()) {
      errs.push_back(FieldError::invalidString(field + ".apiVersion", ref.apiVersion,
                                               "version must not be empty"));
    }
    if (ref.kindOk && ref.kind.empty()) {
      errs.push_back(
          FieldError::invalidString(field + ".kind", ref.kind, "kind must not be empty"));
    }
    if (ref.nameOk && ref.name.empty()) {
      errs.push_back(
          FieldError::invalidString(field + ".name", ref.name, "name must not be empty"));
    }
    if (ref.uidOk && ref.uid.empty()) {
      errs.push_back(FieldError::invalidString(field + ".uid", ref.uid, "uid must not be empty"));
    }
    // BannedOwners.
    if (group.empty() && version == "v1" && ref.kind == "Event") {
      errs.push_back(FieldError::invalid(field, renderGoOwnerRef(ref),
                                         "/v1, Kind=Event is disallowed from being an owner"));
    }
    if (ref.controller == 1) {
      std::string current = ref.kind + "/" + ref.name;
      if (firstController.empty()) {
        firstController = current;
      } else {
        errs.push_back(FieldError::invalid(
            field, renderGoOwnerRefs(decoded),
            fmt::format("Only one reference can have Controller set to true. Found \"true\" in "
                        "references for {} and {}",
                        firstController, current)));
      }
    }
  }
  return errs;
}

FieldErrors validateObjectMetaOnCreate(const Json& object, NameRule nameRule, bool namespaced) {
  FieldErrors errs;
  if (!object.is_object()) {
    errs.push_back(FieldError::invalid(
        "metadata", renderJson(object),
        fmt::format("the object must be a JSON object, not {}", jsonTypeName(object))));
    return errs;
  }
  static const Json kEmpty = Json::object();
  const Json* meta = &kEmpty;
  if (auto it = object.find("metadata"); it != object.end() && !it->is_null()) {
    if (!it->is_object()) {
      errs.push_back(wrongType("metadata", *it, "an object"));
      return errs;
    }
    meta = &*it;
  }

  bool ok = true;
  std::string generateName = stringField(*meta, "generateName", "metadata.generateName", errs, ok);
  if (!generateName.empty()) {
    append(errs, validateName(generateName, nameRule, "metadata.generateName", /*prefix=*/true));
  }
  bool nameOk = true;
  std::string name = stringField(*meta, "name", "metadata.name", errs, nameOk);
  if (name.empty()) {
    // Kubernetes validates after expanding generateName, so an empty name means neither was set;
    // a caller validating before expansion should not be told the name is missing.
    if (nameOk && generateName.empty() && ok) {
      errs.push_back(FieldError::required("metadata.name", "name or generateName is required"));
    }
  } else {
    append(errs, validateName(name, nameRule, "metadata.name"));
  }

  bool nsOk = true;
  std::string ns = stringField(*meta, "namespace", "metadata.namespace", errs, nsOk);
  if (nsOk) {
    if (namespaced) {
      if (ns.empty()) {
        errs.push_back(FieldError::required("metadata.namespace"));
      } else {
        append(errs, validateName(ns, NameRule::Dns1123Label, "metadata.namespace"));
      }
    } else if (!ns.empty()) {
      errs.push_back(FieldError::forbidden("metadata.namespace", "not allowed on this type"));
    }
  }

  if (auto it = meta->find("generation"); it != meta->end() && !it->is_null()) {
    if (!it->is_number_integer()) {
      errs.push_back(wrongType("metadata.generation", *it, "an integer"));
    } else if (!it->is_number_unsigned() && it->get<int64_t>() < 0) {
      errs.push_back(FieldError::invalid("metadata.generation", it->dump(),
                                         "must be greater than or equal to 0"));
    }
  }

  auto member = [&](std::string_view key) -> const Json& {
    static const Json kNull;
    auto it = meta->find(key);
    return it == meta->end() ? kNull : *it;
  };
  append(errs, validateLabels(member("labels")));
  append(errs, validateAnnotations(member("annotations")));
  append(errs, validateOwnerReferences(member("ownerReferences")));
  append(errs, validateFinalizers(member("finalizers")));
  return errs;
}

}  // namespace fakekube
