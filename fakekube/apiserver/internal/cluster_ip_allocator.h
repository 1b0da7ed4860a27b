// ClusterIpAllocator: the Service IP range of the API server (kube-apiserver's
// --service-cluster-ip-range, here 10.96.0.0/12). Services get the lowest free address; a
// requested address must be in the range and free. The allocation lives in memory and is rebuilt
// from the stored Services when the server opens, as the real allocator is repaired from etcd.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace fakekube {

class ClusterIpAllocator {
 public:
  static constexpr std::string_view kRange = "10.96.0.0/12";

  // The lowest free address, or nullopt when the range is full.
  std::optional<std::string> allocateNext();
  enum class Outcome { Allocated, NotInRange, InUse, Malformed };
  Outcome allocate(std::string_view ip);
  // Only checks; allocates nothing (dry run).
  Outcome check(std::string_view ip) const;
  void release(std::string_view ip);
  bool inUse(std::string_view ip) const;

 private:
  static std::optional<std::uint32_t> parse(std::string_view ip);
  static std::string format(std::uint32_t ip);
  std::set<std::uint32_t> used_;
  std::uint32_t next_ = 1;  // offset of the next address to try
};

}  // namespace fakekube
