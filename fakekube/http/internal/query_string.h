// The query of a request target, read as Go's net/url reads it (url.ParseQuery, which is what
// kube-apiserver's handlers see through r.URL.Query()).
//
// The query is split at '&' into pairs, each pair at its *first* '=' into name and value, and
// both are unescaped ('+' is a space, %XX a byte). So `labelSelector=dc=y` is the selector
// "dc=y", and a continue token keeps the '=' padding of its base64. As in Go, a pair with a ';'
// (an old separator Go no longer accepts) or a malformed %-escape is dropped, and empty pairs are
// skipped. Unlike Go's map, the pairs keep the order they were sent in; a name may repeat.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fakekube {

using QueryParameters = std::vector<std::pair<std::string, std::string>>;

// The parameters of `rawQuery` (the part of the target after '?', without it).
QueryParameters parseQuery(std::string_view rawQuery);

// url.QueryUnescape: nullopt when a '%' is not followed by two hex digits.
std::optional<std::string> unescapeQueryComponent(std::string_view text);

}  // namespace fakekube
