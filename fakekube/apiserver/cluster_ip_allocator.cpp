#include "fakekube/apiserver/internal/cluster_ip_allocator.h"

#include <fmt/format.h>

#include <charconv>

namespace fakekube {

namespace {
constexpr std::uint32_t kBase = (10u << 24) | (96u << 16);  // 10.96.0.0
constexpr std::uint32_t kSize = 1u << 20;                   // /12
}  // namespace

std::optional<std::uint32_t> ClusterIpAllocator::parse(std::string_view ip) {
  std::uint32_t value = 0;
  const char* p = ip.data();
  const char* end = ip.data() + ip.size();
  for (int part = 0; part < 4; ++part) {
    unsigned octet = 0;
    auto [next, ec] = std::from_chars(p, end, octet);
    if (ec != std::errc() || next == p || octet > 255 || next - p > 3) return std::nullopt;
    value = (value << 8) | octet;
    p = next;
    if (part < 3) {
      if (p == end || *p != '.') return std::nullopt;
      ++p;
    }
  }
  if (p != end) return std::nullopt;
  return value;
}

std::string ClusterIpAllocator::format(std::uint32_t ip) {
  return fmt::format("{}.{}.{}.{}", ip >> 24, (ip >> 16) & 0xff, (ip >> 8) & 0xff, ip & 0xff);
}

std::optional<std::string> ClusterIpAllocator::allocateNext() {
  // The network and broadcast addresses are never handed out.
  for (std::uint32_t tried = 0; tried < kSize - 2; ++tried) {
    std::uint32_t offset = next_;
    next_ = next_ + 1 >= kSize - 1 ? 1 : next_ + 1;
    if (used_.insert(kBase + offset).second) return format(kBase + offset);
  }
  return std::nullopt;
}

ClusterIpAllocator::Outcome ClusterIpAllocator::check(std::string_view ip) const {
  auto value = parse(ip);
  if (!value) return Outcome::Malformed;
  if (*value <= kBase || *value >= kBase + kSize - 1) return Outcome::NotInRange;
  return used_.count(*value) ? Outcome::InUse : Outcome::Allocated;
}

ClusterIpAllocator::Outcome ClusterIpAllocator::allocate(std::string_view ip) {
  Outcome outcome = check(ip);
  if (outcome == Outcome::Allocated) used_.insert(*parse(ip));
  return outcome;
}

void ClusterIpAllocator::release(std::string_view ip) {
  if (auto value = parse(ip)) used_.erase(*value);
}

bool ClusterIpAllocator::inUse(std::string_view ip) const {
  auto value = parse(ip);
  return value && used_.count(*value) > 0;
}

}  // namespace fakekube
