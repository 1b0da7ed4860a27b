#include "fakekube/api/quantity.h"

#include <fmt/format.h>

#include <limits>
#include <optional>
#include <string>

namespace fakekube {

namespace {

using Int128 = __int128;

// resource.ErrFormatWrong and resource.ErrSuffix, prefixed with the input as
// resource.MustParse reports it.
Status formatWrong(std::string_view text) {
  return Status::badRequest(
      fmt::format("quantities must match the regular expression "
                  "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {}",
                  goQuote(text)));
}
Status suffixWrong(std::string_view text) {
  return Status::badRequest(fmt::format("unable to parse quantity's suffix: {}", goQuote(text)));
}
Status tooLarge(std::string_view text) {
  return Status::badRequest(fmt::format("quantity is too large to represent: {}", goQuote(text)));
}

// The suffix as a multiplier base^exponent.
struct Multiplier {
  int base = 10;  // 10 or 2
  int exponent = 0;
};

std::optional<Multiplier> suffixMultiplier(std::string_view suffix) {
  static constexpr std::pair<std::string_view, Multiplier> kSuffixes[] = {
      {"", {10, 0}},   {"n", {10, -9}}, {"u", {10, -6}}, {"m", {10, -3}},
      {"k", {10, 3}},  {"M", {10, 6}},  {"G", {10, 9}},  {"T", {10, 12}},
      {"P", {10, 15}}, {"E", {10, 18}}, {"Ki", {2, 10}}, {"Mi", {2, 20}},
      {"Gi", {2, 30}}, {"Ti", {2, 40}}, {"Pi", {2, 50}}, {"Ei", {2, 60}},
  };
  for (const auto& [name, multiplier] : kSuffixes) {
    if (name == suffix) return multiplier;
  }
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view digits = suffix.substr(1);
    bool negative = false;
    if (digits[0] == '+' || digits[0] == '-') {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (digits.empty() || digits.size() > 3) return std::nullopt;
    int exponent = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      exponent = exponent * 10 + (c - '0');
    }
    return Multiplier{10, negative ? -exponent : exponent};
  }
  return std::nullopt;
}

// An exact rational value: numerator / 10^scale, times the multiplier. The result is
// value * factor, rounded up (away from zero for positive values, towards zero for negative
// ones, as Quantity.Value rounds with ceil).
Result<std::int64_t> scaled(std::string_view text, std::int64_t factor) {
  if (text.empty()) return tl::unexpected(formatWrong(text));
  std::size_t i = 0;
  bool negative = false;
  if (text[i] == '+' || text[i] == '-') {
    negative = text[i] == '-';
    ++i;
  }
  Int128 numerator = 0;
  int scale = 0;  // digits after the point
  bool seenDigit = false;
  bool seenPoint = false;
  const Int128 kCap = Int128(1) << 100;  // beyond this nothing fits in 64 bits anyway
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.') {
      if (seenPoint) return tl::unexpected(formatWrong(text));
      seenPoint = true;
    } else if (c >= '0' && c <= '9') {
      seenDigit = true;
      if (numerator < kCap) {
        numerator = numerator * 10 + (c - '0');
        if (seenPoint) ++scale;
      } else if (!seenPoint) {
        return tl::unexpected(tooLarge(text));
      }
    } else {
      break;
    }
  }
  if (!seenDigit) return tl::unexpected(formatWrong(text));
  std::string_view suffix = text.substr(i);
  for (char c : suffix) {
    bool allowed = std::string_view("eEinumkKMGTP+-0123456789").find(c) != std::string_view::npos;
    if (!allowed) return tl::unexpected(formatWrong(text));
  }
  auto multiplier = suffixMultiplier(suffix);
  if (!multiplier) return tl::unexpected(suffixWrong(text));

  // value = numerator * factor * base^exponent / 10^scale.
  Int128 top = numerator * factor;
  Int128 bottom = 1;
  auto multiply = [&](Int128& target, int base, int times) -> bool {
    for (int k = 0; k < times; ++k) {
      target *= base;
      if (target > kCap * 1024) return false;
    }
    return true;
  };
  int decimalExponent = (multiplier->base == 10 ? multiplier->exponent : 0) - scale;
  if (multiplier->base == 2 && !multiply(top, 2, multiplier->exponent)) {
    return tl::unexpected(tooLarge(text));
  }
  if (decimalExponent >= 0) {
    if (!multiply(top, 10, decimalExponent)) {
      if (numerator == 0) return 0;
      return tl::unexpected(tooLarge(text));
    }
  } else if (!multiply(bottom, 10, -decimalExponent)) {
    return numerator == 0 ? 0 : (negative ? 0 : 1);  // vanishingly small: rounds up to 1 or 0
  }
  Int128 whole = top / bottom;
  if (top % bottom != 0 && !negative) ++whole;  // ceil
  if (whole > Int128(std::numeric_limits<std::int64_t>::max())) {
    return tl::unexpected(tooLarge(text));
  }
  auto value = static_cast<std::int64_t>(whole);
  return negative ? -value : value;
}

}  // namespace

Result<std::int64_t> parseMilliQuantity(std::string_view text) { return scaled(text, 1000); }

Result<std::int64_t> parseQuantity(std::string_view text) { return scaled(text, 1); }

bool isMilliResource(std::string_view resource) { return resource == "cpu"; }

Result<std::int64_t> parseResourceQuantity(std::string_view resource, std::string_view text) {
  return isMilliResource(resource) ? parseMilliQuantity(text) : parseQuantity(text);
}

}  // namespace fakekube
