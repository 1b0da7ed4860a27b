// JsonObjectMap: the container behind every JSON object of a document, a vector of members kept
// sorted by name (JsonKeyLess: byte order, as std::less<std::string>).
//
// Why not std::map. A document is read far more than it is built, and mostly by looking a member
// up by name. A std::map spends a heap node per member (key, value and three pointers), and a
// lookup walks from node to node, each in its own allocation: on a server holding tens of
// thousands of documents nearly every step of that walk misses the CPU's caches. Here an object
// is one allocation, the member names (short: they fit std::string's inline buffer) lie side by
// side, a lookup is a binary search over them, and copying or freeing an object costs one
// allocation instead of one per member.
//
// What it does not promise, unlike std::map: a member's address, and any iterator into the object,
// hold only until the next insert into or erase from that same object. Code that takes a
// reference to one member and then adds another member to the same object must look the first up
// again. (Members of other objects, nested ones included, are not moved: a nested object's members
// live in its own allocation.)
//
// Inserting keeps the order, so one insert costs the members after it. Building in name order (as
// parsing our own output does, and Go clients' output) appends. Parsing untrusted text goes
// through json_decode.h, which collects an object's members first and sorts them once, so a
// hostile body of many members in reverse order costs n log n, not n^2.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace fakekube {

// Orders an object's member names exactly as std::less<std::string> does (byte by byte as
// unsigned char, a proper prefix first), with the comparison inlined: member names are short and
// mostly differ in their first bytes, so a call to memcmp outweighed the comparison. Transparent:
// a lookup by string_view or const char* builds no std::string.
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

// The interface is the part of std::map's that nlohmann::basic_json uses (as its own
// ordered_map provides it), over a std::vector of (name, value) pairs. The name is not const in
// the pair, so members can be moved within the vector; nothing outside this class changes one.
template <class Key, class T, class IgnoredCompare = JsonKeyLess,
          class IgnoredAllocator = std::allocator<std::pair<const Key, T>>>
class JsonObjectMap : private std::vector<std::pair<Key, T>> {
  using Container = std::vector<std::pair<Key, T>>;

 public:
  using key_type = Key;
  using mapped_type = T;
  using value_type = typename Container::value_type;
  using size_type = typename Container::size_type;
  using difference_type = typename Container::difference_type;
  using iterator = typename Container::iterator;
  using const_iterator = typename Container::const_iterator;
  using reference = value_type&;
  using const_reference = const value_type&;
  using key_compare = JsonKeyLess;
  using allocator_type = typename Container::allocator_type;

  JsonObjectMap() noexcept = default;
  template <class Allocator>
  explicit JsonObjectMap(const Allocator& /*unused*/) noexcept {}
  template <class InputIt, class... Allocator>
  JsonObjectMap(InputIt first, InputIt last, const Allocator&... /*unused*/) {
    insert(first, last);
  }
  JsonObjectMap(std::initializer_list<std::pair<const Key, T>> init) {
    insert(init.begin(), init.end());
  }

  using Container::begin;
  using Container::capacity;
  using Container::cbegin;
  using Container::cend;
  using Container::clear;
  using Container::empty;
  using Container::end;
  using Container::max_size;
  using Container::rbegin;
  using Container::rend;
  using Container::reserve;
  using Container::shrink_to_fit;
  using Container::size;

  friend bool operator==(const JsonObjectMap& a, const JsonObjectMap& b) {
    return static_cast<const Container&>(a) == static_cast<const Container&>(b);
  }
  friend auto operator<=>(const JsonObjectMap& a, const JsonObjectMap& b) {
    return static_cast<const Container&>(a) <=> static_cast<const Container&>(b);
  }
  void swap(JsonObjectMap& other) noexcept { Container::swap(other); }

  // --- lookup ---

  iterator find(std::string_view key) { return begin() + indexOf(key); }
  const_iterator find(std::string_view key) const { return begin() + indexOf(key); }
  size_type count(std::string_view key) const { return indexOf(key) == size() ? 0 : 1; }
  bool contains(std::string_view key) const { return indexOf(key) != size(); }

  T& at(std::string_view key) {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("key not found");
    return it->second;
  }
  const T& at(std::string_view key) const {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("key not found");
    return it->second;
  }

  // --- insert ---

  // Like std::map's try_emplace, emplace builds nothing, and leaves `args` untouched, when the
  // name is present.
  template <class K, class... Args>
  std::pair<iterator, bool> try_emplace(K&& key, Args&&... args) {
    return emplace(std::forward<K>(key), std::forward<Args>(args)...);
  }
  template <class K, class... Args>
  std::pair<iterator, bool> emplace(K&& key, Args&&... args) {
    const std::string_view name(key);
    const size_type at = lowerBound(name);
    if (at != size() && !key_compare{}(name, item(at).first)) return {begin() + at, false};
    Container::emplace_back(std::piecewise_construct, std::forward_as_tuple(std::forward<K>(key)),
                            std::forward_as_tuple(std::forward<Args>(args)...));
    if (at + 1 != size()) std::rotate(begin() + at, end() - 1, end());
    moveForChecking();
    return {begin() + at, true};
  }
  template <class K>
  T& operator[](K&& key) {
    return emplace(std::forward<K>(key)).first->second;
  }
  template <class Pair>
  std::pair<iterator, bool> insert(Pair&& member) {
    return emplace(std::forward<Pair>(member).first, std::forward<Pair>(member).second);
  }
  // std::map's insert of a range: a name already present keeps its value. Appends everything new
  // and sorts once.
  template <class InputIt>
  void insert(InputIt first, InputIt last) {
    const size_type before = size();
    for (; first != last; ++first) {
      if (before != 0 && contains(first->first)) continue;
      Container::emplace_back(first->first, first->second);
    }
    sortFrom(before, /*keepLast=*/false);
    moveForChecking();
  }

  // --- erase ---

  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(iterator pos) { return erase(const_iterator(pos), const_iterator(pos + 1)); }
  iterator erase(const_iterator first, const_iterator last) {
    const auto at = first - cbegin();
    Container::erase(first, last);
    moveForChecking();
    return begin() + at;
  }
  size_type erase(std::string_view key) {
    const size_type at = indexOf(key);
    if (at == size()) return 0;
    erase(cbegin() + static_cast<difference_type>(at));
    return 1;
  }

  // --- bulk building (json_decode.h) ---

  // Appends a member without looking for its place; sortMembers() must follow before any lookup.
  template <class K, class V>
  T& appendUnsorted(K&& key, V&& value) {
    return Container::emplace_back(std::forward<K>(key), std::forward<V>(value)).second;
  }
  // Puts members appended by appendUnsorted in order; of equal names the last appended wins, as
  // a later duplicate member overwrites an earlier one when inserted one by one.
  void sortMembers() {
    sortFrom(0, /*keepLast=*/true);
    moveForChecking();
  }

 private:
  // Up to this many members a lookup scans. An object's metadata, a pod's spec and status have
  // 9 to 15 members: scanning them (a member of another name length is passed over on one
  // compare) costs fewer instructions than the four steps of a binary search, each comparing
  // names byte by byte.
  static constexpr size_type kLinearSearchMax = 16;
  value_type& item(size_type i) { return Container::data()[i]; }
  const value_type& item(size_type i) const { return Container::data()[i]; }
  size_type lowerBound(std::string_view key) const {
    size_type low = 0;
    size_type count = size();
    const value_type* data = Container::data();
    while (count > 0) {
      const size_type half = count / 2;
      if (key_compare{}(data[low + half].first, key)) {
        low += half + 1;
        count -= half + 1;
      } else {
        count = half;
      }
    }
    return low;
  }
  size_type indexOf(std::string_view key) const {
    if (size() <= kLinearSearchMax) {
      // A short scan beats a binary search's unpredictable branches: a name of another length,
      // or another first byte, is passed over without a call.
      const value_type* data = Container::data();
      const size_type n = size();
      for (size_type i = 0; i < n; ++i) {
        const std::string& name = data[i].first;
        if (name.size() == key.size() &&
            (key.empty() ||
             (name[0] == key[0] && sameBytes(name.data(), key.data(), key.size())))) {
          return i;
        }
      }
      return n;
    }
    const size_type at = lowerBound(key);
    if (at != size() && !key_compare{}(key, item(at).first)) return at;
    return size();
  }
  // Whether a[0, n) == b[0, n), inline: member names are short, and a call to memcmp cost more
  // than comparing them. Up to 16 bytes in at most two overlapping loads a side, never past n.
  static bool sameBytes(const char* a, const char* b, std::size_t n) noexcept {
    if (n >= 8) {
      for (std::size_t i = 0; i + 8 < n; i += 8) {
        if (load8(a + i) != load8(b + i)) return false;
      }
      return load8(a + n - 8) == load8(b + n - 8);
    }
    if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
    for (std::size_t i = 0; i < n; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  static std::uint64_t load8(const char* p) noexcept {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static std::uint32_t load4(const char* p) noexcept {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  // Sorts [from, end) into the sorted [0, from); of equal names keeps the last or the first.
  void sortFrom(size_type from, bool keepLast) {
    if (from == size()) return;
    auto byName = [](const value_type& a, const value_type& b) {
      return key_compare{}(a.first, b.first);
    };
    // Already strictly in order (a Go client's body, our own text): nothing to sort or drop.
    const auto notBelowNext = [](const value_type& a, const value_type& b) {
      return !key_compare{}(a.first, b.first);
    };
    const auto unsortedFrom = from == 0 ? begin() : begin() + (from - 1);
    if (std::adjacent_find(unsortedFrom, end(), notBelowNext) == end()) return;
    std::stable_sort(begin() + from, end(), byName);
    std::inplace_merge(begin(), begin() + from, end(), byName);
    // Equal names are now adjacent in append order: keep one of each run.
    size_type out = 0;
    for (size_type i = 0; i < size(); ++i) {
      // Keeping the last: drop a member the next one shares its name with. Keeping the first:
      // drop one whose name the last member kept (moved to out - 1) has.
      const bool dropped = keepLast
                               ? i + 1 < size() && !key_compare{}(item(i).first, item(i + 1).first)
                               : out > 0 && !key_compare{}(item(out - 1).first, item(i).first);
      if (dropped) continue;
      if (out != i) item(out) = std::move(item(i));
      ++out;
    }
    Container::erase(begin() + out, end());
  }
  // Under FAKEKUBE_JSON_MOVE_ON_CHANGE (the AddressSanitizer build) every insert and erase moves
  // the members to a new allocation and frees the old one, so a reference kept across a change
  // to its object is a use-after-free the sanitizer reports, not a silent read of a neighbour.
  void moveForChecking() {
#if defined(FAKEKUBE_JSON_MOVE_ON_CHANGE)
    Container moved(std::make_move_iterator(begin()), std::make_move_iterator(end()));
    Container::swap(moved);
#endif
  }
};

}  // namespace fakekube
