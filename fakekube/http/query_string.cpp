#include "fakekube/http/internal/query_string.h"

namespace fakekube {

namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> unescapeQueryComponent(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      const int high = hexValue(text[i + 1]);
      const int low = hexValue(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

QueryParameters parseQuery(std::string_view rawQuery) {
  QueryParameters parameters;
  while (!rawQuery.empty()) {
    const std::size_t amp = rawQuery.find('&');
    std::string_view pair = rawQuery.substr(0, amp);
    rawQuery = amp == std::string_view::npos ? std::string_view() : rawQuery.substr(amp + 1);
    if (pair.empty() || pair.find(';') != std::string_view::npos) continue;
    const std::size_t eq = pair.find('=');
    auto name = unescapeQueryComponent(pair.substr(0, eq));
    auto value = unescapeQueryComponent(eq == std::string_view::npos ? std::string_view()
                                                                     : pair.substr(eq + 1));
    if (!name || !value) continue;
    parameters.emplace_back(std::move(*name), std::move(*value));
  }
  return parameters;
}

}  // namespace fakekube
