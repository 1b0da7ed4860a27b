#include "fakekube/api/internal/managed_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "fakekube/api/internal/field_set.h"
#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/internal/server_side_apply.h"
#include "fakekube/api/json_lookup.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/object_meta.h"
#include "fakekube/sim/clock.h"

namespace fakekube::managed_fields {

namespace {

// DefaultMaxUpdateManagers, and the entry the oldest update entries merge into beyond it.
constexpr std::size_t kMaxUpdateManagers = 10;
constexpr std::string_view kAncientChanges = "ancient-changes";

std::string_view stringOf(const Json& entry, std::string_view name) {
  auto it = entry.find(name);
  return it != entry.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                              : std::string_view();
}

std::string_view managerName(const Write& write) {
  return write.manager.empty() ? std::string_view("unknown") : write.manager;
}

// BuildManagerIdentifier: an entry is one manager, operation and subresource, and for an update
// also one apiVersion.
bool sameManager(const Json& entry, std::string_view manager, std::string_view operation,
                 std::string_view apiVersion, std::string_view subresource) {
  return stringOf(entry, "manager") == manager && stringOf(entry, "operation") == operation &&
         stringOf(entry, "subresource") == subresource &&
         (operation == "Apply" || stringOf(entry, "apiVersion") == apiVersion);
}

// The raw form of a set: its compact text in a binary value.
Json packedFieldSet(const Json& set) {
  std::string text = toJsonText(set);
  return Json::binary(Json::binary_t::container_type(text.begin(), text.end()));
}

// A set's tree from its raw form; an unreadable one is the empty set (check() refuses those
// before they are stored).
// The text a raw set holds.
std::string_view rawFieldSetText(const Json& raw) {
  const auto& bytes = raw.get_binary();
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

Json unpackedFieldSet(const Json& raw) {
  auto parsed = parseJsonText(rawFieldSetText(raw));
  return parsed && parsed->is_object() ? std::move(*parsed) : Json::object();
}

// An entry's set, read in place when it is a tree, unpacked when raw.
class ManagedFieldsView {
 public:
  explicit ManagedFieldsView(const Json& entry) {
    const Json& fields = jsonAt(entry, {"fieldsV1"});
    if (fields.is_binary()) {
      unpacked_ = unpackedFieldSet(fields);
      set_ = &unpacked_;
    } else {
      set_ = &fields;
    }
  }
  const Json& operator*() const { return *set_; }

 private:
  Json unpacked_;
  const Json* set_;
};

bool isEmptyFieldSet(const Json& fields) {
  if (fields.is_binary()) {
    const auto& bytes = fields.get_binary();
    return bytes.size() <= 2;  // "{}"
  }
  return !fields.is_object() || fields.empty();
}

// Whether an entry's set may hold a path under one of `other`'s top-level fields: false only
// when its raw text names none of them, so a write leaves the sets it cannot touch raw (a status
// write never unpacks the set of the manager that wrote the spec).
bool mayOverlapFieldSet(const Json& entry, const Json& other) {
  if (other.empty()) return false;
  const Json& fields = jsonAt(entry, {"fieldsV1"});
  if (!fields.is_binary()) return true;
  const std::string_view text = rawFieldSetText(fields);
  for (const auto& [key, child] : other.get_ref<const Json::object_t&>()) {
    std::string needle = toJsonText(Json(key));
    needle += ':';
    if (text.find(needle) != std::string_view::npos) return true;
  }
  return false;
}

Json newEntry(std::string_view manager, std::string_view operation, std::string_view apiVersion,
              std::string_view subresource) {
  Json entry = {{"manager", manager},
                {"operation", operation},
                {"apiVersion", apiVersion},
                {"fieldsType", "FieldsV1"},
                {"fieldsV1", Json::object()}};
  if (!subresource.empty()) entry["subresource"] = subresource;
  return entry;
}

// An entry's set as a tree to change in place (unpacked once; store() packs it again).
Json& fieldsOf(Json& entry) {
  Json& fields = entry["fieldsV1"];
  if (fields.is_binary()) fields = unpackedFieldSet(fields);
  if (!fields.is_object()) fields = Json::object();
  return fields;
}

// isResetManagedFields: `[]`, or one empty entry.
bool isReset(const Json& sent) {
  if (!sent.is_array()) return false;
  return sent.empty() || (sent.size() == 1 && sent[0].is_object() && sent[0].empty());
}

const Json& storedEntries(const Json* live) {
  static const Json kNone = Json::array();
  if (live == nullptr) return kNone;
  const Json& entries = jsonAt(*live, {"metadata", "managedFields"});
  return entries.is_array() && !check(entries) ? entries : kNone;
}

// decodeLiveOrNew: the entries this write starts from. Taken out of `updated` when they are the
// ones it carries (a client's read-modify-write sends the stored list back: no copy), copied
// from the stored object otherwise.
Json startingEntries(const Json* live, Json& updated, const Write& write) {
  const Json& stored = storedEntries(live);
  Json& metadata = meta::metadata(updated);
  Json sent;
  if (auto it = metadata.find("managedFields"); it != metadata.end()) {
    sent = std::move(*it);
    metadata.erase(it);
  }
  if (!sent.is_null() && sameJson(sent, stored)) return sent;
  // A subresource write never takes them from its body.
  if (!write.subresource.empty()) return stored;
  if (isReset(sent)) return Json::array();
  if (!sent.is_array() || sent.empty() || check(sent)) return stored;
  return sent;
}

// sortEncodedManagedFields: by operation, time (to the second), manager, apiVersion, subresource.
void sortEntries(Json& entries) {
  auto& list = entries.get_ref<Json::array_t&>();
  std::stable_sort(list.begin(), list.end(), [](const Json& p, const Json& q) {
    if (auto c = stringOf(p, "operation").compare(stringOf(q, "operation")); c != 0) return c < 0;
    // RFC 3339 in UTC compares as text; the fraction is dropped (time.Unix()).
    auto seconds = [](const Json& e) { return stringOf(e, "time").substr(0, 19); };
    if (auto c = seconds(p).compare(seconds(q)); c != 0) return c < 0;
    if (auto c = stringOf(p, "manager").compare(stringOf(q, "manager")); c != 0) return c < 0;
    if (auto c = stringOf(p, "apiVersion").compare(stringOf(q, "apiVersion")); c != 0) {
      return c < 0;
    }
    return stringOf(p, "subresource") < stringOf(q, "subresource");
  });
}

void dropEmptyEntries(Json& entries) {
  auto& list = entries.get_ref<Json::array_t&>();
  std::erase_if(list, [](const Json& e) {
    auto fields = e.find("fieldsV1");
    return fields == e.end() || isEmptyFieldSet(*fields);
  });
}

// capUpdateManagers: past kMaxUpdateManagers update entries, the oldest merge into one
// "ancient-changes" entry per apiVersion.
void capUpdateManagers(Json& entries) {
  auto& list = entries.get_ref<Json::array_t&>();
  std::vector<std::size_t> updaters;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (stringOf(list[i], "operation") != "Apply") updaters.push_back(i);
  }
  if (updaters.size() <= kMaxUpdateManagers) return;
  std::stable_sort(updaters.begin(), updaters.end(), [&](std::size_t a, std::size_t b) {
    auto seconds = [&](std::size_t i) { return stringOf(list[i], "time").substr(0, 19); };
    if (seconds(a) != seconds(b)) return seconds(a) < seconds(b);
    return stringOf(list[a], "manager") < stringOf(list[b], "manager");
  });
  std::map<std::string, std::size_t, std::less<>> firstOfVersion;
  std::vector<std::size_t> merged;
  std::size_t length = updaters.size();
  for (std::size_t n = 0; n < updaters.size() && length > kMaxUpdateManagers; ++n) {
    Json& entry = list[updaters[n]];
    const std::string version(stringOf(entry, "apiVersion"));
    auto first = firstOfVersion.find(version);
    if (first == firstOfVersion.end()) {
      firstOfVersion.emplace(version, updaters[n]);
      continue;
    }
    Json& bucket = list[first->second];
    if (stringOf(bucket, "manager") != kAncientChanges) {
      bucket["manager"] = kAncientChanges;
      bucket.erase("subresource");
    }
    field_set::unite(fieldsOf(bucket), fieldsOf(entry));
    if (entry.contains("time")) bucket["time"] = entry["time"];
    merged.push_back(updaters[n]);
    --length;
  }
  std::sort(merged.rbegin(), merged.rend());
  for (std::size_t i : merged) list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
}

void store(Json& object, Json entries) {
  dropEmptyEntries(entries);
  Json& metadata = meta::metadata(object);
  if (entries.empty()) {
    metadata.erase("managedFields");
    return;
  }
  // Stored raw: the trees of a few dozen members each would take five times the memory, in
  // every object, for sets that are read only when a write changes them.
  for (Json& entry : entries.get_ref<Json::array_t&>()) {
    auto fields = entry.find("fieldsV1");
    if (fields != entry.end() && fields->is_object()) *fields = packedFieldSet(*fields);
  }
  sortEntries(entries);
  metadata["managedFields"] = std::move(entries);
}

// printManager: how a conflict names the manager that owns the field.
std::string describeManager(const Json& entry) {
  std::string out = goQuote(stringOf(entry, "manager"));
  if (auto subresource = stringOf(entry, "subresource"); !subresource.empty()) {
    out += fmt::format(" with subresource {}", goQuote(subresource));
  }
  if (stringOf(entry, "operation") == "Update") {
    out += fmt::format(" using {}", stringOf(entry, "apiVersion"));
  }
  return out;
}

// NewConflictError: one cause per field; the message lists them by manager.
Status conflictError(const std::vector<std::pair<std::string, std::vector<std::string>>>& owners) {
  std::size_t count = 0;
  for (const auto& [manager, paths] : owners) count += paths.size();
  Status status = Status::generic(409, "Conflict", "");
  for (const auto& [manager, paths] : owners) {
    for (const auto& path : paths) {
      status.details.causes.push_back(
          {"FieldManagerConflict", fmt::format("conflict with {}", manager), path});
    }
  }
  if (count == 1) {
    status.message = fmt::format("Apply failed with 1 conflict: conflict with {}: {}",
                                 owners.front().first, owners.front().second.front());
    return status;
  }
  std::vector<std::string> lines;
  auto sorted = owners;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [manager, paths] : sorted) {
    lines.push_back(fmt::format("conflicts with {}:", manager));
    for (const auto& path : paths) lines.push_back("- " + path);
  }
  status.message = fmt::format("Apply failed with {} conflicts: {}", count, fmt::join(lines, "\n"));
  return status;
}

}  // namespace

std::optional<std::string> check(const Json& managedFields) {
  if (!managedFields.is_array()) return "managedFields must be a list";
  for (std::size_t i = 0; i < managedFields.size(); ++i) {
    const Json& entry = managedFields[i];
    if (!entry.is_object()) return fmt::format("managed fields entry {} is not an object", i);
    const std::string_view operation = stringOf(entry, "operation");
    if (operation != "Apply" && operation != "Update") {
      return "operation must be `Apply` or `Update`";
    }
    if (stringOf(entry, "apiVersion").empty()) return "apiVersion must not be empty";
    const std::string_view type = stringOf(entry, "fieldsType");
    if (type.empty()) return fmt::format("missing fieldsType in managed fields entry {}", i);
    if (type != "FieldsV1") {
      return fmt::format("invalid fieldsType {} in managed fields entry {}", goQuote(type), i);
    }
    for (std::string_view name : {"manager", "subresource", "time"}) {
      auto member = entry.find(name);
      if (member != entry.end() && !member->is_string() && !member->is_null()) {
        return fmt::format("{} of managed fields entry {} must be a string", name, i);
      }
    }
    if (auto time = stringOf(entry, "time"); !time.empty()) {
      TimePoint parsed;
      if (!parseRfc3339(std::string(time), &parsed)) {
        return fmt::format("invalid time in managed fields entry {}", i);
      }
    }
    auto fields = entry.find("fieldsV1");
    if (fields != entry.end() && fields->is_binary()) {
      auto parsed = parseJsonText(rawFieldSetText(*fields));
      if (!parsed) return fmt::format("error decoding set: {}", parsed.error());
      if (auto error = field_set::check(*parsed)) {
        return fmt::format("error decoding set: {}", *error);
      }
    } else if (fields != entry.end() && !fields->is_null()) {
      if (auto error = field_set::check(*fields)) {
        return fmt::format("error decoding set: {}", *error);
      }
    }
  }
  return std::nullopt;
}

void recordUpdate(const Json* live, const Json& zero, Json& updated, const Write& write) {
  Json entries = startingEntries(live, updated, write);
  Json changed;
  Json removed;
  object_fields::compare(live != nullptr ? *live : zero, updated, zero, write.schema, write.scope,
                         changed, removed);
  if (!changed.empty() || !removed.empty()) {
    auto& list = entries.get_ref<Json::array_t&>();
    for (Json& entry : list) {
      if (!mayOverlapFieldSet(entry, changed) && !mayOverlapFieldSet(entry, removed)) continue;
      field_set::subtract(fieldsOf(entry), changed);
      field_set::subtract(fieldsOf(entry), removed);
    }
    if (!changed.empty()) {
      const std::string_view manager = managerName(write);
      auto self = std::find_if(list.begin(), list.end(), [&](const Json& e) {
        return sameManager(e, manager, "Update", write.apiVersion, write.subresource);
      });
      if (self == list.end()) {
        // A new entry owns exactly what changed: the set moves in, with nothing to merge (a
        // create's one entry, the common case).
        list.push_back(newEntry(manager, "Update", write.apiVersion, write.subresource));
        self = list.end() - 1;
        Json& fields = fieldsOf(*self);
        fields = std::move(changed);
        fields.erase(std::string(field_set::kSelf));  // the root is no member of a set
      } else {
        field_set::unite(fieldsOf(*self), changed);
      }
      (*self)["time"] = write.time;
    }
    dropEmptyEntries(entries);
    capUpdateManagers(entries);
  }
  store(updated, std::move(entries));
}

std::optional<Status> recordApply(const Json* live, const Json& zero, Json& merged,
                                  const Json& configuration, const Write& write, bool force) {
  Json entries = storedEntries(live);
  auto& list = entries.get_ref<Json::array_t&>();
  const std::string_view manager = managerName(write);
  auto self = std::find_if(list.begin(), list.end(), [&](const Json& e) {
    return sameManager(e, manager, "Apply", write.apiVersion, write.subresource);
  });
  if (self == list.end()) {
    list.push_back(newEntry(manager, "Apply", write.apiVersion, write.subresource));
    self = list.end() - 1;
  }
  const std::size_t selfIndex = static_cast<std::size_t>(self - list.begin());
  // The applier owns exactly its configuration; what it applied last time and no longer does
  // goes from the object unless another manager owns it (Updater.prune).
  Json last = std::move(fieldsOf(*self));
  (*self)["fieldsV1"] = object_fields::fieldsOf(configuration, write.schema, write.scope);
  (*self)["apiVersion"] = write.apiVersion;
  if (!last.empty()) {
    Json owned = Json::object();
    for (const Json& entry : list) field_set::unite(owned, *ManagedFieldsView(entry));
    pruneAppliedConfiguration(merged, last, owned, write.schema);
  }

  Json changed;
  Json removed;
  object_fields::compare(live != nullptr ? *live : zero, merged, zero, write.schema, write.scope,
                         changed, removed);
  // Fields another manager owns that this apply changes are conflicts (Updater.update).
  std::vector<std::pair<std::string, std::vector<std::string>>> conflicts;
  for (std::size_t i = 0; i < list.size() && !force; ++i) {
    if (i == selfIndex) continue;
    if (!mayOverlapFieldSet(list[i], changed)) continue;
    Json theirs = field_set::intersection(*ManagedFieldsView(list[i]), changed);
    if (!theirs.empty()) conflicts.emplace_back(describeManager(list[i]), field_set::paths(theirs));
  }
  if (!conflicts.empty()) return conflictError(conflicts);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i == selfIndex) continue;
    if (!mayOverlapFieldSet(list[i], changed) && !mayOverlapFieldSet(list[i], removed)) continue;
    field_set::subtract(fieldsOf(list[i]), changed);
    field_set::subtract(fieldsOf(list[i]), removed);
  }
  // The time moves only when the object changed (managedFieldsUpdater.Apply).
  if (!changed.empty() || !removed.empty()) list[selfIndex]["time"] = write.time;
  store(merged, std::move(entries));
  return std::nullopt;
}

Json fieldsV1(const Json& entry) {
  const ManagedFieldsView view(entry);
  return (*view).is_object() ? *view : Json::object();
}

}  // namespace fakekube::managed_fields
