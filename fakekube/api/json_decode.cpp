#include "fakekube/api/json_decode.h"

#include <nlohmann/json.hpp>
#include <utility>

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

tl::expected<Json, std::string> parseJsonText(std::string_view text) {
  if (auto tooDeep = checkJsonTextDepth(text)) return tl::unexpected(std::move(*tooDeep));
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    return tl::unexpected(withoutTag(e.what()));
  }
}

}  // namespace fakekube
