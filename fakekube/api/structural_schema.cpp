#include "fakekube/api/internal/structural_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "fakekube/api/internal/base64.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/sim/clock.h"

namespace fakekube {

namespace {

enum TypeBit : unsigned {
  kObject = 1,
  kArray = 2,
  kString = 4,
  kInteger = 8,
  kNumber = 16,
  kBoolean = 32,
};

// ObjectMeta's fields: what a metadata object keeps (kube-apiserver round-trips it through
// metav1.ObjectMeta, which drops the rest).
constexpr std::string_view kObjectMetaFields[] = {"annotations",
                                                  "creationTimestamp",
                                                  "deletionGracePeriodSeconds",
                                                  "deletionTimestamp",
                                                  "finalizers",
                                                  "generateName",
                                                  "generation",
                                                  "labels",
                                                  "managedFields",
                                                  "name",
                                                  "namespace",
                                                  "ownerReferences",
                                                  "resourceVersion",
                                                  "selfLink",
                                                  "uid"};

// std::regex matches by backtracking, recursing once per character: longer strings are not
// matched against a pattern (they fail it) rather than risk the stack.
constexpr std::size_t kMaxPatternInput = 16384;

bool isObjectMetaField(std::string_view key) {
  return std::find(std::begin(kObjectMetaFields), std::end(kObjectMetaFields), key) !=
         std::end(kObjectMetaFields);
}

bool isTypeMetaOrMetadata(std::string_view key) {
  return key == "apiVersion" || key == "kind" || key == "metadata";
}

// Go's %v of a float64: %g with the shortest precision, which switches to an exponent below
// 1e-04 and from 1e+06 on ("0.5", "1e-05", "1e+06", "2.147483647e+09").
std::string goFloat(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string scientific(buf, r.ptr);  // "d.ddde+XX", as Go writes it
  const int exponent = std::stoi(scientific.substr(scientific.find('e') + 1));
  if (exponent < -4 || exponent >= 6) return scientific;
  r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return std::string(buf, r.ptr);
}

// A JSON number as Go decodes it into interface{}: int64 when it is an integer literal that
// fits, else float64.
bool isGoInt(const Json& x) {
  if (x.is_number_integer() && !x.is_number_unsigned()) return true;
  return x.is_number_unsigned() && x.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX);
}
std::int64_t goInt(const Json& x) {
  return x.is_number_unsigned() ? static_cast<std::int64_t>(x.get<std::uint64_t>())
                                : x.get<std::int64_t>();
}

// Go's %#v of a decoded JSON value, as field.Error prints a bad value that is neither a string,
// a number nor a bool.
std::string goSyntax(const Json& x) {
  if (x.is_null()) return "interface {}(nil)";
  if (x.is_string()) return goQuote(x.get<std::string>());
  if (x.is_boolean()) return x.get<bool>() ? "true" : "false";
  if (isGoInt(x)) return std::to_string(goInt(x));
  if (x.is_number()) return goFloat(x.get<double>());
  std::string out;
  if (x.is_array()) {
    out = "[]interface {}{";
    bool first = true;
    for (const auto& v : x) {
      if (!first) out += ", ";
      first = false;
      out += goSyntax(v);
    }
    return out + "}";
  }
  out = "map[string]interface {}{";
  bool first = true;
  for (const auto& [k, v] : x.items()) {
    if (!first) out += ", ";
    first = false;
    out += goQuote(k) + ":" + goSyntax(v);
  }
  return out + "}";
}

// field.Error's rendering of a bad value.
std::string renderValue(const Json& x) {
  if (x.is_null()) return "null";
  if (x.is_string()) return goQuote(x.get<std::string>());
  if (x.is_boolean()) return x.get<bool>() ? "true" : "false";
  if (isGoInt(x)) return std::to_string(goInt(x));
  if (x.is_number()) return goFloat(x.get<double>());
  return goSyntax(x);
}

// The type kube-openapi's type validator reports for a value.
const char* openApiTypeName(const Json& x) {
  if (x.is_boolean()) return "boolean";
  if (x.is_string()) return "string";
  if (isGoInt(x)) return "integer";
  if (x.is_number()) return "number";
  if (x.is_array()) return "array";
  if (x.is_object()) return "object";
  return "null";
}

std::size_t utf8Length(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool isUuid(const std::string& s) {
  static const std::regex re(
      "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$");
  return s.size() <= 36 && std::regex_match(s, re);
}

bool isIpv4(const std::string& s) {
  int parts = 0;
  std::size_t i = 0;
  while (i <= s.size()) {
    std::size_t j = s.find('.', i);
    if (j == std::string::npos) j = s.size();
    std::string_view part(s.data() + i, j - i);
    if (part.empty() || part.size() > 3) return false;
    if (part.size() > 1 && part[0] == '0') return false;
    int value = 0;
    for (char c : part) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    if (value > 255) return false;
    ++parts;
    i = j + 1;
    if (j == s.size()) break;
  }
  return parts == 4;
}

bool isDate(const std::string& s) {
  static const std::regex re("^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$");
  return s.size() == 10 && std::regex_match(s, re);
}

// The formats kube-apiserver checks that are cheap to check here; others pass.
std::optional<bool> checkFormat(const std::string& format, const std::string& value) {
  if (format == "date-time") {
    TimePoint t;
    return parseRfc3339(value, &t);
  }
  if (format == "date") return isDate(value);
  if (format == "byte") return base64Decode(value).has_value();
  if (format == "uuid") return isUuid(value);
  if (format == "ipv4") return isIpv4(value);
  return std::nullopt;
}

}  // namespace

// Where a value sits in the object being validated, as kube-openapi's validator names it. Most
// walks report nothing, so the text is put together only for an error: a path is a chain of
// its segments on the walk's stack, each pointing at its parent.
class SchemaPath {
 public:
  // How a member joins its parent: a declared property is written bare at the root ("spec"),
  // any other member always after a dot (".key", kube-openapi's additionalProperties paths).
  enum Join { kProperty, kMember };

  SchemaPath() = default;  // the root, ""
  SchemaPath(const SchemaPath& parent, std::string_view name, Join join)
      : parent_(&parent), name_(name), join_(join) {}
  SchemaPath(const SchemaPath& parent, std::size_t index)
      : parent_(&parent), index_(index), isIndex_(true) {}

  // The path as error messages write it ("spec.workerGroupSpecs[0].replicas").
  std::string str() const {
    if (parent_ == nullptr) return "";
    std::string out = parent_->str();
    if (isIndex_) {
      out += '[';
      out += std::to_string(index_);
      out += ']';
    } else {
      if (join_ == kMember || !out.empty()) out += '.';
      out.append(name_);
    }
    return out;
  }
  // The field a Status cause names: the same without a leading '.'.
  std::string field() const {
    std::string out = str();
    if (!out.empty() && out[0] == '.') out.erase(0, 1);
    return out;
  }

 private:
  const SchemaPath* parent_ = nullptr;
  std::string_view name_;
  std::size_t index_ = 0;
  bool isIndex_ = false;
  Join join_ = kProperty;
};

struct StructuralSchema::Compiled {
  struct Node {
    unsigned types = 0;  // TypeBit mask; 0 = any
    bool nullable = false;
    bool preserveUnknownFields = false;
    bool embeddedResource = false;
    bool intOrString = false;
    std::vector<std::pair<std::string, int>> properties;  // sorted by name
    int additionalProperties = -1;                        // node index
    int items = -1;                                       // node index
    std::optional<Json> defaultValue;
    bool defaultsBelow = false;  // this node or one below declares a default
    std::vector<Json> enumValues;
    std::vector<std::string> required;
    std::optional<double> minimum, maximum, multipleOf;
    bool exclusiveMinimum = false, exclusiveMaximum = false;
    std::optional<std::int64_t> maxLength, minLength, maxItems, minItems, maxProperties,
        minProperties;
    bool uniqueItems = false;
    std::string pattern;
    std::shared_ptr<const std::regex> regex;  // shared by the nodes with the same pattern
    std::string patternError;
    std::string format;

    const Node* property(const std::vector<Node>& nodes, std::string_view name) const {
      auto it = std::lower_bound(properties.begin(), properties.end(), name,
                                 [](const auto& p, std::string_view n) { return p.first < n; });
      if (it == properties.end() || it->first != name) return nullptr;
      return &nodes[static_cast<std::size_t>(it->second)];
    }
  };

  Json source;
  std::vector<Node> nodes;  // nodes[0] is the root; children come after their parent
  bool anyDefault = false;

  const Node* at(int i) const { return i < 0 ? nullptr : &nodes[static_cast<std::size_t>(i)]; }
  // The schema for key `k` of an object under `s`: its property, else additionalProperties.
  const Node* field(const Node* s, std::string_view k) const {
    if (s == nullptr) return nullptr;
    if (const Node* p = s->property(nodes, k)) return p;
    return at(s->additionalProperties);
  }

  // --- pruning ---
  // Where the walk is while it collects what it drops (decode's `unknownFields`); the pruning
  // functions take nullptr when nobody asked, and then build no paths.
  struct Tracker {
    MemberPath path;
    std::vector<MemberPath>* found;
    void record(std::string_view key) const {
      MemberPath member = path;
      member.emplace_back(std::string(key));
      found->push_back(std::move(member));
    }
  };
  // Keeps `tracker`'s path one step deeper for the scope of a child's walk.
  class Step {
   public:
    template <typename Segment>
    Step(Tracker* tracker, Segment segment) : tracker_(tracker) {
      if (tracker_ != nullptr) tracker_->path.emplace_back(std::move(segment));
    }
    ~Step() {
      if (tracker_ != nullptr) tracker_->path.pop_back();
    }
    Step(const Step&) = delete;
    Step& operator=(const Step&) = delete;

   private:
    Tracker* tracker_;
  };

  // Objects anywhere below a value that has no schema lose every key (prune with a nil schema).
  static bool clearUnder(Json& x, Tracker* tracker) {
    if (tracker != nullptr) return clearUnderTracked(x, *tracker);
    bool changed = false;
    std::vector<Json*> stack{&x};
    while (!stack.empty()) {
      Json* v = stack.back();
      stack.pop_back();
      if (v->is_object()) {
        if (!v->empty()) changed = true;
        *v = Json::object();
      } else if (v->is_array()) {
        for (auto& e : *v) stack.push_back(&e);
      }
    }
    return changed;
  }

  // The same, naming each key dropped; without recursion, as the document may be deep.
  static bool clearUnderTracked(Json& x, Tracker& tracker) {
    bool changed = false;
    std::vector<std::pair<Json*, MemberPath>> stack;
    stack.emplace_back(&x, tracker.path);
    while (!stack.empty()) {
      auto [v, path] = std::move(stack.back());
      stack.pop_back();
      if (v->is_object()) {
        for (const auto& [key, item] : v->get_ref<const Json::object_t&>()) {
          MemberPath member = path;
          member.emplace_back(key);
          tracker.found->push_back(std::move(member));
        }
        if (!v->empty()) changed = true;
        *v = Json::object();
      } else if (v->is_array()) {
        // Pushed in reverse so that the elements are reported in order.
        for (std::size_t i = v->size(); i-- > 0;) {
          MemberPath element = path;
          element.emplace_back(i);
          stack.emplace_back(&(*v)[i], std::move(element));
        }
      }
    }
    return changed;
  }

  static bool coerceMetadata(Json& metadata, Tracker* tracker) {
    if (!metadata.is_object()) return false;
    bool changed = false;
    Step step(tracker, std::string("metadata"));
    for (auto it = metadata.begin(); it != metadata.end();) {
      if (isObjectMetaField(it.key())) {
        ++it;
      } else {
        if (tracker != nullptr) tracker->record(it.key());
        it = metadata.erase(it);
        changed = true;
      }
    }
    return changed;
  }

  // A null where the schema neither allows nor defaults one (the decoder's dropping of nulls).
  static bool droppableNull(const Json& x, const Node* s) {
    return x.is_null() && s != nullptr && !s->nullable && !s->defaultValue;
  }

  // `dropNulls`: also drop the nulls pruneNulls would, in the same walk (decode's prune of a
  // body; a default's pruning keeps its nulls).
  bool pruneObjectKey(Json& x, Json::iterator& it, const Node* s, bool keepUnknown, bool embedded,
                      bool dropNulls, Tracker* tracker) const {
    if ((embedded || s->embeddedResource) && isTypeMetaOrMetadata(it.key())) {
      const Node* f = dropNulls ? field(s, it.key()) : nullptr;
      if (droppableNull(*it, f)) {
        it = x.erase(it);
        return true;
      }
      bool changed = it.key() == "metadata" && coerceMetadata(it.value(), tracker);
      if (f != nullptr) changed |= pruneNulls(it.value(), f);
      ++it;
      return changed;
    }
    if (const Node* p = field(s, it.key())) {
      if (dropNulls && droppableNull(*it, p)) {
        it = x.erase(it);
        return true;
      }
      Step step(tracker, it.key());
      bool changed = prune(it.value(), p, false, dropNulls, tracker);
      ++it;
      return changed;
    }
    if (keepUnknown) {
      ++it;
      return false;
    }
    if (tracker != nullptr) tracker->record(it.key());
    it = x.erase(it);
    return true;
  }

  // `embedded`: treat this level as an x-kubernetes-embedded-resource (the resource's root).
  bool prune(Json& x, const Node* s, bool embedded, bool dropNulls,
             Tracker* tracker = nullptr) const {
    if (s != nullptr && s->preserveUnknownFields) {
      return skipPrune(x, s, embedded, dropNulls, tracker);
    }
    if (x.is_object()) {
      if (s == nullptr) return clearUnder(x, tracker);
      bool changed = false;
      for (auto it = x.begin(); it != x.end();) {
        changed |= pruneObjectKey(x, it, s, false, embedded, dropNulls, tracker);
      }
      return changed;
    }
    if (x.is_array()) {
      const Node* items = s == nullptr ? nullptr : at(s->items);
      bool changed = false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        Step step(tracker, i);
        Json& v = x[i];
        changed |=
            items == nullptr ? clearUnder(v, tracker) : prune(v, items, false, dropNulls, tracker);
      }
      return changed;
    }
    return false;
  }

  bool skipPrune(Json& x, const Node* s, bool embedded, bool dropNulls, Tracker* tracker) const {
    if (s == nullptr) return false;
    bool changed = false;
    if (x.is_object()) {
      for (auto it = x.begin(); it != x.end();) {
        changed |= pruneObjectKey(x, it, s, true, embedded, dropNulls, tracker);
      }
    } else if (x.is_array()) {
      const Node* items = at(s->items);
      if (items != nullptr) {
        for (std::size_t i = 0; i < x.size(); ++i) {
          Step step(tracker, i);
          changed |= skipPrune(x[i], items, false, dropNulls, tracker);
        }
      }
    }
    return changed;
  }

  // --- nulls and defaults ---
  bool pruneNulls(Json& x, const Node* s) const {
    if (s == nullptr) return false;  // no schema below: nothing can be removed
    bool changed = false;
    if (x.is_object()) {
      for (auto it = x.begin(); it != x.end();) {
        const Node* f = field(s, it.key());
        if (it->is_null() && f != nullptr && !f->nullable && !f->defaultValue) {
          it = x.erase(it);
          changed = true;
        } else {
          changed |= pruneNulls(it.value(), f);
          ++it;
        }
      }
    } else if (x.is_array()) {
      const Node* items = at(s->items);
      for (auto& v : x) changed |= pruneNulls(v, items);
    }
    return changed;
  }

  static bool nonNullableNull(const Json& x, const Node* s) {
    return x.is_null() && s != nullptr && !s->nullable;
  }

  bool applyDefaults(Json& x, const Node* s) const {
    if (s == nullptr || !s->defaultsBelow) return false;
    bool changed = false;
    if (x.is_object()) {
      for (const auto& [name, index] : s->properties) {
        const Node& p = nodes[static_cast<std::size_t>(index)];
        if (!p.defaultValue) continue;
        auto it = x.find(name);
        if (it == x.end() || nonNullableNull(*it, &p)) {
          x[name] = *p.defaultValue;
          changed = true;
        }
      }
      const Node* additional = at(s->additionalProperties);
      for (auto it = x.begin(); it != x.end(); ++it) {
        if (const Node* p = s->property(nodes, it.key())) {
          changed |= applyDefaults(it.value(), p);
        } else if (additional != nullptr) {
          if (nonNullableNull(*it, additional) && additional->defaultValue) {
            *it = *additional->defaultValue;
            changed = true;
          }
          changed |= applyDefaults(it.value(), additional);
        }
      }
    } else if (x.is_array()) {
      const Node* items = at(s->items);
      if (items == nullptr) return false;
      for (auto& v : x) {
        if (nonNullableNull(v, items) && items->defaultValue) {
          v = *items->defaultValue;
          changed = true;
        }
        changed |= applyDefaults(v, items);
      }
    }
    return changed;
  }

  // --- validation (kube-openapi's SchemaValidator, messages of its errors package) ---
  // `old` is the value at the same path in the object an update replaces (null on a create, or
  // where nothing correlates): a value equal to it is not checked again (ratcheting).
  // The root of an update is not compared: an update changes something, and comparing there
  // would walk the whole object only to find where.
  void validate(const Json& x, const Node& s, const SchemaPath& path, FieldErrors& errors,
                const Json* old = nullptr, bool compare = true) const {
    if (old != nullptr && compare && sameJson(x, *old)) return;
    if (x.is_null()) {
      if (s.types != 0 && !s.nullable) {
        errors.push_back(FieldError::typeInvalid(
            path.field(), "\"null\"",
            fmt::format("{} in body must be of type {}: \"null\"", path.str(), typeNames(s))));
      }
      if (!s.enumValues.empty() &&
          std::find(s.enumValues.begin(), s.enumValues.end(), x) == s.enumValues.end()) {
        errors.push_back(enumError(path.field(), x, s));
      }
      return;
    }
    const char* actual = openApiTypeName(x);
    if (s.types != 0) {
      const bool isFloatInt = x.is_number_float() && (s.types & kInteger) != 0 &&
                              std::trunc(x.get<double>()) == x.get<double>() &&
                              std::isfinite(x.get<double>());
      const bool isIntFloat = isGoInt(x) && (s.types & kNumber) != 0;
      if ((s.types & typeBit(x)) == 0 && !isFloatInt && !isIntFloat) {
        errors.push_back(
            FieldError::typeInvalid(path.field(), goQuote(actual),
                                    fmt::format("{} in body must be of type {}: {}", path.str(),
                                                typeNames(s), goQuote(actual))));
      }
    }
    if (x.is_string()) validateString(x.get_ref<const std::string&>(), s, path, errors);
    if (x.is_number()) validateNumber(x, s, path, errors);
    if (x.is_array()) validateArray(x, s, path, errors);
    if (!s.enumValues.empty() &&
        std::find(s.enumValues.begin(), s.enumValues.end(), x) == s.enumValues.end()) {
      errors.push_back(enumError(path.field(), x, s));
    }
    if (x.is_object()) {
      validateObject(x, s, path, errors, old != nullptr && old->is_object() ? old : nullptr);
    }
  }

  // The member of the old object under the same key, when there is one.
  static const Json* oldMember(const Json* old, const std::string& key) {
    if (old == nullptr) return nullptr;
    auto it = old->find(key);
    return it == old->end() ? nullptr : &*it;
  }

  static unsigned typeBit(const Json& x) {
    if (x.is_boolean()) return kBoolean;
    if (x.is_string()) return kString;
    if (isGoInt(x)) return kInteger;
    if (x.is_number()) return kNumber;
    if (x.is_array()) return kArray;
    if (x.is_object()) return kObject;
    return 0;
  }

  static std::string typeNames(const Node& s) {
    if (s.intOrString) return "integer,string";
    for (auto [bit, name] : {std::pair{kObject, "object"},
                             {kArray, "array"},
                             {kString, "string"},
                             {kInteger, "integer"},
                             {kNumber, "number"},
                             {kBoolean, "boolean"}}) {
      if (s.types == bit) return name;
    }
    return "";
  }

  static FieldError enumError(std::string_view fieldPath, const Json& x, const Node& s) {
    std::vector<std::string> quoted;
    for (const auto& v : s.enumValues) {
      quoted.push_back(goQuote(v.is_string() ? v.get<std::string>() : v.dump()));
    }
    return FieldError::notSupported(
        std::string(fieldPath), renderValue(x),
        "supported values: " + fmt::format("{}", fmt::join(quoted, ", ")));
  }

  static void validateString(const std::string& value, const Node& s, const SchemaPath& path,
                             FieldErrors& errors) {
    // kube-openapi stops at the first failing string rule.
    const std::size_t length = utf8Length(value);
    if (s.maxLength && static_cast<std::int64_t>(length) > *s.maxLength) {
      // field.TooLong: the value is not shown.
      errors.push_back(FieldError::tooLong(
          path.field(), fmt::format("may not be more than {} bytes", *s.maxLength)));
    } else if (s.minLength && static_cast<std::int64_t>(length) < *s.minLength) {
      errors.push_back(FieldError::invalid(
          path.field(), goQuote(value),
          fmt::format("{} in body should be at least {} chars long", path.str(), *s.minLength)));
    } else if (!s.pattern.empty()) {
      if (!s.regex) {
        errors.push_back(FieldError::invalid(
            path.field(), goQuote(value),
            fmt::format("{} in body should match '{}, but pattern is invalid: {}'", path.str(),
                        s.pattern, s.patternError)));
      } else if (value.size() > kMaxPatternInput || !std::regex_search(value, *s.regex)) {
        errors.push_back(FieldError::invalid(
            path.field(), goQuote(value),
            fmt::format("{} in body should match '{}'", path.str(), s.pattern)));
      }
    }
    if (!s.format.empty()) {
      auto ok = checkFormat(s.format, value);
      if (ok && !*ok) {
        errors.push_back(FieldError::invalid(path.field(), goQuote(value),
                                             fmt::format("{} in body must be of type {}: {}",
                                                         path.str(), s.format, goQuote(value))));
      }
    }
  }

  static void validateNumber(const Json& x, const Node& s, const SchemaPath& path,
                             FieldErrors& errors) {
    // An integer is compared with the bound cut to an integer and shows it as one; a float
    // shows the bound as Go's %v of a float64.
    const bool integer = isGoInt(x);
    const double value = x.get<double>();
    auto bound = [&](double b) {
      return integer ? std::to_string(static_cast<std::int64_t>(b)) : goFloat(b);
    };
    auto exceeds = [&](double b, bool exclusive, bool upper) {
      if (integer) {
        const std::int64_t v = goInt(x);
        const auto limit = static_cast<std::int64_t>(b);
        return upper ? (exclusive ? v >= limit : v > limit) : (exclusive ? v <= limit : v < limit);
      }
      return upper ? (exclusive ? value >= b : value > b) : (exclusive ? value <= b : value < b);
    };
    if (s.multipleOf) {
      bool ok = true;
      if (*s.multipleOf <= 0) {
        ok = false;
      } else if (integer && std::trunc(*s.multipleOf) == *s.multipleOf) {
        const auto factor = static_cast<std::int64_t>(*s.multipleOf);
        ok = goInt(x) % factor == 0;
      } else {
        const double m = *s.multipleOf < 1 ? 1 / *s.multipleOf * value : value / *s.multipleOf;
        ok = std::trunc(m) == m;
      }
      if (!ok) {
        errors.push_back(
            FieldError::invalid(path.field(), renderValue(x),
                                fmt::format("{} in body should be a multiple of {}", path.str(),
                                            integer && std::trunc(*s.multipleOf) == *s.multipleOf
                                                ? bound(*s.multipleOf)
                                                : goFloat(*s.multipleOf))));
      }
    }
    if (s.minimum && exceeds(*s.minimum, s.exclusiveMinimum, false)) {
      errors.push_back(FieldError::invalid(
          path.field(), renderValue(x),
          fmt::format("{} in body should be greater than {}{}", path.str(),
                      s.exclusiveMinimum ? "" : "or equal to ", bound(*s.minimum))));
    }
    if (s.maximum && exceeds(*s.maximum, s.exclusiveMaximum, true)) {
      errors.push_back(FieldError::invalid(
          path.field(), renderValue(x),
          fmt::format("{} in body should be less than {}{}", path.str(),
                      s.exclusiveMaximum ? "" : "or equal to ", bound(*s.maximum))));
    }
  }

  void validateArray(const Json& x, const Node& s, const SchemaPath& path,
                     FieldErrors& errors) const {
    if (const Node* items = at(s.items)) {
      for (std::size_t i = 0; i < x.size(); ++i) {
        validate(x[i], *items, SchemaPath(path, i), errors);
      }
    }
    const auto size = static_cast<std::int64_t>(x.size());
    if (s.minItems && size < *s.minItems) {
      errors.push_back(FieldError::invalid(
          path.field(), std::to_string(size),
          fmt::format("{} in body should have at least {} items", path.str(), *s.minItems)));
    }
    if (s.maxItems && size > *s.maxItems) {
      errors.push_back(FieldError::tooMany(path.field(), std::to_string(size), *s.maxItems));
    }
    if (s.uniqueItems) {
      for (std::size_t i = 0; i < x.size(); ++i) {
        bool duplicate = false;
        for (std::size_t j = 0; j < i && !duplicate; ++j) duplicate = x[i] == x[j];
        if (duplicate) {
          errors.push_back(FieldError::invalid(
              path.field(), "\"\"",
              fmt::format("{} in body shouldn't contain duplicates", path.str())));
          break;
        }
      }
    }
  }

  void validateObject(const Json& x, const Node& s, const SchemaPath& path, FieldErrors& errors,
                      const Json* old) const {
    const auto count = static_cast<std::int64_t>(x.size());
    if (s.minProperties && count < *s.minProperties) {
      errors.push_back(
          FieldError::invalid(path.field(), std::to_string(count),
                              fmt::format("{} in body should have at least {} properties",
                                          path.str(), *s.minProperties)));
    }
    if (s.maxProperties && count > *s.maxProperties) {
      errors.push_back(FieldError::tooMany(path.field(), std::to_string(count), *s.maxProperties));
    }
    if (const Node* additional = at(s.additionalProperties)) {
      for (const auto& [key, value] : x.items()) {
        if (s.property(nodes, key) == nullptr) {
          validate(value, *additional, SchemaPath(path, key, SchemaPath::kMember), errors,
                   oldMember(old, key));
        }
      }
    }
    for (const auto& [name, index] : s.properties) {
      auto it = x.find(name);
      if (it == x.end()) continue;
      validate(*it, nodes[static_cast<std::size_t>(index)],
               SchemaPath(path, name, SchemaPath::kProperty), errors, oldMember(old, name));
    }
    for (const auto& name : s.required) {
      if (!x.contains(name)) {
        errors.push_back(FieldError::required(SchemaPath(path, name, SchemaPath::kMember).field()));
      }
    }
  }

  // --- compiling (compile() reads each schema object of the tree once, parents first) ---
  // The patterns read so far: each compiled once (generated definitions repeat a few patterns
  // hundreds of times: a quantity's in every resources map), with the error of one that does not.
  using PatternCache =
      std::map<std::string, std::pair<std::shared_ptr<const std::regex>, std::string>>;
  // A schema object's own keywords (not its children) into `node`; `field` names it in errors.
  void readKeywords(const Json& schema, const std::string& field, Node& node,
                    PatternCache& patterns, FieldErrors& errors);
  static void readType(const Json& schema, const std::string& field, Node& node,
                       FieldErrors& errors);
  static void readBounds(const Json& schema, const std::string& field, Node& node,
                         FieldErrors& errors);
  static void readPattern(const Json& schema, Node& node, PatternCache& patterns);
  // Once every node is read: where defaulting descends, and each default pruned against its
  // schema.
  void finishDefaults();
};

namespace {

std::optional<std::int64_t> integerKeyword(const Json& schema, const char* key,
                                           const std::string& field, FieldErrors& errors) {
  auto it = schema.find(key);
  if (it == schema.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0) {
    errors.push_back(
        FieldError::invalid(field + "." + key, renderValue(*it), "must be a non-negative integer"));
    return std::nullopt;
  }
  return it->get<std::int64_t>();
}

std::optional<double> numberKeyword(const Json& schema, const char* key, const std::string& field,
                                    FieldErrors& errors) {
  auto it = schema.find(key);
  if (it == schema.end() || it->is_null()) return std::nullopt;
  if (!it->is_number()) {
    errors.push_back(FieldError::invalid(field + "." + key, renderValue(*it), "must be a number"));
    return std::nullopt;
  }
  return it->get<double>();
}

bool boolKeyword(const Json& schema, const char* key) {
  auto it = schema.find(key);
  return it != schema.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

void StructuralSchema::Compiled::readKeywords(const Json& schema, const std::string& field,
                                              Node& node, PatternCache& patterns,
                                              FieldErrors& errors) {
  readType(schema, field, node, errors);
  node.nullable = boolKeyword(schema, "nullable");
  node.preserveUnknownFields = boolKeyword(schema, "x-kubernetes-preserve-unknown-fields");
  node.embeddedResource = boolKeyword(schema, "x-kubernetes-embedded-resource");
  if (boolKeyword(schema, "x-kubernetes-int-or-string")) {
    node.intOrString = true;
    node.types = kInteger | kString;
  }
  if (auto it = schema.find("default"); it != schema.end()) {
    node.defaultValue = *it;
    anyDefault = true;
  }
  if (auto it = schema.find("enum"); it != schema.end() && it->is_array()) {
    node.enumValues.assign(it->begin(), it->end());
  }
  if (auto it = schema.find("required"); it != schema.end() && it->is_array()) {
    for (const auto& r : *it) {
      if (r.is_string()) node.required.push_back(r.get<std::string>());
    }
  }
  readBounds(schema, field, node, errors);
  if (auto it = schema.find("format"); it != schema.end() && it->is_string()) {
    node.format = it->get<std::string>();
  }
  readPattern(schema, node, patterns);
}

void StructuralSchema::Compiled::readType(const Json& schema, const std::string& field, Node& node,
                                          FieldErrors& errors) {
  auto it = schema.find("type");
  if (it == schema.end() || it->is_null()) return;
  const std::string type = it->is_string() ? it->get<std::string>() : "";
  static const std::pair<const char*, unsigned> kTypes[] = {
      {"object", kObject},   {"array", kArray},   {"string", kString},
      {"integer", kInteger}, {"number", kNumber}, {"boolean", kBoolean}};
  unsigned bit = 0;
  for (const auto& [name, b] : kTypes) {
    if (type == name) bit = b;
  }
  if (bit == 0) {
    errors.push_back(FieldError::notSupported(
        field + ".type", renderValue(*it),
        "supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", "
        "\"string\""));
  }
  node.types = bit;
}

void StructuralSchema::Compiled::readBounds(const Json& schema, const std::string& field,
                                            Node& node, FieldErrors& errors) {
  node.minimum = numberKeyword(schema, "minimum", field, errors);
  node.maximum = numberKeyword(schema, "maximum", field, errors);
  node.multipleOf = numberKeyword(schema, "multipleOf", field, errors);
  node.exclusiveMinimum = boolKeyword(schema, "exclusiveMinimum");
  node.exclusiveMaximum = boolKeyword(schema, "exclusiveMaximum");
  node.maxLength = integerKeyword(schema, "maxLength", field, errors);
  node.minLength = integerKeyword(schema, "minLength", field, errors);
  node.maxItems = integerKeyword(schema, "maxItems", field, errors);
  node.minItems = integerKeyword(schema, "minItems", field, errors);
  node.maxProperties = integerKeyword(schema, "maxProperties", field, errors);
  node.minProperties = integerKeyword(schema, "minProperties", field, errors);
  node.uniqueItems = boolKeyword(schema, "uniqueItems");
}

void StructuralSchema::Compiled::readPattern(const Json& schema, Node& node,
                                             PatternCache& patterns) {
  auto it = schema.find("pattern");
  if (it == schema.end() || !it->is_string()) return;
  node.pattern = it->get<std::string>();
  auto [cached, isNew] = patterns.try_emplace(node.pattern);
  if (isNew) {
    try {
      cached->second.first = std::make_shared<const std::regex>(
          node.pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      cached->second.second = e.what();
    }
  }
  node.regex = cached->second.first;
  node.patternError = cached->second.second;
}

void StructuralSchema::Compiled::finishDefaults() {
  // Children come after their parent, so one backward pass marks where defaulting descends.
  for (std::size_t i = nodes.size(); i-- > 0;) {
    Node& n = nodes[i];
    n.defaultsBelow = n.defaultValue.has_value();
    auto mark = [&](int c) {
      if (c >= 0 && nodes[static_cast<std::size_t>(c)].defaultsBelow) n.defaultsBelow = true;
    };
    for (const auto& [name, c] : n.properties) mark(c);
    mark(n.additionalProperties);
    mark(n.items);
  }
  // A default is itself pruned against its schema (PruneDefaults), so it never brings in a field
  // that pruning would remove.
  for (auto& n : nodes) {
    if (n.defaultValue) prune(*n.defaultValue, &n, false, /*dropNulls=*/false);
  }
}

StructuralSchema::StructuralSchema(std::unique_ptr<Compiled> compiled)
    : compiled_(std::move(compiled)) {}
StructuralSchema::~StructuralSchema() = default;

std::shared_ptr<const StructuralSchema> StructuralSchema::compile(const Json& openAPIV3Schema,
                                                                  std::string_view rootField,
                                                                  FieldErrors& errors) {
  auto compiled = std::make_unique<Compiled>();
  compiled->source = openAPIV3Schema;
  const std::size_t errorsBefore = errors.size();
  struct Pending {
    const Json* schema;
    int node;
    std::string field;
    std::size_t depth;
  };
  std::vector<Pending> pending;
  Compiled::PatternCache patterns;
  compiled->nodes.emplace_back();
  pending.push_back({&openAPIV3Schema, 0, std::string(rootField), 1});
  auto& nodes = compiled->nodes;
  while (!pending.empty()) {
    Pending p = std::move(pending.back());
    pending.pop_back();
    const Json& schema = *p.schema;
    if (!schema.is_object()) {
      errors.push_back(FieldError::invalid(p.field, renderValue(schema), "must be an object"));
      continue;
    }
    if (p.depth > kMaxDepth) {
      errors.push_back(FieldError::forbidden(
          p.field, fmt::format("must not be nested deeper than {} levels", kMaxDepth)));
      continue;
    }
    compiled->readKeywords(schema, p.field, nodes[static_cast<std::size_t>(p.node)], patterns,
                           errors);
    // Children are appended to `nodes`, so the node is addressed by index, never held.
    auto node = [&]() -> Compiled::Node& { return nodes[static_cast<std::size_t>(p.node)]; };
    auto child = [&](const Json& sub, std::string field) {
      nodes.emplace_back();
      const int index = static_cast<int>(nodes.size() - 1);
      pending.push_back({&sub, index, std::move(field), p.depth + 1});
      return index;
    };
    if (auto it = schema.find("properties"); it != schema.end() && !it->is_null()) {
      if (!it->is_object()) {
        errors.push_back(
            FieldError::invalid(p.field + ".properties", renderValue(*it), "must be an object"));
      } else {
        std::vector<std::pair<std::string, int>> properties;
        for (const auto& [name, sub] : it->items()) {
          properties.emplace_back(name, child(sub, p.field + ".properties[" + name + "]"));
        }
        std::sort(properties.begin(), properties.end());
        node().properties = std::move(properties);
      }
    }
    if (auto it = schema.find("additionalProperties"); it != schema.end() && it->is_object()) {
      node().additionalProperties = child(*it, p.field + ".additionalProperties");
    }
    if (auto it = schema.find("items"); it != schema.end() && it->is_object()) {
      node().items = child(*it, p.field + ".items");
    }
  }
  if (errors.size() != errorsBefore) return nullptr;
  compiled->finishDefaults();
  return std::shared_ptr<const StructuralSchema>(new StructuralSchema(std::move(compiled)));
}

std::string strictDecodingPath(const MemberPath& path) {
  std::string out;
  for (const auto& segment : path) {
    if (const auto* key = std::get_if<std::string>(&segment)) {
      if (!out.empty()) out += '.';
      out += *key;
    } else {
      out += '[';
      out += std::to_string(std::get<std::size_t>(segment));
      out += ']';
    }
  }
  return out;
}

bool StructuralSchema::decode(Json& object, std::vector<MemberPath>* unknownFields) const {
  if (!object.is_object()) return false;
  const Compiled& c = *compiled_;
  std::optional<Compiled::Tracker> tracker;
  if (unknownFields != nullptr) tracker.emplace(Compiled::Tracker{{}, unknownFields});
  // The root is an embedded resource: apiVersion, kind and metadata stay (metadata coerced).
  // Pruning drops the nulls the schema does not allow on its way (what pruneNulls does).
  bool changed =
      c.prune(object, &c.nodes[0], true, /*dropNulls=*/true, tracker ? &*tracker : nullptr);
  changed |= c.applyDefaults(object, &c.nodes[0]);
  return changed;
}

FieldErrors StructuralSchema::validate(const Json& object) const {
  FieldErrors errors;
  compiled_->validate(object, compiled_->nodes[0], SchemaPath(), errors);
  return errors;
}

FieldErrors StructuralSchema::validateUpdate(const Json& object, const Json& old) const {
  FieldErrors errors;
  compiled_->validate(object, compiled_->nodes[0], SchemaPath(), errors, &old, /*compare=*/false);
  return errors;
}

FieldErrors StructuralSchema::validateStatusUpdate(const Json& object, const Json& old) const {
  FieldErrors errors;
  const Compiled& c = *compiled_;
  const auto* statusNode = c.nodes[0].property(c.nodes, "status");
  auto status = object.find("status");
  if (statusNode == nullptr || status == object.end()) return errors;
  auto oldStatus = old.find("status");
  // Not compared at its root, as the root of an update is not: a status write changes it.
  const SchemaPath root;
  c.validate(*status, *statusNode, SchemaPath(root, "status", SchemaPath::kProperty), errors,
             oldStatus == old.end() ? nullptr : &*oldStatus,
             /*compare=*/false);
  return errors;
}

const Json& StructuralSchema::source() const { return compiled_->source; }
bool StructuralSchema::hasDefaults() const { return compiled_->anyDefault; }

}  // namespace fakekube
