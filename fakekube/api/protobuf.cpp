#include "fakekube/api/internal/protobuf.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fakekube/api/internal/base64.h"
#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/internal/protobuf_schema.h"

namespace fakekube {

namespace {

constexpr std::string_view kMagic{"k8s\0", 4};
// The schema has no cycles, so nesting is bounded by it; this is a second fence.
constexpr int kMaxDepth = 64;
// time.Time{}.Unix(): a Go zero time that reached the wire as seconds rather than as nothing.
constexpr std::int64_t kGoZeroTimeSeconds = -62135596800;

constexpr int kWireVarint = 0;
constexpr int kWireFixed64 = 1;
constexpr int kWireBytes = 2;
constexpr int kWireFixed32 = 5;

constexpr std::string_view kTimeMessage = "k8s.io.apimachinery.pkg.apis.meta.v1.Time";
constexpr std::string_view kMicroTimeMessage = "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime";
constexpr std::string_view kQuantityMessage = "k8s.io.apimachinery.pkg.api.resource.Quantity";
constexpr std::string_view kIntOrStringMessage = "k8s.io.apimachinery.pkg.util.intstr.IntOrString";
constexpr std::string_view kFieldsV1Message = "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1";
constexpr std::string_view kUnknownMessage = "k8s.io.apimachinery.pkg.runtime.Unknown";
constexpr std::string_view kTypeMetaMessage = "k8s.io.apimachinery.pkg.runtime.TypeMeta";

constexpr std::string_view kAccepted =
    "accepted media types include: application/json, application/yaml";

Status unsupported(std::string_view why) {
  return Status::unsupportedMediaType(
      fmt::format("the body of the request was in an unknown format - {}; {}", why, kAccepted));
}

// Reads the protobuf wire format over a byte range; every read checks the bounds.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  bool atEnd() const { return position_ >= data_.size(); }

  // A base-128 varint of at most 10 bytes, as Go's generated code reads it.
  bool varint(std::uint64_t& out) {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (position_ >= data_.size()) return false;
      const auto byte = static_cast<unsigned char>(data_[position_++]);
      if (shift < 64) value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        out = value;
        return true;
      }
    }
    return false;
  }

  bool lengthDelimited(std::string_view& out) {
    std::uint64_t length = 0;
    if (!varint(length) || length > data_.size() - position_) return false;
    out = data_.substr(position_, static_cast<std::size_t>(length));
    position_ += static_cast<std::size_t>(length);
    return true;
  }

  bool skip(std::size_t bytes) {
    if (bytes > data_.size() - position_) return false;
    position_ += bytes;
    return true;
  }

 private:
  std::string_view data_;
  std::size_t position_ = 0;
};

// Go's encoding/json writes each byte of an invalid UTF-8 sequence as U+FFFD.
std::string validUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::size_t i = 0;
  while (i < size) {
    const unsigned char lead = bytes[i];
    std::size_t length = 0;
    std::uint32_t codePoint = 0;
    if (lead < 0x80) {
      length = 1;
      codePoint = lead;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
      codePoint = lead & 0x1f;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      codePoint = lead & 0x0f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      codePoint = lead & 0x07;
    }
    bool valid = length > 0 && i + length <= size;
    for (std::size_t k = 1; valid && k < length; ++k) {
      if ((bytes[i + k] & 0xc0) != 0x80) valid = false;
      codePoint = (codePoint << 6) | (bytes[i + k] & 0x3f);
    }
    if (valid && length == 3 && (codePoint < 0x800 || (codePoint >= 0xd800 && codePoint <= 0xdfff)))
      valid = false;
    if (valid && length == 4 && (codePoint < 0x10000 || codePoint > 0x10ffff)) valid = false;
    if (valid) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += "\xef\xbf\xbd";
      ++i;
    }
  }
  return out;
}

std::int64_t floorDivide(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// RFC 3339 in UTC, as metav1.Time (seconds) or metav1.MicroTime (microseconds) write it; nullopt
// outside years 0-9999, where Go's Time.MarshalJSON fails.
std::optional<std::string> formatTime(std::int64_t seconds, std::optional<std::int64_t> micros) {
  constexpr std::int64_t kYear0 = -62167219200;      // 0000-01-01T00:00:00Z
  constexpr std::int64_t kYear10000 = 253402300800;  // 10000-01-01T00:00:00Z
  if (seconds < kYear0 || seconds >= kYear10000) return std::nullopt;
  const std::int64_t days = floorDivide(seconds, 86400);
  const std::int64_t secondOfDay = seconds - days * 86400;
  // Howard Hinnant's civil_from_days.
  const std::int64_t z = days + 719468;
  const std::int64_t era = floorDivide(z, 146097);
  const std::int64_t dayOfEra = z - era * 146097;
  const std::int64_t yearOfEra =
      (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
  const std::int64_t dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
  const std::int64_t mp = (5 * dayOfYear + 2) / 153;
  const std::int64_t day = dayOfYear - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", year, month, day,
                                secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60);
  if (micros) out += fmt::format(".{:06}", *micros);
  return out + "Z";
}

const char* wireTypeName(int wire) {
  switch (wire) {
    case kWireVarint:
      return "varint";
    case kWireFixed64:
      return "64-bit";
    case kWireBytes:
      return "length-delimited";
    case kWireFixed32:
      return "32-bit";
    default:
      return "group";
  }
}

bool isNumeric(ProtobufValue value) {
  return value == ProtobufValue::Bool || value == ProtobufValue::Int32 ||
         value == ProtobufValue::Int64;
}

// The JSON a map entry without a value stands for: the Go zero value of the map's value type.
Json zeroValue(ProtobufValue value) {
  switch (value) {
    case ProtobufValue::String:
    case ProtobufValue::Bytes:
      return "";
    case ProtobufValue::Bool:
      return false;
    case ProtobufValue::Int32:
    case ProtobufValue::Int64:
    case ProtobufValue::IntOrString:
      return 0;
    case ProtobufValue::Quantity:
      return "0";
    case ProtobufValue::Message:
      return Json::object();
    case ProtobufValue::Time:
    case ProtobufValue::MicroTime:
    case ProtobufValue::FieldsV1:
      return nullptr;
  }
  return nullptr;
}

bool isZero(const Json& value) {
  if (value.is_string()) return value.get_ref<const std::string&>().empty();
  if (value.is_boolean()) return !value.get<bool>();
  if (value.is_number_integer()) return value.get<std::int64_t>() == 0;
  return value.is_null();
}

// Decodes one object against the schema table, tracking the JSON path for error messages.
class Decoder {
 public:
  // Decodes `bytes`, a message of `schema`, into the JSON object `out` (merging, as protobuf
  // merges a message that appears more than once).
  Result<void> message(std::string_view bytes, const ProtobufMessage& schema, Json& out,
                       int depth) {
    if (depth > kMaxDepth) return tl::unexpected(malformed("messages nested too deeply"));
    if (!out.is_object()) out = Json::object();
    WireReader reader(bytes);
    while (!reader.atEnd()) {
      int number = 0;
      int wire = 0;
      if (auto tag = readTag(reader, number, wire); !tag) return tag;
      const ProtobufField* field = schema.field(number);
      if (field == nullptr) return tl::unexpected(unknownField(schema.name, number));
      if (auto decoded = decodeField(*field, schema, wire, reader, out, depth); !decoded) {
        return decoded;
      }
    }
    for (const ProtobufField& field : schema.fields) {
      if (field.nullWhenUnset && !out.contains(field.jsonName)) out[field.jsonName] = nullptr;
    }
    return {};
  }

  Status malformed(std::string_view what) const {
    std::string where = path();
    return Status::badRequest(fmt::format("the protobuf body is malformed: {}{}{}", where,
                                          where.empty() ? "" : ": ", what));
  }

  Status unknownField(std::string_view messageName, int number) const {
    std::string where = path();
    return unsupported(fmt::format("protobuf field {} of {}{}{} is not supported", number,
                                   messageName, where.empty() ? "" : " at ", where));
  }

 private:
  Result<void> readTag(WireReader& reader, int& number, int& wire) const {
    std::uint64_t tag = 0;
    if (!reader.varint(tag)) return tl::unexpected(malformed("truncated field tag"));
    wire = static_cast<int>(tag & 7);
    const std::uint64_t fieldNumber = tag >> 3;
    if (fieldNumber == 0 || fieldNumber > 536870911) {
      return tl::unexpected(malformed(fmt::format("invalid field number {}", fieldNumber)));
    }
    number = static_cast<int>(fieldNumber);
    if (wire != kWireVarint && wire != kWireFixed64 && wire != kWireBytes && wire != kWireFixed32) {
      return tl::unexpected(
          malformed(fmt::format("field {} has the unsupported wire type {}", number, wire)));
    }
    return {};
  }

  Status wrongWireType(const ProtobufField& field, std::string_view messageName, int wire,
                       int expected) const {
    return malformed(fmt::format("field {} ({}) of {} has wire type {}, expected {}", field.number,
                                 field.jsonName, messageName, wireTypeName(wire),
                                 wireTypeName(expected)));
  }

  Result<void> decodeField(const ProtobufField& field, const ProtobufMessage& schema, int wire,
                           WireReader& reader, Json& out, int depth) {
    const int expected = isNumeric(field.value) ? kWireVarint : kWireBytes;
    if (field.shape == ProtobufShape::Map) {
      if (wire != kWireBytes) return tl::unexpected(wrongWireType(field, schema.name, wire, 2));
      std::string_view entry;
      if (!reader.lengthDelimited(entry)) return tl::unexpected(truncated(field));
      return mapEntry(field, entry, out, depth);
    }
    if (field.shape == ProtobufShape::Repeated) {
      Json& list = out[field.jsonName];
      if (!list.is_array()) list = Json::array();
      if (isNumeric(field.value) && wire == kWireBytes) {  // packed
        std::string_view packed;
        if (!reader.lengthDelimited(packed)) return tl::unexpected(truncated(field));
        WireReader elements(packed);
        while (!elements.atEnd()) {
          auto element = scalar(field, elements);
          if (!element) return tl::unexpected(element.error());
          list.push_back(std::move(*element));
        }
        return {};
      }
      if (wire != expected) {
        return tl::unexpected(wrongWireType(field, schema.name, wire, expected));
      }
      path_.push_back(fmt::format("{}[{}]", field.jsonName, list.size()));
      auto element = value(field, reader, depth);
      path_.pop_back();
      if (!element) return tl::unexpected(element.error());
      list.push_back(std::move(*element));
      return {};
    }
    if (wire != expected) return tl::unexpected(wrongWireType(field, schema.name, wire, expected));
    if (field.value == ProtobufValue::Message) {
      const ProtobufMessage* nested = protobufMessageNamed(field.message);
      std::string_view bytes;
      if (nested == nullptr) return tl::unexpected(unknownField(schema.name, field.number));
      if (!reader.lengthDelimited(bytes)) return tl::unexpected(truncated(field));
      if (field.inlined) return message(bytes, *nested, out, depth + 1);
      path_.push_back(field.jsonName);
      auto decoded = message(bytes, *nested, out[field.jsonName], depth + 1);
      path_.pop_back();
      return decoded;
    }
    path_.push_back(field.jsonName);
    auto decoded = value(field, reader, depth);
    path_.pop_back();
    if (!decoded) return tl::unexpected(decoded.error());
    if (!field.keepZero && isZero(*decoded)) {
      out.erase(field.jsonName);
    } else {
      out[field.jsonName] = std::move(*decoded);
    }
    return {};
  }

  Status truncated(const ProtobufField& field) const {
    return malformed(fmt::format("field {} ({}) runs past the end of its message", field.number,
                                 field.jsonName));
  }

  // A varint scalar: bool, int32 (negative values are sign-extended to 10 bytes), int64.
  Result<Json> scalar(const ProtobufField& field, WireReader& reader) const {
    std::uint64_t raw = 0;
    if (!reader.varint(raw)) return tl::unexpected(truncated(field));
    switch (field.value) {
      case ProtobufValue::Bool:
        return Json(raw != 0);
      case ProtobufValue::Int32:
        return Json(static_cast<std::int32_t>(static_cast<std::uint32_t>(raw)));
      default:
        return Json(static_cast<std::int64_t>(raw));
    }
  }

  // One value of `field` whose wire type has been checked.
  Result<Json> value(const ProtobufField& field, WireReader& reader, int depth) {
    if (isNumeric(field.value)) return scalar(field, reader);
    std::string_view bytes;
    if (!reader.lengthDelimited(bytes)) return tl::unexpected(truncated(field));
    switch (field.value) {
      case ProtobufValue::String:
        return Json(validUtf8(bytes));
      case ProtobufValue::Bytes:
        return Json(base64Encode(bytes));
      case ProtobufValue::Message: {
        const ProtobufMessage* nested = protobufMessageNamed(field.message);
        if (nested == nullptr) return tl::unexpected(unknownField(field.message, field.number));
        Json object = Json::object();
        if (auto decoded = message(bytes, *nested, object, depth + 1); !decoded) {
          return tl::unexpected(decoded.error());
        }
        return object;
      }
      case ProtobufValue::Time:
      case ProtobufValue::MicroTime:
        return time(bytes, field.value == ProtobufValue::MicroTime);
      case ProtobufValue::Quantity:
        return quantity(bytes);
      case ProtobufValue::IntOrString:
        return intOrString(bytes);
      case ProtobufValue::FieldsV1:
        return fieldsV1(bytes);
      default:
        return tl::unexpected(malformed("unexpected value type"));
    }
  }

  Result<void> mapEntry(const ProtobufField& field, std::string_view entry, Json& out, int depth) {
    WireReader reader(entry);
    std::string key;
    std::optional<Json> entryValue;
    while (!reader.atEnd()) {
      int number = 0;
      int wire = 0;
      if (auto tag = readTag(reader, number, wire); !tag) return tag;
      if (number == 1) {
        std::string_view bytes;
        if (wire != kWireBytes || !reader.lengthDelimited(bytes)) {
          return tl::unexpected(
              malformed(fmt::format("bad key in an entry of {}", field.jsonName)));
        }
        key = validUtf8(bytes);
      } else if (number == 2) {
        const int expected = isNumeric(field.value) ? kWireVarint : kWireBytes;
        if (wire != expected) {
          return tl::unexpected(
              malformed(fmt::format("bad value in an entry of {}", field.jsonName)));
        }
        path_.push_back(fmt::format("{}[{}]", field.jsonName, key));
        auto decoded = value(field, reader, depth);
        path_.pop_back();
        if (!decoded) return tl::unexpected(decoded.error());
        entryValue = std::move(*decoded);
      } else {
        return tl::unexpected(
            malformed(fmt::format("field {} in an entry of map {}", number, field.jsonName)));
      }
    }
    Json& map = out[field.jsonName];
    if (!map.is_object()) map = Json::object();
    map[key] = entryValue ? std::move(*entryValue) : zeroValue(field.value);
    return {};
  }

  // Reads the fields of one of the small special messages; `onField` returns false to reject.
  template <class OnField>
  Result<void> special(std::string_view bytes, std::string_view messageName, OnField onField) {
    WireReader reader(bytes);
    while (!reader.atEnd()) {
      int number = 0;
      int wire = 0;
      if (auto tag = readTag(reader, number, wire); !tag) return tag;
      auto handled = onField(number, wire, reader);
      if (!handled) return tl::unexpected(handled.error());
      if (!*handled) return tl::unexpected(unknownField(messageName, number));
    }
    return {};
  }

  // {varint field `number`} of a special message, checked.
  Result<bool> specialVarint(WireReader& reader, int wire, std::string_view messageName,
                             std::uint64_t& out) const {
    if (wire != kWireVarint) {
      return tl::unexpected(malformed(
          fmt::format("{} has a field of wire type {}", messageName, wireTypeName(wire))));
    }
    if (!reader.varint(out))
      return tl::unexpected(malformed(fmt::format("truncated {}", messageName)));
    return true;
  }

  Result<bool> specialBytes(WireReader& reader, int wire, std::string_view messageName,
                            std::string_view& out) const {
    if (wire != kWireBytes) {
      return tl::unexpected(malformed(
          fmt::format("{} has a field of wire type {}", messageName, wireTypeName(wire))));
    }
    if (!reader.lengthDelimited(out)) {
      return tl::unexpected(malformed(fmt::format("truncated {}", messageName)));
    }
    return true;
  }

  // metav1.Time drops the nanoseconds when it unmarshals (time_proto.go); MicroTime keeps them.
  Result<Json> time(std::string_view bytes, bool micro) {
    if (bytes.empty()) return Json(nullptr);
    const std::string_view name = micro ? kMicroTimeMessage : kTimeMessage;
    std::uint64_t seconds = 0;
    std::uint64_t nanos = 0;
    auto read = special(bytes, name, [&](int number, int wire, WireReader& r) -> Result<bool> {
      if (number == 1) return specialVarint(r, wire, name, seconds);
      if (number == 2) return specialVarint(r, wire, name, nanos);
      return false;
    });
    if (!read) return tl::unexpected(read.error());
    std::int64_t unixSeconds = static_cast<std::int64_t>(seconds);
    std::int64_t nanoseconds = micro ? static_cast<std::int32_t>(nanos) : 0;
    if (unixSeconds == kGoZeroTimeSeconds && nanoseconds == 0) return Json(nullptr);
    // time.Unix normalises nanoseconds outside [0, 1e9).
    if (nanoseconds < 0 || nanoseconds >= 1000000000) {
      const std::int64_t carry = floorDivide(nanoseconds, 1000000000);
      if (unixSeconds > std::numeric_limits<std::int64_t>::max() - 4 ||
          unixSeconds < std::numeric_limits<std::int64_t>::min() + 4) {
        return tl::unexpected(malformed(fmt::format("{} out of range", name)));
      }
      unixSeconds += carry;
      nanoseconds -= carry * 1000000000;
    }
    auto text = formatTime(unixSeconds,
                           micro ? std::optional<std::int64_t>(nanoseconds / 1000) : std::nullopt);
    if (!text) {
      return tl::unexpected(malformed(
          fmt::format("{}: year outside of range [0,9999] (seconds {})", name, unixSeconds)));
    }
    return Json(*text);
  }

  // resource.Quantity {string=1}: the quantity's string; an empty message is the zero quantity.
  Result<Json> quantity(std::string_view bytes) {
    std::optional<std::string> text;
    auto read =
        special(bytes, kQuantityMessage, [&](int number, int wire, WireReader& r) -> Result<bool> {
          if (number != 1) return false;
          std::string_view value;
          auto ok = specialBytes(r, wire, kQuantityMessage, value);
          if (ok) text = validUtf8(value);
          return ok;
        });
    if (!read) return tl::unexpected(read.error());
    return Json(text.value_or("0"));
  }

  // intstr.IntOrString {type=1, intVal=2, strVal=3}: intVal when type is 0, strVal when 1.
  Result<Json> intOrString(std::string_view bytes) {
    std::uint64_t type = 0;
    std::uint64_t intValue = 0;
    std::string stringValue;
    auto read = special(bytes, kIntOrStringMessage,
                        [&](int number, int wire, WireReader& r) -> Result<bool> {
                          if (number == 1) return specialVarint(r, wire, kIntOrStringMessage, type);
                          if (number == 2) {
                            return specialVarint(r, wire, kIntOrStringMessage, intValue);
                          }
                          if (number != 3) return false;
                          std::string_view value;
                          auto ok = specialBytes(r, wire, kIntOrStringMessage, value);
                          if (ok) stringValue = validUtf8(value);
                          return ok;
                        });
    if (!read) return tl::unexpected(read.error());
    if (type == 0) return Json(static_cast<std::int32_t>(static_cast<std::uint32_t>(intValue)));
    if (type == 1) return Json(stringValue);
    return tl::unexpected(malformed(fmt::format("IntOrString of unknown type {}", type)));
  }

  // metav1.FieldsV1 {Raw=1}: the JSON document Raw holds (null when absent).
  Result<Json> fieldsV1(std::string_view bytes) {
    std::optional<std::string_view> raw;
    auto read =
        special(bytes, kFieldsV1Message, [&](int number, int wire, WireReader& r) -> Result<bool> {
          if (number != 1) return false;
          std::string_view value;
          auto ok = specialBytes(r, wire, kFieldsV1Message, value);
          if (ok) raw = value;
          return ok;
        });
    if (!read) return tl::unexpected(read.error());
    if (!raw) return Json(nullptr);
    if (auto tooDeep = checkJsonTextDepth(*raw)) {
      return tl::unexpected(malformed("fieldsV1: " + *tooDeep));
    }
    auto parsed = parseJsonText(*raw);  // untrusted text: no n^2 build (json_object_map.h)
    if (!parsed) return tl::unexpected(malformed("fieldsV1 is not a JSON document"));
    return std::move(*parsed);
  }

  std::string path() const {
    std::string out;
    for (const std::string& segment : path_) {
      if (!out.empty()) out += '.';
      out += segment;
    }
    return out;
  }

  std::vector<std::string> path_;
};

// runtime.Unknown, the envelope.
struct Envelope {
  std::string apiVersion;
  std::string kind;
  std::string_view raw;
  std::string contentEncoding;
  std::string contentType;
};

Result<Envelope> readEnvelope(std::string_view bytes) {
  Decoder errors;
  Envelope envelope;
  WireReader reader(bytes);
  auto bad = [&](std::string_view what) {
    return tl::unexpected(errors.malformed(fmt::format("{}: {}", kUnknownMessage, what)));
  };
  auto readString = [&](int wire, std::string_view& out) {
    return wire == kWireBytes && reader.lengthDelimited(out);
  };
  while (!reader.atEnd()) {
    std::uint64_t tag = 0;
    if (!reader.varint(tag)) return bad("truncated field tag");
    const int wire = static_cast<int>(tag & 7);
    const std::uint64_t number = tag >> 3;
    std::string_view value;
    if (number < 1 || number > 4) {
      if (wire != kWireVarint && wire != kWireFixed64 && wire != kWireBytes &&
          wire != kWireFixed32) {
        return bad("invalid wire type");
      }
      return tl::unexpected(errors.unknownField(
          kUnknownMessage, static_cast<int>(std::min<std::uint64_t>(number, 536870911))));
    }
    if (!readString(wire, value)) {
      return bad(fmt::format("field {} is not length-delimited or runs past the end", number));
    }
    switch (number) {
      case 1: {
        WireReader typeMeta(value);
        while (!typeMeta.atEnd()) {
          std::uint64_t innerTag = 0;
          std::string_view text;
          if (!typeMeta.varint(innerTag) || (innerTag & 7) != kWireBytes ||
              !typeMeta.lengthDelimited(text)) {
            return bad("malformed typeMeta");
          }
          if ((innerTag >> 3) == 1) {
            envelope.apiVersion = validUtf8(text);
          } else if ((innerTag >> 3) == 2) {
            envelope.kind = validUtf8(text);
          } else {
            return tl::unexpected(errors.unknownField(
                kTypeMetaMessage,
                static_cast<int>(std::min<std::uint64_t>(innerTag >> 3, 536870911))));
          }
        }
        break;
      }
      case 2:
        envelope.raw = value;
        break;
      case 3:
        envelope.contentEncoding = validUtf8(value);
        break;
      case 4:
        envelope.contentType = validUtf8(value);
        break;
    }
  }
  return envelope;
}

}  // namespace

Result<Json> decodeKubernetesProtobuf(std::string_view body) {
  if (body.size() < kMagic.size() || body.substr(0, kMagic.size()) != kMagic) {
    return tl::unexpected(Status::badRequest(
        "the protobuf body does not start with the Kubernetes magic bytes \"k8s\\x00\""));
  }
  auto envelope = readEnvelope(body.substr(kMagic.size()));
  if (!envelope) return tl::unexpected(envelope.error());
  if (envelope->kind.empty()) {
    return tl::unexpected(Status::badRequest("Object 'Kind' is missing in the protobuf body"));
  }
  if (envelope->apiVersion.empty()) {
    return tl::unexpected(
        Status::badRequest("Object 'apiVersion' is missing in the protobuf body"));
  }
  if (!envelope->contentEncoding.empty()) {
    return tl::unexpected(unsupported(fmt::format(
        "protobuf content encoding \"{}\" is not supported", envelope->contentEncoding)));
  }
  if (!envelope->contentType.empty() && envelope->contentType != kKubernetesProtobufMediaType) {
    return tl::unexpected(unsupported(
        fmt::format("protobuf raw content type \"{}\" is not supported", envelope->contentType)));
  }
  const ProtobufMessage* schema = protobufMessageForKind(envelope->apiVersion, envelope->kind);
  if (schema == nullptr) {
    return tl::unexpected(unsupported(fmt::format("{} bodies of kind {} in {} are not supported",
                                                  kKubernetesProtobufMediaType, envelope->kind,
                                                  envelope->apiVersion)));
  }
  Json object = Json::object();
  Decoder decoder;
  if (auto decoded = decoder.message(envelope->raw, *schema, object, 0); !decoded) {
    return tl::unexpected(decoded.error());
  }
  object["apiVersion"] = envelope->apiVersion;
  object["kind"] = envelope->kind;
  return object;
}

}  // namespace fakekube
