// Standard base64 (RFC 4648, with padding): continue tokens and Secret data use it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fakekube {

std::string base64Encode(std::string_view data);
// nullopt on malformed input.
std::optional<std::string> base64Decode(std::string_view text);

}  // namespace fakekube
