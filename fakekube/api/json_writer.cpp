#include "fakekube/api/json_writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string_view>

namespace fakekube {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not valid.
std::size_t utf8Length(const unsigned char* s, std::size_t i, std::size_t n) {
  unsigned char c = s[i];
  auto cont = [&](std::size_t k) { return i + k < n && (s[i + k] & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && s[i + 1] < 0xA0) return 0;  // overlong
    if (c == 0xED && s[i + 1] > 0x9F) return 0;  // surrogates
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && s[i + 1] < 0x90) return 0;  // overlong
    if (c == 0xF4 && s[i + 1] > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

// Writes into the caller's string through a raw cursor: the string is grown (by resize) ahead of
// the cursor and trimmed at the end, so each token is a bounds check and a memcpy rather than a
// std::string append.
//
// The room made ahead of the cursor is proportional to what this Sink has written, never to the
// size of the string it appends to: resize() zero-fills, and a list writes thousands of items
// into one growing buffer, one Sink each, so zero-filling up to the buffer's capacity (or
// doubling its size) per item made writing a list quadratic. std::string's own reallocation is
// geometric, so growing by small steps stays amortised linear.
class Sink {
 public:
  explicit Sink(std::string& out) : out_(out), start_(out.size()), pos_(start_) {
    out_.resize(pos_ + kInitialRoom);
  }
  ~Sink() { out_.resize(pos_); }

  void reserve(std::size_t n) {
    if (pos_ + n > out_.size()) {
      out_.resize(pos_ + std::max(n, out_.size() - start_));
    }
  }
  void put(char c) {
    reserve(1);
    out_[pos_++] = c;
  }
  void write(const char* data, std::size_t n) {
    reserve(n);
    std::memcpy(out_.data() + pos_, data, n);
    pos_ += n;
  }
  void write(std::string_view text) { write(text.data(), text.size()); }

  // For a token whose length is known: room for n bytes at the cursor, written through a local
  // pointer (which stays in a register, where the cursor would be reloaded after every memcpy),
  // then commit(end of what was written).
  char* claim(std::size_t n) {
    reserve(n);
    return out_.data() + pos_;
  }
  void commit(const char* end) { pos_ = static_cast<std::size_t>(end - out_.data()); }

 private:
  static constexpr std::size_t kInitialRoom = 256;
  std::string& out_;
  const std::size_t start_;  // where this Sink began writing
  std::size_t pos_;
};

// 1 for the bytes a JSON string cannot hold as they are: control characters, '"', '\\', and
// every byte of a non-ASCII sequence (checked for valid UTF-8 on the slow path).
constexpr std::array<unsigned char, 256> makeSpecial() {
  std::array<unsigned char, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) ? 1 : 0;
  return table;
}
constexpr auto kSpecial = makeSpecial();

// Whether any of the 8 bytes in `word` is special (see kSpecial), testing all eight at once
// (the "has a byte less than n" and "has a zero byte" tricks): nearly every string in an object is
// plain ASCII, and scanning it a word at a time is what makes serialising cheaper than storing.
bool hasSpecialByte(std::uint64_t word) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const std::uint64_t quote = word ^ (kOnes * '"');
  const std::uint64_t backslash = word ^ (kOnes * '\\');
  const std::uint64_t control = (word - kOnes * 0x20) & ~word;
  const std::uint64_t isQuote = (quote - kOnes) & ~quote;
  const std::uint64_t isBackslash = (backslash - kOnes) & ~backslash;
  return ((control | isQuote | isBackslash | word) & kHigh) != 0;
}

bool wordHasSpecialByte(const unsigned char* s) {
  std::uint64_t word;
  std::memcpy(&word, s, 8);
  return hasSpecialByte(word);
}

// Whether all of s[0, n) can be copied as it is. Most strings are short and plain: a short one is
// checked with table lookups and no early exit, a longer one eight bytes at a time with the tail
// as the last eight bytes (overlapping what was checked already).
bool isPlain(const unsigned char* s, std::size_t n) {
  if (n < 8) {
    unsigned char special = 0;
    for (std::size_t i = 0; i < n; ++i) special |= kSpecial[s[i]];
    return special == 0;
  }
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    if (wordHasSpecialByte(s + i)) return false;
  }
  return !wordHasSpecialByte(s + n - 8);
}

// Writes `text` as a JSON string, between `before` and `after` unless they are 0 (an object
// member's ',' and ':').
void appendString(Sink& out, const std::string& text, char before = 0, char after = 0) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  if (isPlain(s, n)) {  // the common case: nothing to escape
    char* p = out.claim(n + 4);
    if (before != 0) *p++ = before;
    *p++ = '"';
    std::memcpy(p, text.data(), n);
    p += n;
    *p++ = '"';
    if (after != 0) *p++ = after;
    out.commit(p);
    return;
  }
  if (before != 0) out.put(before);
  out.put('"');
  std::size_t i = 0;
  std::size_t run = 0;  // start of the pending run of characters copied verbatim
  while (true) {
    while (i < n && kSpecial[s[i]] == 0) ++i;
    if (i == n) break;
    unsigned char c = s[i];
    if (c >= 0x80) {
      std::size_t len = utf8Length(s, i, n);
      if (len > 0) {
        i += len;
        continue;
      }
    }
    out.write(text.data() + run, i - run);
    switch (c) {
      case '"':
        out.write("\\\"");
        break;
      case '\\':
        out.write("\\\\");
        break;
      case '\n':
        out.write("\\n");
        break;
      case '\r':
        out.write("\\r");
        break;
      case '\t':
        out.write("\\t");
        break;
      case '\b':
        out.write("\\b");
        break;
      case '\f':
        out.write("\\f");
        break;
      default:
        if (c < 0x20) {
          const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
          out.write(escape, sizeof escape);
        } else {
          out.write("\xEF\xBF\xBD");  // U+FFFD for a byte that is not valid UTF-8
        }
    }
    ++i;
    run = i;
  }
  out.write(text.data() + run, n - run);
  out.put('"');
  if (after != 0) out.put(after);
}

template <class Int>
void appendInteger(Sink& out, Int value) {
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.write(buffer, static_cast<std::size_t>(end - buffer));
}

void appendDouble(Sink& out, double value) {
  if (!std::isfinite(value)) {
    out.write("null");
    return;
  }
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string_view text(buffer, static_cast<std::size_t>(end - buffer));
  out.write(text);
  // Keep a double a double when it is read back, as dump() does.
  if (text.find_first_of(".eE") == std::string_view::npos) out.write(".0");
}

void append(Sink& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object: {
      // The underlying map, not items(): items() builds a proxy (and a string) per entry.
      const auto& object = value.get_ref<const Json::object_t&>();
      out.put('{');
      bool first = true;
      for (const auto& [key, item] : object) {
        appendString(out, key, first ? '\0' : ',', ':');
        first = false;
        append(out, item);
      }
      out.put('}');
      return;
    }
    case Json::value_t::array: {
      const auto& array = value.get_ref<const Json::array_t&>();
      out.put('[');
      bool first = true;
      for (const auto& item : array) {
        if (!first) out.put(',');
        first = false;
        append(out, item);
      }
      out.put(']');
      return;
    }
    case Json::value_t::string:
      appendString(out, value.get_ref<const std::string&>());
      return;
    case Json::value_t::boolean:
      out.write(value.get<bool>() ? "true" : "false");
      return;
    case Json::value_t::number_integer:
      appendInteger(out, value.get<std::int64_t>());
      return;
    case Json::value_t::number_unsigned:
      appendInteger(out, value.get<std::uint64_t>());
      return;
    case Json::value_t::number_float:
      appendDouble(out, value.get<double>());
      return;
    case Json::value_t::binary: {
      // Raw JSON text, kept compact (json_writer.h): written as it is.
      const auto& bytes = value.get_binary();
      if (bytes.empty()) {
        out.write("null");
      } else {
        out.write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      }
      return;
    }
    case Json::value_t::null:
    case Json::value_t::discarded:
      out.write("null");
      return;
  }
}

// A byte of a string takes at most six in the text: \u00XX for a control character (a byte that
// is not valid UTF-8 takes three, U+FFFD).
constexpr std::size_t kMaxEscapedBytes = 6;

std::size_t stringBound(const std::string& text) { return 2 + kMaxEscapedBytes * text.size(); }

std::size_t containerBound(const Json& value);

// A value's bound: scalars (most of a document's values) without a call.
inline std::size_t valueBound(const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
    case Json::value_t::array:
      return containerBound(value);
    case Json::value_t::string:
      return stringBound(value.get_ref<const std::string&>());
    case Json::value_t::boolean:
      return 5;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return 20;  // -9223372036854775808, 18446744073709551615
    case Json::value_t::number_float:
      return 32;  // to_chars' shortest form of a double, and a ".0"
    case Json::value_t::binary:
      return std::max<std::size_t>(4, value.get_binary().size());
    case Json::value_t::null:
    case Json::value_t::discarded:
      return 4;
  }
  return 4;
}

std::size_t containerBound(const Json& value) {
  std::size_t size = 2;  // {} or []
  if (value.is_object()) {
    for (const auto& [key, item] : value.get_ref<const Json::object_t&>()) {
      size += stringBound(key) + 2 + valueBound(item);  // the ':' and a ','
    }
  } else {
    for (const auto& item : value.get_ref<const Json::array_t&>()) size += 1 + valueBound(item);
  }
  return size;
}

}  // namespace

std::size_t jsonTextSizeBound(const Json& value) { return valueBound(value); }

void appendJson(std::string& out, const Json& value) {
  Sink sink(out);
  append(sink, value);
}

std::string toJsonText(const Json& value) {
  std::string out;
  appendJson(out, value);
  return out;
}

}  // namespace fakekube
