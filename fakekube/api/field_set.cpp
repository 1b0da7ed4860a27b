#include "fakekube/api/internal/field_set.h"

#include <fmt/format.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/json_writer.h"
#include "fakekube/api/status.h"

namespace fakekube::field_set {

namespace {

// The walks below recurse once per level of a set, which mirrors a document nested no deeper
// than kMaxJsonNestingDepth (json_decode.h); a set sent by a client is checked against the same
// limit by the request's decoder.

// Makes `node` the encoding of a node with its current children and membership `member`:
// `{}` for a member without children, "." beside children for a member with them.
void normalise(Json& node, bool member) {
  const bool children = hasChildren(node);
  if (!children) {
    node = Json::object();  // a member (the caller removes a non-member)
  } else if (member) {
    node[std::string(kSelf)] = Json::object();
  } else {
    node.erase(std::string(kSelf));
  }
}

// Go's value.ToString, which prints the values in a path element.
std::string printValue(const Json& value) {
  if (value.is_string()) return goQuote(value.get_ref<const std::string&>());
  if (value.is_null()) return "null";
  if (value.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i > 0) out += ",";
      out += printValue(value[i]);
    }
    return out + "]";
  }
  if (value.is_object()) {
    std::string out;
    for (auto it = value.begin(); it != value.end(); ++it) {
      out += it.key() + "=" + printValue(*it);
    }
    return out;
  }
  return toJsonText(value);
}

void collectPaths(const Json& set, std::string& prefix, std::vector<std::string>& out) {
  for (auto it = set.begin(); it != set.end(); ++it) {
    if (it.key() != kSelf && isMember(*it)) out.push_back(prefix + printElement(it.key()));
  }
  for (auto it = set.begin(); it != set.end(); ++it) {
    if (it.key() == kSelf || !hasChildren(*it)) continue;
    const std::size_t length = prefix.size();
    prefix += printElement(it.key());
    collectPaths(*it, prefix, out);
    prefix.resize(length);
  }
}

std::optional<std::string> checkElement(const std::string& key) {
  if (key.size() < 2) return "key must be 2 characters long";
  if (key[1] != ':') return fmt::format("missing colon: {}", key);
  const std::string_view content = std::string_view(key).substr(2);
  switch (key[0]) {
    case 'f':
      return std::nullopt;
    case 'v':
      if (!parseJsonText(content)) return fmt::format("invalid value element: {}", key);
      return std::nullopt;
    case 'k': {
      auto parsed = parseJsonText(content);
      if (!parsed || !parsed->is_object()) return fmt::format("invalid key element: {}", key);
      return std::nullopt;
    }
    case 'i': {
      int index = 0;
      auto [end, error] = std::from_chars(content.data(), content.data() + content.size(), index);
      if (error != std::errc() || end != content.data() + content.size()) {
        return fmt::format("invalid index element: {}", key);
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;  // an element type a later version may know: ignored, as upstream does
  }
}

std::optional<std::string> checkNode(const Json& fields, int depth) {
  if (!fields.is_object()) return "fieldsV1 must be an object";
  if (depth > kMaxDepth) return fmt::format("fieldsV1 nests deeper than {}", kMaxDepth);
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    if (it.key() == kSelf) continue;
    if (auto error = checkElement(it.key())) return error;
    if (auto error = checkNode(*it, depth + 1)) return error;
  }
  return std::nullopt;
}

}  // namespace

bool isMember(const Json& node) {
  return node.empty() || node.find(std::string_view(kSelf)) != node.end();
}

bool hasChildren(const Json& node) {
  return node.size() > (node.find(std::string_view(kSelf)) != node.end() ? 1u : 0u);
}

std::optional<std::string> check(const Json& fields) { return checkNode(fields, 0); }

void unite(Json& set, const Json& other) {
  for (auto it = other.begin(); it != other.end(); ++it) {
    if (it.key() == kSelf) continue;
    auto mine = set.find(it.key());
    if (mine == set.end()) {
      set.emplace(it.key(), *it);
      continue;
    }
    const bool member = isMember(*mine) || isMember(*it);
    unite(*mine, *it);
    normalise(*mine, member);
  }
}

void subtract(Json& set, const Json& other) {
  for (auto it = other.begin(); it != other.end(); ++it) {
    if (it.key() == kSelf) continue;
    auto mine = set.find(it.key());
    if (mine == set.end()) continue;
    const bool member = isMember(*mine) && !isMember(*it);
    if (hasChildren(*it) && hasChildren(*mine)) subtract(*mine, *it);
    if (!member && !hasChildren(*mine)) {
      set.erase(mine);
    } else {
      normalise(*mine, member);
    }
  }
}

Json intersection(const Json& a, const Json& b) {
  Json out = Json::object();
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (it.key() == kSelf) continue;
    auto theirs = b.find(it.key());
    if (theirs == b.end()) continue;
    Json children =
        hasChildren(*it) && hasChildren(*theirs) ? intersection(*it, *theirs) : Json::object();
    place(out, it.key(), std::move(children), isMember(*it) && isMember(*theirs));
  }
  return out;
}

void place(Json& parent, std::string_view key, Json children, bool member) {
  if (children.empty()) {
    if (member) parent[std::string(key)] = Json::object();
    return;
  }
  if (member) children[std::string(kSelf)] = Json::object();
  parent[std::string(key)] = std::move(children);
}

std::string keyElement(const Json& element, const std::vector<std::string>& keys) {
  // Key fields sorted by name, as fieldpath.KeyByFields sorts them.
  Json fields = Json::object();
  for (const auto& key : keys) {
    auto value = element.find(key);
    if (value != element.end()) fields[key] = *value;
  }
  std::string out = "k:";
  appendJson(out, fields);
  return out;
}

std::string valueElement(const Json& value) {
  std::string out = "v:";
  appendJson(out, value);
  return out;
}

std::vector<std::string> paths(const Json& set) {
  std::vector<std::string> out;
  std::string prefix;
  collectPaths(set, prefix, out);
  return out;
}

std::string printElement(std::string_view element) {
  if (element.size() < 2) return std::string(element);
  const std::string_view content = element.substr(2);
  switch (element[0]) {
    case 'f':
      return "." + std::string(content);
    case 'i':
      return "[" + std::string(content) + "]";
    case 'v': {
      auto value = parseJsonText(content);
      return "[=" + (value ? printValue(*value) : std::string(content)) + "]";
    }
    case 'k': {
      auto value = parseJsonText(content);
      if (!value || !value->is_object()) return "[" + std::string(content) + "]";
      std::string out = "[";
      for (auto it = value->begin(); it != value->end(); ++it) {
        if (out.size() > 1) out += ",";
        out += it.key() + "=" + printValue(*it);
      }
      return out + "]";
    }
    default:
      return std::string(element);
  }
}

}  // namespace fakekube::field_set
