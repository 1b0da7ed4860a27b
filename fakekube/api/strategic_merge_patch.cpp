#include "fakekube/api/internal/strategic_merge_patch.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fakekube/api/internal/json_decode.h"

namespace fakekube {

namespace {

// The directives, as k8s.io/apimachinery/pkg/util/strategicpatch spells them.
constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrder = "$setElementOrder";
constexpr std::string_view kGoMap = "map[string]interface {}";
constexpr std::string_view kGoSlice = "[]interface {}";

// An error of the merge, or none. A pointer rather than an optional<Status>: the merge recurses
// once per level of the patch, which may nest kMaxJsonNestingDepth (json_decode.h) deep, and
// every Error a frame holds would otherwise take the size of a Status.
class Error {
 public:
  Error() = default;
  Error(std::nullopt_t) {}
  Error(Status status) : status_(std::make_unique<Status>(std::move(status))) {}
  explicit operator bool() const { return status_ != nullptr; }
  Status& operator*() const { return *status_; }

 private:
  std::unique_ptr<Status> status_;
};
using Field = PatchSchema::Field;

// --- Go's rendering of decoded JSON, which the error messages quote ---

// reflect.TypeOf(v).String() for a value encoding/json decoded (integers preserved).
std::string goTypeName(const Json& v) {
  switch (v.type()) {
    case Json::value_t::object:
      return std::string(kGoMap);
    case Json::value_t::array:
      return std::string(kGoSlice);
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "bool";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "int64";
    case Json::value_t::number_float:
      return "float64";
    default:
      return "<nil>";
  }
}

// fmt's %v of a float64: strconv 'g' with the shortest digits and exponent threshold 6.
std::string goFloat(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string text(buffer, result.ptr);  // "-1.5e+00"
  const std::size_t e = text.find('e');
  const int exponent = std::stoi(text.substr(e + 1));
  const bool negative = text[0] == '-';
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c >= '0' && c <= '9') digits += c;
  }
  const int count = static_cast<int>(digits.size());
  const int point = exponent + 1;  // digits before the decimal point
  std::string out;
  if (exponent < -4 || exponent >= 6) {
    out = digits.substr(0, 1);
    if (count > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02d}", exponent < 0 ? '-' : '+', std::abs(exponent));
  } else if (point <= 0) {
    out = "0." + std::string(-point, '0') + digits;
  } else if (point >= count) {
    out = digits + std::string(point - count, '0');
  } else {
    out = digits.substr(0, point) + "." + digits.substr(point);
  }
  return negative ? "-" + out : out;
}

// fmt's %v: map[k:v k2:v2] with sorted keys, [a b] for slices, <nil> for null.
std::string goValue(const Json& v) {
  switch (v.type()) {
    case Json::value_t::object: {
      std::vector<std::string> members;
      for (const auto& [key, value] : v.items()) members.push_back(key + ":" + goValue(value));
      return fmt::format("map[{}]", fmt::join(members, " "));
    }
    case Json::value_t::array: {
      std::vector<std::string> items;
      for (const auto& item : v) items.push_back(goValue(item));
      return fmt::format("[{}]", fmt::join(items, " "));
    }
    case Json::value_t::string:
      return v.get<std::string>();
    case Json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
      return std::to_string(v.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return std::to_string(v.get<std::uint64_t>());
    case Json::value_t::number_float:
      return goFloat(v.get<double>());
    default:
      return "<nil>";
  }
}

// fmt's %s: strings as they are, anything else flagged as Go flags a wrong verb.
std::string goString(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "%!s(<nil>)";
  if (v.is_object() || v.is_array()) return goValue(v);
  return fmt::format("%!s({}={})", goTypeName(v), goValue(v));
}

// Go's == on two decoded values: the same dynamic type and value.
bool goEqual(const Json& a, const Json& b) { return goTypeName(a) == goTypeName(b) && a == b; }

// --- the errors, with the codes interpretStrategicMergePatchError gives them ---

// Errors the API server does not map to a Status reach the client as an untyped 500.
Status untyped(std::string message) { return Status::generic(500, "", message); }

Status noMergeKey(const Json& map, std::string_view key) {
  return untyped(fmt::format("map: {} does not contain declared merge key: {}", goValue(map), key));
}

Status badArgType(std::string_view expected, const Json& actual) {
  return untyped(fmt::format("expected a {}, but received a {}", expected, goTypeName(actual)));
}

Status badPatchType(const Json& type, const Json& map) {
  return untyped(fmt::format("unknown patch type: {} in map: {}", goString(type), goValue(map)));
}

Status badPrimitiveListFormat() {
  return Status::badRequest("invalid patch format of primitive list");
}
Status badRetainKeysFormat() { return Status::badRequest("invalid patch format of retainKeys"); }
Status badSetElementOrderFormat() {
  return Status::badRequest("invalid patch format of setElementOrder list");
}

// ErrNoListOfLists: NewGenericServerResponse(422) keeps only its fixed message.
Status listOfLists() {
  return Status::generic(422, "Invalid",
                         "the server rejected our request due to an error in our request");
}

// --- helpers ---

bool isDeleteElement(const Json& v) {
  if (!v.is_object()) return false;
  auto d = v.find(kDirective);
  return d != v.end() && *d == "delete";
}

bool hasDirective(const Json& v) { return v.is_object() && v.contains(kDirective); }

// Removes null members everywhere below `v` (discardNullValuesFromPatch).
void discardNulls(Json& v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      if (it->is_null()) {
        it = v.erase(it);
      } else {
        discardNulls(*it);
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (auto& item : v) discardNulls(item);
  }
}

// The field name after "<prefix>/" in a directive key.
Result<std::string> extractKey(std::string_view key, std::string_view prefix) {
  const std::size_t slash = key.find('/');
  if (slash == std::string_view::npos || key.substr(0, slash) != prefix) {
    if (prefix == kDeleteFromPrimitiveList) return tl::unexpected(badPrimitiveListFormat());
    return tl::unexpected(badSetElementOrderFormat());
  }
  return std::string(key.substr(slash + 1));
}

// The Go type every element of `lists` shares (sliceElementType).
Result<std::string> elementType(std::initializer_list<const Json*> lists) {
  std::optional<std::string> type;
  for (const Json* list : lists) {
    for (const auto& v : *list) {
      std::string t = goTypeName(v);
      if (!type) {
        if (t == kGoSlice) return tl::unexpected(listOfLists());
        type = std::move(t);
      } else if (*type != t) {
        std::vector<std::string> rendered;
        for (const Json* l : lists) rendered.push_back(goValue(*l));
        return tl::unexpected(untyped(
            fmt::format("list element types are not identical: [{}]", fmt::join(rendered, " "))));
      }
    }
  }
  if (!type) return tl::unexpected(untyped("no elements in any of the given slices"));
  return *type;
}

// The position of `item` in `list`: by merge key value for objects, by value otherwise.
int indexOf(const Json& list, const Json& item, std::string_view mergeKey, bool maps) {
  auto keyOf = [&](const Json& v) -> Json {
    if (!maps) return v;
    if (!v.is_object()) return nullptr;
    auto it = v.find(mergeKey);
    return it == v.end() ? Json() : *it;
  };
  const Json wanted = keyOf(item);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (goEqual(keyOf(list[i]), wanted)) return static_cast<int>(i);
  }
  return -1;
}

Error requireMergeKey(const Json& list, std::string_view mergeKey) {
  for (const auto& item : list) {
    if (!item.is_object()) return badArgType(kGoMap, item);
    if (!item.contains(mergeKey)) return noMergeKey(item, mergeKey);
  }
  return std::nullopt;
}

// Splits `merged` into the elements present in `by` and the others, keeping their order.
Error partition(const Json& merged, const Json& by, std::string_view mergeKey, bool maps,
                Json& present, Json& absent) {
  present = Json::array();
  absent = Json::array();
  for (const auto& v : merged) {
    if (maps) {
      if (!v.is_object()) return badArgType(kGoMap, v);
      if (!v.contains(mergeKey)) return noMergeKey(v, mergeKey);
      for (std::size_t i = 0; i < by.size(); ++i) {
        if (!by[i].is_object()) return untyped(fmt::format("value for key {} is not a map.", i));
      }
    }
    (indexOf(by, v, mergeKey, maps) >= 0 ? present : absent).push_back(v);
  }
  return std::nullopt;
}

// Sorts `items` by their position in `order` (normalizeSliceOrder).
Error sortByOrder(Json& items, const Json& order, std::string_view mergeKey, bool maps) {
  if (maps) {
    if (auto e = requireMergeKey(items, mergeKey)) return e;
    if (auto e = requireMergeKey(order, mergeKey)) return e;
  }
  std::vector<std::pair<int, Json>> keyed;
  for (auto& item : items) {
    int i = indexOf(order, item, mergeKey, maps);
    keyed.emplace_back(i < 0 ? INT_MAX : i, std::move(item));
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  items = Json::array();
  for (auto& [i, item] : keyed) items.push_back(std::move(item));
  return std::nullopt;
}

// normalizeElementOrder: the patch's elements in `patchOrder`, the server-only elements in
// `serverOrder`, interleaved by their places in `serverOrder` (mergeSortedSlice).
Result<Json> normalizeElementOrder(Json patchItems, Json serverOnly, const Json& patchOrder,
                                   const Json& serverOrder, std::string_view mergeKey, bool maps) {
  if (auto e = sortByOrder(patchItems, patchOrder, mergeKey, maps)) return tl::unexpected(*e);
  if (auto e = sortByOrder(serverOnly, serverOrder, mergeKey, maps)) return tl::unexpected(*e);
  Json all = Json::array();
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < serverOnly.size() || j < patchItems.size()) {
    if (i >= serverOnly.size()) {
      all.push_back(std::move(patchItems[j++]));
    } else if (j >= patchItems.size()) {
      all.push_back(std::move(serverOnly[i++]));
    } else {
      const int left = indexOf(serverOrder, serverOnly[i], mergeKey, maps);
      const int right = indexOf(serverOrder, patchItems[j], mergeKey, maps);
      if (left >= 0 && right >= 0 && left < right) {
        all.push_back(std::move(serverOnly[i++]));
      } else {
        all.push_back(std::move(patchItems[j++]));
      }
    }
  }
  return all;
}

// deleteFromSlice: the scalars of `original` that `patch` (a $deleteFromPrimitiveList) does not
// name.
void deleteFromSlice(Json& original, const Json& patch) {
  Json kept = Json::array();
  for (auto& v : original) {
    bool removed =
        std::any_of(patch.begin(), patch.end(), [&](const Json& d) { return goEqual(d, v); });
    if (!removed) kept.push_back(std::move(v));
  }
  original = std::move(kept);
}

// deduplicateScalars: a later duplicate is replaced by the last element.
void deduplicateScalars(Json& merged) {
  std::size_t length = merged.size();
  for (std::size_t i = 0; i + 1 < length; ++i) {
    for (std::size_t j = i + 1; j < length; ++j) {
      if (goEqual(merged[i], merged[j])) {
        merged[j] = merged[length - 1];
        --length;
        --j;
      }
    }
  }
  merged.erase(merged.begin() + static_cast<std::ptrdiff_t>(length), merged.end());
}

// mergeSliceWithSpecialElements: the elements of a list of maps with a $patch directive, applied
// to `serverOrder` (delete removes the element of the same key, replace makes the patch's plain
// elements the whole list); `patch` keeps the plain elements, to be merged.
Error mergeSliceWithSpecialElements(Json& serverOrder, Json& patch, const std::string& mergeKey) {
  Json plain = Json::array();
  bool replace = false;
  for (auto& v : patch) {
    auto d = v.find(kDirective);
    if (d == v.end()) {
      plain.push_back(std::move(v));
    } else if (*d == "delete") {
      auto key = v.find(mergeKey);
      if (key == v.end()) return noMergeKey(v, mergeKey);
      Json kept = Json::array();
      for (auto& o : serverOrder) {
        auto ok = o.find(mergeKey);
        if (!(ok != o.end() && goEqual(*ok, *key))) kept.push_back(std::move(o));
      }
      serverOrder = std::move(kept);
    } else if (*d == "replace") {
      replace = true;
    } else if (*d == "merge") {
      return untyped("merging lists cannot yet be specified in the patch");
    } else {
      return badPatchType(*d, v);
    }
  }
  if (replace) {
    discardNulls(plain);
    serverOrder = std::move(plain);
    plain = Json::array();
  }
  patch = std::move(plain);
  return std::nullopt;
}

// --- the merge ---

class Merger {
 public:
  Error mergeMap(Json& original, Json patch, const PatchSchema& schema);

 private:
  // Out of line, so that their locals stay out of the frame of mergeMap, which recurses.
  [[gnu::noinline]] Error retainKeys(Json& original, Json& patch);
  [[gnu::noinline]] Error mergeOrderedLists(Json& original, Json& patch, const PatchSchema& schema);
  [[gnu::noinline]] Error replaceMap(Json& original, Json& patch, const PatchSchema& schema);
  Error mergeListField(Json& original, Json patch, const Field& field, bool deleteList);
  [[gnu::noinline]] Error mergeSlice(Json& original, Json patch, const Field& field,
                                     bool deleteList);
  Error freshValue(Json& value, const Field& field);
};

// A value where the original has none, in place: directives are applied to nothing and nulls
// dropped.
Error Merger::freshValue(Json& value, const Field& field) {
  if (value.is_object() && !field.atomicObject) {
    Json out = Json::object();
    if (auto e = mergeMap(out, std::move(value), field.schema)) return e;
    value = std::move(out);
    return std::nullopt;
  }
  if (value.is_array() && field.mergesList()) {
    Json out = Json::array();
    if (auto e = mergeSlice(out, std::move(value), field, false)) return e;
    value = std::move(out);
    return std::nullopt;
  }
  discardNulls(value);
  return std::nullopt;
}

// "$patch": "replace" (the map becomes the patch's, directives applied), "delete", or an error.
Error Merger::replaceMap(Json& original, Json& patch, const PatchSchema& schema) {
  auto d = patch.find(kDirective);
  if (*d == "replace") {
    patch.erase(d);
    Json replaced = Json::object();
    if (auto e = mergeMap(replaced, std::move(patch), schema)) return e;
    original = std::move(replaced);
    return std::nullopt;
  }
  if (*d == "delete") {
    original = Json::object();
    return std::nullopt;
  }
  return badPatchType(*d, patch);
}

// The field a "$deleteFromPrimitiveList/<field>" key names, in place of the key.
[[gnu::noinline]] Error deleteListField(std::string& key) {
  auto field = extractKey(key, kDeleteFromPrimitiveList);
  if (!field) return field.error();
  key = std::move(*field);
  return std::nullopt;
}

Error Merger::mergeMap(Json& original, Json patch, const PatchSchema& schema) {
  if (patch.contains(kDirective)) return replaceMap(original, patch, schema);
  if (!original.is_object()) original = Json::object();
  if (patch.contains(kRetainKeys)) {
    if (auto e = retainKeys(original, patch)) return e;
  }
  if (auto e = mergeOrderedLists(original, patch, schema)) return e;

  for (auto it = patch.begin(); it != patch.end(); ++it) {
    std::string key = it.key();
    bool deleteList = false;
    if (key.starts_with(kDeleteFromPrimitiveList)) {
      if (auto e = deleteListField(key)) return e;
      deleteList = true;
    }
    Json& value = it.value();
    if (value.is_null()) {
      original.erase(key);
      continue;
    }
    const Field& field = schema.field(key);
    auto existing = original.find(key);
    if (existing == original.end()) {
      if (deleteList) continue;
      if (auto e = freshValue(value, field)) return e;
      original[key] = std::move(value);
      continue;
    }
    if (existing->is_object() && value.is_object()) {
      if (field.atomicObject) {
        discardNulls(value);
        *existing = std::move(value);
      } else if (auto e = mergeMap(*existing, std::move(value), field.schema)) {
        return e;
      }
    } else if (existing->is_array() && value.is_array()) {
      if (auto e = mergeListField(*existing, std::move(value), field, deleteList)) return e;
    } else if (!deleteList) {
      if (auto e = freshValue(value, field)) return e;
      *existing = std::move(value);
    }
  }
  return std::nullopt;
}

// $retainKeys: the keys of `original` not listed go; every key the patch sets must be listed.
Error Merger::retainKeys(Json& original, Json& patch) {
  auto directive = patch.find(kRetainKeys);
  if (directive == patch.end()) return std::nullopt;
  Json keep = std::move(*directive);
  patch.erase(directive);
  if (!keep.is_array()) return badRetainKeysFormat();
  auto listed = [&](std::string_view key) {
    return std::any_of(keep.begin(), keep.end(), [&](const Json& k) { return k == key; });
  };
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null() || key.starts_with(kDeleteFromPrimitiveList) ||
        key.starts_with(kSetElementOrder)) {
      continue;
    }
    if (!listed(key)) return badRetainKeysFormat();
  }
  for (auto it = original.begin(); it != original.end();) {
    it = listed(it.key()) ? std::next(it) : original.erase(it);
  }
  return std::nullopt;
}

// Checks that the patch list's elements come in $setElementOrder's order
// (validatePatchWithSetOrderList).
Error validateOrder(const Json& patchList, const Json& order, std::string_view mergeKey) {
  if (order.empty() || patchList.empty()) return std::nullopt;
  Json items = Json::array();
  for (const auto& v : patchList) {
    if (!mergeKey.empty() && !v.is_object()) return badArgType(kGoMap, v);
    if (mergeKey.empty() || !isDeleteElement(v)) items.push_back(v);
  }
  std::size_t p = 0;
  std::size_t s = 0;
  while (p < items.size() && s < order.size()) {
    if (hasDirective(items[p])) {
      ++p;
      continue;
    }
    bool equal;
    if (mergeKey.empty()) {
      equal = goEqual(items[p], order[s]);
    } else {
      if (!order[s].is_object()) return badArgType(kGoMap, order[s]);
      if (!items[p].contains(mergeKey)) return noMergeKey(items[p], mergeKey);
      if (!order[s].contains(mergeKey)) return noMergeKey(order[s], mergeKey);
      equal = goEqual(items[p][std::string(mergeKey)], order[s][std::string(mergeKey)]);
    }
    if (equal) ++p;
    ++s;
  }
  if (p < items.size() && s >= order.size()) {
    return untyped(fmt::format("The order in patch list:\n{}\n doesn't match {} list:\n{}\n",
                               goValue(patchList), kSetElementOrder, goValue(order)));
  }
  return std::nullopt;
}

// $setElementOrder/<field>: merges that list now and puts it in the requested order
// (mergePatchIntoOriginal). The list is then removed from the patch.
Error Merger::mergeOrderedLists(Json& original, Json& patch, const PatchSchema& schema) {
  std::vector<std::string> directives;
  for (const auto& [key, value] : patch.items()) {
    if (key.starts_with(kSetElementOrder)) directives.push_back(key);
  }
  for (const std::string& directive : directives) {
    Json order = std::move(patch[directive]);
    patch.erase(directive);
    if (!order.is_array()) return badArgType(kGoSlice, order);
    auto name = extractKey(directive, kSetElementOrder);
    if (!name) return name.error();
    const Json empty = Json::array();
    auto inOriginal = original.find(*name);
    auto inPatch = patch.find(*name);
    if (inOriginal != original.end() && !inOriginal->is_array()) {
      return badArgType(kGoSlice, *inOriginal);
    }
    if (inPatch != patch.end() && !inPatch->is_array()) return badArgType(kGoSlice, *inPatch);
    const Json& originalList = inOriginal != original.end() ? *inOriginal : empty;
    const Json patchList = inPatch != patch.end() ? *inPatch : empty;
    const Field& field = schema.field(*name);
    const std::string mergeKey(field.mergeKey());
    if (auto e = validateOrder(patchList, order, mergeKey)) return e;

    Json merged;
    if (inOriginal != original.end() && inPatch != patch.end()) {
      merged = originalList;
      if (auto e = mergeListField(merged, patchList, field, false)) return e;
    } else if (inOriginal != original.end()) {
      merged = originalList;
    } else if (inPatch != patch.end()) {
      merged = patchList;
      if (auto e = freshValue(merged, field)) return e;
    } else {
      continue;
    }
    if (inPatch != patch.end()) patch.erase(inPatch);

    const bool maps = !mergeKey.empty();
    bool orderable = !originalList.empty() || !patchList.empty();
    if (orderable) {
      auto type = elementType({&originalList, &patchList});
      if (!type) return type.error();
      // A list of objects without a merge key has no identity to order by.
      orderable = maps || *type != kGoMap;
    }
    if (orderable) {
      Json present;
      Json absent;
      if (auto e = partition(merged, order, mergeKey, maps, present, absent)) return e;
      auto both = normalizeElementOrder(std::move(present), std::move(absent), order, originalList,
                                        mergeKey, maps);
      if (!both) return both.error();
      merged = std::move(*both);
    }
    original[*name] = std::move(merged);
  }
  return std::nullopt;
}

// mergeSliceHandler: a merge list merges, any other list is replaced by the patch's.
Error Merger::mergeListField(Json& original, Json patch, const Field& field, bool deleteList) {
  if (field.mergesList()) return mergeSlice(original, std::move(patch), field, deleteList);
  if (deleteList) return std::nullopt;  // nothing to remove values from
  discardNulls(patch);
  original = std::move(patch);
  return std::nullopt;
}

Error Merger::mergeSlice(Json& original, Json patch, const Field& field, bool deleteList) {
  if (original.empty() && patch.empty()) return std::nullopt;
  auto type = elementType({&original, &patch});
  if (!type) return type.error();
  const std::string mergeKey(field.mergeKey());
  Json merged;
  Json serverOrder;
  if (*type != kGoMap) {
    if (deleteList) {
      deleteFromSlice(original, patch);
      return std::nullopt;
    }
    merged = original;
    for (const auto& v : patch) merged.push_back(v);
    deduplicateScalars(merged);
    serverOrder = original;
  } else {
    if (mergeKey.empty()) return untyped("cannot merge lists without merge key for type struct");
    serverOrder = original;
    if (auto e = mergeSliceWithSpecialElements(serverOrder, patch, mergeKey)) return e;
    // The rest merge into the element with the same key, or are appended
    // (mergeSliceWithoutSpecialElements).
    merged = serverOrder;
    for (auto& v : patch) {
      auto key = v.find(mergeKey);
      if (key == v.end()) return noMergeKey(v, mergeKey);
      auto match = std::find_if(merged.begin(), merged.end(), [&](const Json& o) {
        auto ok = o.find(mergeKey);
        return ok != o.end() && goEqual(*ok, *key);
      });
      if (match != merged.end()) {
        if (auto e = mergeMap(*match, v, field.schema)) return e;
      } else {
        Json fresh = v;
        if (auto e = freshValue(fresh, Field{.schema = field.schema})) return e;
        merged.push_back(std::move(fresh));
      }
    }
  }
  const bool maps = *type == kGoMap;
  Json present;
  Json absent;
  if (auto e = partition(merged, patch, mergeKey, maps, present, absent)) return e;
  auto ordered = normalizeElementOrder(std::move(present), std::move(absent), patch, serverOrder,
                                       mergeKey, maps);
  if (!ordered) return ordered.error();
  original = std::move(*ordered);
  return std::nullopt;
}

Result<Json> applyParsedPatch(const Json& doc, const Json& patch, const PatchSchema& schema) {
  if (patch.is_null()) return doc;  // decodes to an empty map: nothing to do
  if (!patch.is_object()) {
    // What encoding/json says when the body is not the map the server decodes it into.
    std::string type = patch.is_array()     ? "array"
                       : patch.is_string()  ? "string"
                       : patch.is_boolean() ? "bool"
                                            : "number";
    return tl::unexpected(Status::badRequest(fmt::format(
        "json: cannot unmarshal {} into Go value of type map[string]interface {{}}", type)));
  }
  Json out = doc;
  Merger merger;
  if (auto e = merger.mergeMap(out, patch, schema)) return tl::unexpected(*e);
  return out;
}

}  // namespace

Result<Json> applyStrategicMergePatch(const Json& doc, std::string_view patchText,
                                      const PatchSchema& schema) {
  auto patch = parseJsonText(patchText);
  if (!patch) return tl::unexpected(Status::badRequest(patch.error()));
  return applyParsedPatch(doc, *patch, schema);
}

}  // namespace fakekube
