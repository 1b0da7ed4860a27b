#include "fakekube/api/internal/typed_decoding.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

#include "fakekube/api/group_version.h"
#include "fakekube/api/internal/protobuf_schema.h"

namespace fakekube {

namespace {

// "k8s.io.api.core.v1.Container" -> "Container" (the struct) and "v1.Container" (its Go type).
std::string_view structName(std::string_view protoName) {
  const auto dot = protoName.rfind('.');
  return dot == std::string_view::npos ? protoName : protoName.substr(dot + 1);
}

std::string goTypeOfMessage(std::string_view protoName) {
  const auto last = protoName.rfind('.');
  if (last == std::string_view::npos) return std::string(protoName);
  const auto package = protoName.rfind('.', last - 1);
  return std::string(protoName.substr(package == std::string_view::npos ? 0 : package + 1));
}

std::string goTypeOfElement(const ProtobufField& f) {
  switch (f.value) {
    case ProtobufValue::String:
      return "string";
    case ProtobufValue::Bytes:
      return "[]uint8";
    case ProtobufValue::Bool:
      return "bool";
    case ProtobufValue::Int32:
      return "int32";
    case ProtobufValue::Int64:
      return "int64";
    case ProtobufValue::Message:
      return goTypeOfMessage(f.message);
    default:
      return "";
  }
}

std::string goTypeOf(const ProtobufField& f) {
  switch (f.shape) {
    case ProtobufShape::Repeated:
      return "[]" + goTypeOfElement(f);
    case ProtobufShape::Map:
      return "map[string]" + goTypeOfElement(f);
    case ProtobufShape::Single:
      break;
  }
  return goTypeOfElement(f);
}

// The word encoding/json uses for a JSON value's kind.
std::string jsonKind(const Json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_number()) return "number";
  if (v.is_array()) return "array";
  return "object";
}

// base64.StdEncoding.Decode's CorruptInputError offset for `text`, or nullopt when it decodes
// (padding required; '\r' and '\n' are skipped, as the decoder does).
std::optional<std::size_t> corruptBase64At(std::string_view text) {
  auto isAlphabet = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/';
  };
  std::size_t quantumStart = 0;
  int inQuantum = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\r' || c == '\n') continue;
    if (inQuantum == 0) quantumStart = i;
    if (c == '=') {
      // Padding: only as the 3rd or 4th character of the last quantum.
      if (inQuantum < 2) return i;
      std::size_t j = i + 1;
      while (j < text.size() && (text[j] == '\r' || text[j] == '\n')) ++j;
      if (inQuantum == 2) {
        if (j >= text.size()) return text.size();  // not enough padding
        if (text[j] != '=') return j - 1;
        ++j;
      }
      while (j < text.size() && (text[j] == '\r' || text[j] == '\n')) ++j;
      if (j < text.size()) return j;
      return std::nullopt;
    }
    if (!isAlphabet(c)) return i;
    inQuantum = (inQuantum + 1) % 4;
  }
  if (inQuantum != 0) return quantumStart;  // an unfinished quantum
  return std::nullopt;
}

// Each message's fields by JSON name, inlined structs' included, with the struct each is in and
// the message a Message field holds: built once, so that a walk does no searching or string
// building on the way (it runs on every write of a built-in object).
struct IndexedField {
  const ProtobufField* field;
  const ProtobufMessage* owner;
  const ProtobufMessage* message;  // for Message values, when the table has it
};

class SchemaIndex {
 public:
  static const SchemaIndex& get() {
    static const SchemaIndex index;
    return index;
  }
  const IndexedField* find(const ProtobufMessage& m, std::string_view name) const {
    auto fields = byMessage_.find(&m);
    if (fields == byMessage_.end()) return nullptr;
    auto it = fields->second.find(name);
    return it == fields->second.end() ? nullptr : &it->second;
  }

 private:
  SchemaIndex() {
    for (const ProtobufMessage* m : allProtobufMessages()) add(byMessage_[m], *m);
  }
  static void add(std::unordered_map<std::string_view, IndexedField>& into,
                  const ProtobufMessage& m) {
    for (const ProtobufField& f : m.fields) {
      const ProtobufMessage* message =
          f.value == ProtobufValue::Message ? protobufMessageNamed(f.message) : nullptr;
      if (f.inlined) {
        if (message != nullptr) add(into, *message);
      } else {
        into.emplace(f.jsonName, IndexedField{&f, &m, message});
      }
    }
  }
  std::unordered_map<const ProtobufMessage*, std::unordered_map<std::string_view, IndexedField>>
      byMessage_;
};

class Walker {
 public:
  std::optional<std::string> error;

  void message(const Json& object, const ProtobufMessage& m) {
    const SchemaIndex& index = SchemaIndex::get();
    for (const auto& [key, value] : object.get_ref<const Json::object_t&>()) {
      if (error) return;
      const IndexedField* f = index.find(m, key);
      if (f == nullptr) continue;
      path_.push_back(&key);
      field(value, *f);
      path_.pop_back();
    }
  }

 private:
  std::vector<const std::string*> path_;  // the JSON names from the top of the object

  void fail(std::string value, std::string_view inStruct, const std::string& goType) {
    std::string path;
    for (const std::string* name : path_) {
      if (!path.empty()) path += '.';
      path += *name;
    }
    error = fmt::format("json: cannot unmarshal {} into Go struct field {}.{} of type {}", value,
                        inStruct, path, goType);
  }

  void fail(const Json& v, const IndexedField& f, bool wholeField) {
    fail(jsonKind(v), structName(f.owner->name),
         wholeField ? goTypeOf(*f.field) : goTypeOfElement(*f.field));
  }

  void field(const Json& v, const IndexedField& f) {
    if (v.is_null()) return;
    switch (f.field->shape) {
      case ProtobufShape::Repeated:
        if (!v.is_array()) return fail(v, f, true);
        for (const Json& item : v) {
          if (error) return;
          element(item, f);
        }
        return;
      case ProtobufShape::Map:
        if (!v.is_object()) return fail(v, f, true);
        for (const auto& [key, item] : v.get_ref<const Json::object_t&>()) {
          if (error) return;
          element(item, f);
        }
        return;
      case ProtobufShape::Single:
        element(v, f);
        return;
    }
  }

  void element(const Json& v, const IndexedField& f) {
    if (v.is_null()) return;
    switch (f.field->value) {
      case ProtobufValue::String:
        if (!v.is_string()) fail(v, f, false);
        return;
      case ProtobufValue::Bytes:
        if (!v.is_string()) return fail(v, f, false);
        if (auto at = corruptBase64At(v.get_ref<const std::string&>())) {
          error = fmt::format("illegal base64 data at input byte {}", *at);
        }
        return;
      case ProtobufValue::Bool:
        if (!v.is_boolean()) fail(v, f, false);
        return;
      case ProtobufValue::Int32:
      case ProtobufValue::Int64: {
        if (!v.is_number()) return fail(v, f, false);
        const bool is32 = f.field->value == ProtobufValue::Int32;
        bool fits = false;
        if (v.is_number_integer() && !v.is_number_unsigned()) {
          const auto n = v.get<std::int64_t>();
          fits = !is32 || (n >= std::numeric_limits<std::int32_t>::min() &&
                           n <= std::numeric_limits<std::int32_t>::max());
        } else if (v.is_number_unsigned()) {
          const auto n = v.get<std::uint64_t>();
          fits = n <= static_cast<std::uint64_t>(is32 ? std::numeric_limits<std::int32_t>::max()
                                                      : std::numeric_limits<std::int64_t>::max());
        }
        if (!fits) {
          fail("number " + v.dump(), structName(f.owner->name), goTypeOfElement(*f.field));
        }
        return;
      }
      case ProtobufValue::Message: {
        if (!v.is_object()) return fail(v, f, false);
        if (f.message != nullptr) message(v, *f.message);
        return;
      }
      case ProtobufValue::Time:
      case ProtobufValue::MicroTime:
      case ProtobufValue::Quantity:
      case ProtobufValue::IntOrString:
      case ProtobufValue::FieldsV1:
        return;  // their own UnmarshalJSON; not checked here
    }
  }
};

}  // namespace

std::optional<std::string> goDecodingError(std::string_view apiVersion, std::string_view kind,
                                           const Json& object) {
  if (!object.is_object()) return std::nullopt;
  const ProtobufMessage* m = protobufMessageForKind(apiVersion, kind);
  if (m == nullptr) return std::nullopt;
  Walker walker;
  walker.message(object, *m);
  return walker.error;
}

std::optional<Status> checkFieldTypes(std::string_view apiVersion, std::string_view kind,
                                      const Json& object) {
  auto error = goDecodingError(apiVersion, kind, object);
  if (!error) return std::nullopt;
  const std::string version = GroupVersion::parse(apiVersion).version;
  return Status::badRequest(fmt::format("{} in version {} cannot be handled as a {}: {}", kind,
                                        goQuote(version), kind, *error));
}

}  // namespace fakekube
