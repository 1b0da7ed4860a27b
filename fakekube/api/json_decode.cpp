#include "fakekube/api/internal/json_decode.h"

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace fakekube {

std::string exceededMaxDepthMessage(char c) {
  std::string message = "invalid character '";
  message += c;
  message += "' exceeded max depth";
  return message;
}

std::optional<std::size_t> findExcessiveNesting(std::string_view text) {
  int depth = 0;
  const char* p = text.data();
  const char* const end = p + text.size();
  while (p < end) {
    const char c = *p++;
    switch (c) {
      case '"':
        // Skip the string: up to the next quote that no backslash escapes.
        while (p < end) {
          const char s = *p++;
          if (s == '\\') {
            if (p < end) ++p;
          } else if (s == '"') {
            break;
          }
        }
        break;
      case '[':
      case '{':
        if (++depth > kMaxJsonNestingDepth) return static_cast<std::size_t>(p - 1 - text.data());
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return std::nullopt;
}

std::optional<std::string> checkJsonTextDepth(std::string_view text) {
  auto at = findExcessiveNesting(text);
  if (!at) return std::nullopt;
  return exceededMaxDepthMessage(text[*at]);
}

namespace {

// Finds the depth of a document and the bracket of its deepest container. It recurses, but never
// deeper than one level past the limit (`stopAfter` + 1), whatever the document: a few hundred
// KB of stack at most, for the cost of a plain walk over the underlying maps and vectors (this
// runs on every write).
class DepthCounter {
 public:
  explicit DepthCounter(int stopAfter) : stopAfter_(stopAfter) {}

  int best = 0;
  char bracket = 0;

  void visit(const Json& value, int depth) {
    if (best > stopAfter_) return;
    if (value.is_object()) {
      note(depth, '{');
      for (const auto& [key, item] : value.get_ref<const Json::object_t&>()) {
        if (item.is_structured()) visit(item, depth + 1);
      }
    } else if (value.is_array()) {
      note(depth, '[');
      for (const auto& item : value.get_ref<const Json::array_t&>()) {
        if (item.is_structured()) visit(item, depth + 1);
      }
    }
  }

 private:
  int stopAfter_;

  void note(int depth, char c) {
    if (depth > best) {
      best = depth;
      bracket = c;
    }
  }
};

std::pair<int, char> deepest(const Json& value, int stopAfter) {
  DepthCounter counter(stopAfter);
  counter.visit(value, 1);
  return {counter.best, counter.bracket};
}

// nlohmann's exception text without its "[json.exception.parse_error.101] " tag.
std::string withoutTag(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    if (std::size_t close = what.find("] "); close != std::string_view::npos) {
      what.remove_prefix(close + 2);
    }
  }
  return std::string(what);
}

}  // namespace

int jsonNestingDepth(const Json& value, int stopAfter) { return deepest(value, stopAfter).first; }

std::optional<std::string> checkJsonDepth(const Json& value) {
  auto [depth, bracket] = deepest(value, kMaxJsonNestingDepth);
  if (depth <= kMaxJsonNestingDepth) return std::nullopt;
  return exceededMaxDepthMessage(bracket);
}

namespace {

// Builds the document as nlohmann's own DOM parser does, except that an object's members are
// appended as they come and put in order once, when the object ends: inserting each in its place
// would cost a body of n members in reverse order n^2 moves (json_object_map.h). A later
// duplicate member wins, as with the one-by-one insert.
class SortingDomBuilder {
 public:
  explicit SortingDomBuilder(Json& root) : root_(root) {}

  // nlohmann's SAX interface: true to go on.
  bool null() { return add(nullptr); }
  bool boolean(bool value) { return add(value); }
  bool number_integer(Json::number_integer_t value) { return add(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return add(value); }
  bool number_float(Json::number_float_t value, const Json::string_t& /*text*/) {
    return add(value);
  }
  bool string(Json::string_t& value) { return add(std::move(value)); }
  bool binary(Json::binary_t& value) { return add(Json::binary(std::move(value))); }
  bool start_object(std::size_t /*elements*/) { return open(Json::value_t::object); }
  bool key(Json::string_t& name) {
    key_ = std::move(name);
    return true;
  }
  // A closed container gives back the room its growth left: a parsed document is mostly kept
  // (stored, cached), and a quarter of its members' room would otherwise stay empty.
  bool end_object() {
    auto& members = open_.back()->get_ref<Json::object_t&>();
    members.sortMembers();
    if (members.capacity() > members.size()) members.shrink_to_fit();
    open_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*elements*/) { return open(Json::value_t::array); }
  bool end_array() {
    auto& elements = open_.back()->get_ref<Json::array_t&>();
    if (elements.capacity() > elements.size()) elements.shrink_to_fit();
    open_.pop_back();
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const Json::exception& error) {
    error_ = error.what();
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  template <class Value>
  bool add(Value&& value) {
    (void)place(std::forward<Value>(value));
    return true;
  }
  bool open(Json::value_t type) {
    open_.push_back(place(type));
    return true;
  }
  // Adds `value` to the innermost open array or object (or makes it the root) and returns where
  // it now lives. Only the innermost open container grows, so the addresses of the open ones,
  // each a member of the one outside it, hold until they close.
  template <class Value>
  Json* place(Value&& value) {
    if (open_.empty()) {
      root_ = Json(std::forward<Value>(value));
      return &root_;
    }
    Json& parent = *open_.back();
    if (parent.is_array()) {
      auto& elements = parent.get_ref<Json::array_t&>();
      elements.emplace_back(std::forward<Value>(value));
      return &elements.back();
    }
    return &parent.get_ref<Json::object_t&>().appendUnsorted(std::move(key_),
                                                             Json(std::forward<Value>(value)));
  }

  Json& root_;
  std::vector<Json*> open_;
  std::string key_;
  std::string error_;
};

}  // namespace

tl::expected<Json, std::string> parseJsonText(std::string_view text) {
  if (auto tooDeep = checkJsonTextDepth(text)) return tl::unexpected(std::move(*tooDeep));
  Json document;
  SortingDomBuilder builder(document);
  if (!Json::sax_parse(text, &builder)) return tl::unexpected(withoutTag(builder.error()));
  return document;
}

}  // namespace fakekube
