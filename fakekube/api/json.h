// Objects are JSON documents end to end. This header names the document
// type without pulling in nlohmann/json.hpp, which is the heaviest header in the tree: include it
// from headers, and include <nlohmann/json.hpp> only in .cpp files that touch document contents.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string_view>

namespace fakekube {

// Orders an object's member names exactly as std::less<std::string> does (byte by byte as
// unsigned char, a proper prefix first), with the comparison inlined. Every member lookup walks
// the object's map with it; std::less calls memcmp for each node on the way, and those calls
// were the largest single cost of a run of the cluster (member names are short and mostly differ
// in their first bytes, so the call outweighed the comparison). Transparent: a lookup by
// string_view or const char* builds no std::string.
struct JsonKeyLess {
  using is_transparent = void;

  bool operator()(std::string_view a, std::string_view b) const noexcept {
    const std::size_t common = a.size() < b.size() ? a.size() : b.size();
    std::size_t i = 0;
    // Eight bytes at a time, read big-endian so that integer order is byte order.
    for (; i + 8 <= common; i += 8) {
      std::uint64_t x;
      std::uint64_t y;
      std::memcpy(&x, a.data() + i, 8);
      std::memcpy(&y, b.data() + i, 8);
      if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y);
    }
    for (; i < common; ++i) {
      const auto x = static_cast<unsigned char>(a[i]);
      const auto y = static_cast<unsigned char>(b[i]);
      if (x != y) return x < y;
    }
    return a.size() < b.size();
  }
};

// nlohmann's object type with JsonKeyLess: a std::map, so members keep their order, their
// addresses across inserts, and everything else std::map promises.
template <class Key, class Value, class IgnoredCompare, class Allocator>
using JsonObjectMap = std::map<Key, Value, JsonKeyLess, Allocator>;

using Json = nlohmann::basic_json<JsonObjectMap>;

}  // namespace fakekube
