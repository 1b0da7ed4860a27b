#include "fakekube/api/json_decode.h"

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

// The depth of `value` and the bracket of its deepest container, by an explicit stack of
// (container, next child) pairs.
std::pair<int, char> deepest(const Json& value, int stopAfter) {
  if (!value.is_structured()) return {0, 0};
  struct Frame {
    const Json* container;
    Json::const_iterator next;
  };
  // Reused across calls (this runs on every write): no allocation once it has grown.
  thread_local std::vector<Frame> stack;
  stack.clear();
  stack.push_back({&value, value.cbegin()});
  int best = 1;
  char bracket = value.is_object() ? '{' : '[';
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.container->cend()) {
      stack.pop_back();
      continue;
    }
    const Json& child = *top.next;
    ++top.next;
    if (!child.is_structured() || child.empty()) {
      if (child.is_structured() && static_cast<int>(stack.size()) + 1 > best) {
        best = static_cast<int>(stack.size()) + 1;
        bracket = child.is_object() ? '{' : '[';
      }
      continue;
    }
    stack.push_back({&child, child.cbegin()});
    if (static_cast<int>(stack.size()) > best) {
      best = static_cast<int>(stack.size());
      bracket = child.is_object() ? '{' : '[';
      if (best > stopAfter) break;
    }
  }
  return {best, bracket};
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
