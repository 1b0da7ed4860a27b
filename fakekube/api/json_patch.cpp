#include "fakekube/api/json_patch.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fakekube/api/internal/json_decode.h"
#include "fakekube/api/json_writer.h"

namespace fakekube {

namespace {

enum class OpKind { Add, Remove, Replace, Move, Copy, Test };

std::optional<OpKind> opKind(std::string_view name) {
  if (name == "add") return OpKind::Add;
  if (name == "remove") return OpKind::Remove;
  if (name == "replace") return OpKind::Replace;
  if (name == "move") return OpKind::Move;
  if (name == "copy") return OpKind::Copy;
  if (name == "test") return OpKind::Test;
  return std::nullopt;
}

// A parsed JSON Pointer: the raw text (for messages) and its unescaped reference tokens.
struct Pointer {
  std::string text;
  std::vector<std::string> tokens;
};

// One validated operation. `value` points into the patch, which outlives the application.
struct Operation {
  OpKind kind;
  std::string name;
  Pointer path;
  Pointer from;
  const Json* value = nullptr;
};

Status malformed(std::string_view detail) {
  return Status::badRequest(fmt::format("error decoding patch: {}", detail));
}

Status doesNotApply(std::string_view message) { return Status::generic(422, "Invalid", message); }

// What the API server answers when the patched object does not decode because it nests deeper
// than its decoder allows (the patched JSON is the value, as in jsonPatcher).
Status nestedTooDeep(const Json& doc, char bracket) {
  return Status::invalid("", "", "",
                         {FieldError::invalid("patch", goQuote(toJsonText(doc)),
                                              "couldn't get version/kind; json parse error: " +
                                                  exceededMaxDepthMessage(bracket))});
}

// kube-apiserver caps what copy operations may add to a document (JSONPatchMaxCopyBytes, evanphx
// json-patch's AccumulatedCopySizeLimit): without it a few dozen copies of the root double the
// document each time.
constexpr std::size_t kMaxAccumulatedCopyBytes = 3 * 1024 * 1024;

// nlohmann's exception text without its "[json.exception.parse_error.101] " tag.
std::string exceptionMessage(const std::exception& e) {
  std::string_view w = e.what();
  if (w.starts_with("[json.exception.")) {
    if (size_t close = w.find("] "); close != std::string_view::npos) w.remove_prefix(close + 2);
  }
  return std::string(w);
}

tl::expected<Pointer, std::string> parsePointer(std::string_view text) {
  Pointer p;
  p.text = std::string(text);
  if (text.empty()) return p;
  if (text.front() != '/') {
    return tl::unexpected(
        fmt::format("invalid JSON pointer {}: must be empty or start with '/'", goQuote(text)));
  }
  std::string token;
  for (size_t i = 1; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '/') {
      p.tokens.push_back(std::move(token));
      token.clear();
    } else if (text[i] == '~') {
      // One left-to-right pass decodes "~01" as "~1", as RFC 6901 requires.
      if (i + 1 < text.size() && (text[i + 1] == '0' || text[i + 1] == '1')) {
        token += text[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        return tl::unexpected(fmt::format(
            "invalid JSON pointer {}: '~' must be followed by '0' or '1'", goQuote(text)));
      }
    } else {
      token += text[i];
    }
  }
  return p;
}

// An array index token: "0" or [1-9][0-9]*. "-" and anything else are not indices.
std::optional<size_t> arrayIndex(std::string_view token) {
  if (token.empty() || token.size() > 18) return std::nullopt;
  if (token.size() > 1 && token.front() == '0') return std::nullopt;
  size_t n = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  return n;
}

// The value `tokens[0..count)` designates, or null if there is none.
Json* resolve(Json& doc, const std::vector<std::string>& tokens, size_t count) {
  Json* cur = &doc;
  for (size_t i = 0; i < count; ++i) {
    const std::string& t = tokens[i];
    if (cur->is_object()) {
      auto it = cur->find(t);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else if (cur->is_array()) {
      auto idx = arrayIndex(t);
      if (!idx || *idx >= cur->size()) return nullptr;
      cur = &(*cur)[*idx];
    } else {
      return nullptr;
    }
  }
  return cur;
}

Json* resolve(Json& doc, const Pointer& p) { return resolve(doc, p.tokens, p.tokens.size()); }

std::string missingPath(std::string_view op, const Pointer& p) {
  return fmt::format("jsonpatch {} operation does not apply: doc is missing path: {}", op,
                     goQuote(p.text));
}

// The add half shared by add, move and copy.
// Every value placed stays within the nesting limit, so that the document always does
// (json_decode.h): its path holds at most one container per token. Checked before the value is
// copied.
std::optional<Status> nestsTooDeep(const Json& doc, const Pointer& path, const Json& value) {
  if (path.tokens.size() + static_cast<std::size_t>(jsonNestingDepth(value)) <=
      static_cast<std::size_t>(kMaxJsonNestingDepth)) {
    return std::nullopt;
  }
  return nestedTooDeep(doc, value.is_array() ? '[' : '{');
}

tl::expected<void, Status> addAt(Json& doc, const Pointer& path, Json value, std::string_view op) {
  if (path.tokens.empty()) {
    doc = std::move(value);
    return {};
  }
  Json* parent = resolve(doc, path.tokens, path.tokens.size() - 1);
  const std::string& last = path.tokens.back();
  if (parent != nullptr && parent->is_object()) {
    (*parent)[last] = std::move(value);
    return {};
  }
  if (parent != nullptr && parent->is_array()) {
    if (last == "-") {
      parent->push_back(std::move(value));
      return {};
    }
    auto idx = arrayIndex(last);
    if (!idx || *idx > parent->size()) {
      return tl::unexpected(
          doesNotApply(fmt::format("jsonpatch {} operation does not apply: index out of range: {}",
                                   op, goQuote(path.text))));
    }
    parent->insert(parent->begin() + static_cast<std::ptrdiff_t>(*idx), std::move(value));
    return {};
  }
  return tl::unexpected(doesNotApply(missingPath(op, path)));
}

// Removes what `path` designates and returns it.
tl::expected<Json, Status> removeAt(Json& doc, const Pointer& path,
                                    std::string_view missingMessage) {
  Json* parent = path.tokens.empty() ? nullptr : resolve(doc, path.tokens, path.tokens.size() - 1);
  if (parent != nullptr && parent->is_object()) {
    auto it = parent->find(path.tokens.back());
    if (it != parent->end()) {
      Json removed = std::move(*it);
      parent->erase(it);
      return removed;
    }
  } else if (parent != nullptr && parent->is_array()) {
    auto idx = arrayIndex(path.tokens.back());
    if (idx && *idx < parent->size()) {
      Json removed = std::move((*parent)[*idx]);
      parent->erase(*idx);
      return removed;
    }
  }
  return tl::unexpected(doesNotApply(missingMessage));
}

tl::expected<void, Status> apply(Json& doc, const Operation& op, std::size_t& copiedBytes) {
  switch (op.kind) {
    case OpKind::Add:
      if (auto tooDeep = nestsTooDeep(doc, op.path, *op.value)) return tl::unexpected(*tooDeep);
      return addAt(doc, op.path, *op.value, op.name);
    case OpKind::Remove: {
      auto removed = removeAt(doc, op.path, missingPath(op.name, op.path));
      if (!removed) return tl::unexpected(removed.error());
      return {};
    }
    case OpKind::Replace: {
      Json* target = resolve(doc, op.path);
      if (target == nullptr) return tl::unexpected(doesNotApply(missingPath(op.name, op.path)));
      if (auto tooDeep = nestsTooDeep(doc, op.path, *op.value)) return tl::unexpected(*tooDeep);
      *target = *op.value;
      return {};
    }
    case OpKind::Move: {
      if (op.from.text == op.path.text) {
        if (resolve(doc, op.from) == nullptr) {
          return tl::unexpected(doesNotApply(
              fmt::format("jsonpatch move operation does not apply: doc is missing from path: {}",
                          goQuote(op.from.text))));
        }
        return {};
      }
      if (op.path.text.starts_with(op.from.text + "/")) {
        return tl::unexpected(doesNotApply(fmt::format(
            "jsonpatch move operation does not apply: cannot move {} into its own child {}",
            goQuote(op.from.text), goQuote(op.path.text))));
      }
      auto moved = removeAt(
          doc, op.from,
          fmt::format("jsonpatch move operation does not apply: doc is missing from path: {}",
                      goQuote(op.from.text)));
      if (!moved) return tl::unexpected(moved.error());
      if (auto tooDeep = nestsTooDeep(doc, op.path, *moved)) return tl::unexpected(*tooDeep);
      return addAt(doc, op.path, std::move(*moved), op.name);
    }
    case OpKind::Copy: {
      Json* source = resolve(doc, op.from);
      if (source == nullptr) {
        return tl::unexpected(doesNotApply(
            fmt::format("jsonpatch copy operation does not apply: doc is missing from path: {}",
                        goQuote(op.from.text))));
      }
      copiedBytes += toJsonText(*source).size();
      if (copiedBytes > kMaxAccumulatedCopyBytes) {
        return tl::unexpected(doesNotApply(
            fmt::format("Unable to complete the copy, the accumulated size increase of copy is {}, "
                        "exceeding the limit {}",
                        copiedBytes, kMaxAccumulatedCopyBytes)));
      }
      if (auto tooDeep = nestsTooDeep(doc, op.path, *source)) return tl::unexpected(*tooDeep);
      return addAt(doc, op.path, Json(*source), op.name);
    }
    case OpKind::Test: {
      Json* target = resolve(doc, op.path);
      // Json equality is RFC 6902's: numbers by value, objects regardless of member order.
      if (target == nullptr || *target != *op.value) {
        return tl::unexpected(doesNotApply(fmt::format("testing value {} failed", op.path.text)));
      }
      return {};
    }
  }
  return {};
}

// Checks the shape of every operation before any is applied, so a malformed patch is a 400 no
// matter where in the array the problem is.
tl::expected<std::vector<Operation>, Status> decode(const Json& patch) {
  if (!patch.is_array()) {
    return tl::unexpected(malformed(
        fmt::format("a JSON patch must be an array of operations, not {}", patch.type_name())));
  }
  if (patch.size() > kMaxJsonPatchOperations) {
    return tl::unexpected(Status::requestEntityTooLarge(
        fmt::format("The allowed maximum operations in a JSON patch is {}, got {}",
                    kMaxJsonPatchOperations, patch.size())));
  }
  std::vector<Operation> ops;
  ops.reserve(patch.size());
  for (size_t i = 0; i < patch.size(); ++i) {
    const Json& o = patch[i];
    if (!o.is_object()) {
      return tl::unexpected(
          malformed(fmt::format("operation {} is not a JSON object but {}", i, o.type_name())));
    }
    auto name = o.find("op");
    if (name == o.end() || !name->is_string()) {
      return tl::unexpected(malformed(fmt::format("operation {} has no \"op\" string", i)));
    }
    Operation op;
    op.name = name->get<std::string>();
    auto kind = opKind(op.name);
    if (!kind) {
      return tl::unexpected(
          malformed(fmt::format("operation {} has unknown op {}", i, goQuote(op.name))));
    }
    op.kind = *kind;
    auto pointer = [&](const char* member) -> tl::expected<Pointer, Status> {
      auto it = o.find(member);
      if (it == o.end() || !it->is_string()) {
        return tl::unexpected(malformed(
            fmt::format("operation {} ({}) has no \"{}\" string", i, goQuote(op.name), member)));
      }
      auto p = parsePointer(it->get_ref<const std::string&>());
      if (!p) return tl::unexpected(malformed(fmt::format("operation {}: {}", i, p.error())));
      return std::move(*p);
    };
    auto path = pointer("path");
    if (!path) return tl::unexpected(path.error());
    op.path = std::move(*path);
    if (op.kind == OpKind::Move || op.kind == OpKind::Copy) {
      auto from = pointer("from");
      if (!from) return tl::unexpected(from.error());
      op.from = std::move(*from);
    }
    if (op.kind == OpKind::Add || op.kind == OpKind::Replace || op.kind == OpKind::Test) {
      // Presence, not non-nullness: {"op":"add","value":null} adds a null.
      auto value = o.find("value");
      if (value == o.end()) {
        return tl::unexpected(
            malformed(fmt::format("operation {} ({}) has no \"value\"", i, goQuote(op.name))));
      }
      op.value = &*value;
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

}  // namespace

Result<Json> applyParsedJsonPatch(const Json& doc, const Json& patch) {
  try {
    auto ops = decode(patch);
    if (!ops) return Error(ops.error());
    Json out = doc;
    std::size_t copiedBytes = 0;
    for (const Operation& op : *ops) {
      if (auto r = apply(out, op, copiedBytes); !r) return Error(r.error());
    }
    return out;
  } catch (const std::exception& e) {
    // Not expected (every access above is checked); never let one escape.
    return Error(Status::internal(fmt::format("applying JSON patch: {}", exceptionMessage(e))));
  }
}

Result<Json> applyJsonPatch(const Json& doc, std::string_view patchText) {
  auto patch = parseJsonText(patchText);
  if (!patch) return Error(malformed(patch.error()));
  return applyParsedJsonPatch(doc, *patch);
}

}  // namespace fakekube
