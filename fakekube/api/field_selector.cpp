#include "fakekube/api/field_selector.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace fakekube {

namespace {

// splitTerms: splits on commas that are not backslash-escaped; the escapes stay in the terms.
std::vector<std::string_view> splitTerms(std::string_view s) {
  std::vector<std::string_view> terms;
  if (s.empty()) return terms;
  size_t start = 0;
  bool inSlash = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (inSlash) {
      inSlash = false;
    } else if (s[i] == '\\') {
      inSlash = true;
    } else if (s[i] == ',') {
      terms.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(s.substr(start));
  return terms;
}

struct SplitTerm {
  std::string_view lhs;
  std::string_view op;
  std::string_view rhs;
};

// splitTerm: the first operator occurrence splits the term; "!=" and "==" are tried before "=" at
// each position so "a==b" is not read as a="=b".
std::optional<SplitTerm> splitTerm(std::string_view term) {
  for (size_t i = 0; i < term.size(); ++i) {
    std::string_view rest = term.substr(i);
    for (std::string_view op : {"!=", "==", "="}) {
      if (rest.starts_with(op)) return SplitTerm{term.substr(0, i), op, rest.substr(op.size())};
    }
  }
  return std::nullopt;
}

// UnescapeValue.
tl::expected<std::string, std::string> unescapeValue(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool inSlash = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (inSlash) {
      if (c != '\\' && c != ',' && c != '=') {
        // The sequence is a backslash and one whole (UTF-8) character.
        size_t end = i + 1;
        while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
        return tl::unexpected(fmt::format("invalid field selector: invalid escape sequence: \\{}",
                                          s.substr(i, end - i)));
      }
      out += c;
      inSlash = false;
    } else if (c == '\\') {
      inSlash = true;
    } else if (c == ',' || c == '=') {
      // Go formats the rune with %v, i.e. as its code point number ("61" for '='); kept so the
      // message is the API server's.
      return tl::unexpected(fmt::format("invalid field selector: unescaped character in value: {}",
                                        static_cast<int>(c)));
    } else {
      out += c;
    }
  }
  if (inSlash)
    return tl::unexpected(std::string("invalid field selector: invalid escape sequence: \\"));
  return out;
}

// The value at a dotted path, for matchesObject.
std::optional<std::string_view> lookupDotted(const Json& object, std::string_view path) {
  const Json* cur = &object;
  while (true) {
    if (!cur->is_object()) return std::nullopt;
    size_t dot = path.find('.');
    std::string_view part = path.substr(0, dot);
    auto it = cur->find(part);
    if (it == cur->end()) return std::nullopt;
    cur = &*it;
    if (dot == std::string_view::npos) break;
    path.remove_prefix(dot + 1);
  }
  if (cur->is_string()) return std::string_view(cur->get_ref<const std::string&>());
  if (cur->is_boolean()) return cur->get<bool>() ? std::string_view("true") : "false";
  return std::nullopt;
}

}  // namespace

std::string escapeFieldSelectorValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

Result<FieldSelector> FieldSelector::parse(std::string_view selector) {
  std::vector<std::string_view> parts = splitTerms(selector);
  // Kubernetes sorts the raw terms before parsing them.
  std::sort(parts.begin(), parts.end());
  FieldSelector s;
  for (std::string_view part : parts) {
    if (part.empty()) continue;
    auto split = splitTerm(part);
    if (!split) {
      return Error(Status::badRequest(
          fmt::format("invalid selector: '{}'; can't understand '{}'", selector, part)));
    }
    auto value = unescapeValue(split->rhs);
    if (!value) return Error(Status::badRequest(value.error()));
    s.terms_.push_back({std::string(split->lhs), std::move(*value), split->op == "!="});
  }
  return s;
}

std::vector<std::string> FieldSelector::fields() const {
  std::vector<std::string> out;
  out.reserve(terms_.size());
  for (const auto& t : terms_) out.push_back(t.field);
  return out;
}

bool FieldSelector::matches(const Getter& get) const {
  for (const auto& t : terms_) {
    std::string_view actual = get(t.field).value_or(std::string_view());
    if ((actual == t.value) == t.negated) return false;
  }
  return true;
}

bool FieldSelector::matchesObject(const Json& object) const {
  return matches([&object](std::string_view field) { return lookupDotted(object, field); });
}

FieldSelector FieldSelector::renamed(std::string_view (*rename)(std::string_view)) const {
  FieldSelector out = *this;
  for (Term& t : out.terms_) t.field = std::string(rename(t.field));
  return out;
}

std::optional<std::string_view> fieldValueAtPath(const Json& object, std::string_view path) {
  return lookupDotted(object, path);
}

std::optional<std::string_view> FieldSelector::requiresExactMatch(std::string_view field) const {
  for (const auto& t : terms_) {
    if (t.field == field && !t.negated) return std::string_view(t.value);
  }
  return std::nullopt;
}

std::string FieldSelector::str() const {
  std::string out;
  for (size_t i = 0; i < terms_.size(); ++i) {
    if (i > 0) out += ',';
    out += terms_[i].field;
    out += terms_[i].negated ? "!=" : "=";
    out += escapeFieldSelectorValue(terms_[i].value);
  }
  return out;
}

}  // namespace fakekube
