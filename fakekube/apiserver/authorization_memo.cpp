#include "fakekube/apiserver/internal/authorization_memo.h"

#include <atomic>
#include <cstring>

namespace fakekube {
namespace {

// Calls visit(i, attribute) for each attribute of the key, the name left out of an answer for any
// name. The fields are read one by one where they are: copying them into an array first made
// every read wait on the copy's stores.
template <class Visitor>
bool memoForEachKeyAttribute(const AuthorizationQuery& query, bool anyName, Visitor&& visit) {
  return visit(0, query.verb) && visit(1, query.ns) && visit(2, query.apiGroup) &&
         visit(3, query.resource) && visit(4, query.subresource) &&
         visit(5, anyName ? std::string_view() : query.name) && visit(6, query.path);
}

std::uint64_t memoWordAt(const char* bytes) {
  std::uint64_t word = 0;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

std::uint64_t memoHalfWordAt(const char* bytes) {
  std::uint32_t word = 0;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

// The length and a few bytes at each end of `text`, read with fixed-size loads: names that differ
// usually differ in length or at an end (generated suffixes, numbered objects), and the full
// comparison catches the rest.
[[gnu::always_inline]] inline std::uint64_t memoSample(std::string_view text) {
  const std::size_t size = text.size();
  const char* bytes = text.data();
  if (size >= 8) {
    return size ^ memoWordAt(bytes) ^ (memoWordAt(bytes + size - 8) * 0x9e3779b97f4a7c15ULL);
  }
  if (size >= 4)
    return size ^ (memoHalfWordAt(bytes) << 8) ^ (memoHalfWordAt(bytes + size - 4) << 32);
  if (size == 0) return 0;
  const auto byteAt = [&](std::size_t i) {
    return std::uint64_t{static_cast<unsigned char>(bytes[i])};
  };
  return size ^ (byteAt(0) << 8) ^ (byteAt(size / 2) << 16) ^ (byteAt(size - 1) << 24);
}

// Whether two texts are equal, compared inline a word at a time: the texts of a key are short,
// and a call to memcmp for each of them cost more than the comparisons themselves.
[[gnu::always_inline]] inline bool memoSameText(std::string_view a, std::string_view b) {
  const std::size_t size = a.size();
  if (size != b.size()) return false;
  const char* x = a.data();
  const char* y = b.data();
  if (size >= 8) {
    for (std::size_t i = 0; i + 8 <= size; i += 8) {
      if (memoWordAt(x + i) != memoWordAt(y + i)) return false;
    }
    return memoWordAt(x + size - 8) == memoWordAt(y + size - 8);
  }
  if (size >= 4) {
    return memoHalfWordAt(x) == memoHalfWordAt(y) &&
           memoHalfWordAt(x + size - 4) == memoHalfWordAt(y + size - 4);
  }
  return size == 0 || (x[0] == y[0] && x[size / 2] == y[size / 2] && x[size - 1] == y[size - 1]);
}

}  // namespace

AuthorizationQuery authorizationQueryOf(const AuthorizationAttributes& attributes) {
  AuthorizationQuery query;
  query.user = attributes.user;
  query.resourceRequest = attributes.resourceRequest;
  query.verb = attributes.verb;
  query.ns = attributes.ns;
  query.apiGroup = attributes.apiGroup;
  query.resource = attributes.resource;
  query.subresource = attributes.subresource;
  query.name = attributes.name;
  query.path = attributes.path;
  return query;
}

AuthorizationMemo& AuthorizationMemo::ofThisThread() {
  thread_local AuthorizationMemo memo;
  return memo;
}

std::uint64_t AuthorizationMemo::newServerId() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::size_t AuthorizationMemo::slotOf(const AuthorizationQuery& query, bool anyName) {
  // Independent products, summed: the attributes' samples are mixed without a chain of
  // multiplications waiting on each other.
  static constexpr std::array<std::uint64_t, kAttributes> kMultipliers = {
      0xff51afd7ed558ccdULL, 0xc4ceb9fe1a85ec53ULL, 0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL,
      0x94d049bb133111ebULL, 0xd6e8feb86659fd93ULL, 0xa0761d6478bd642fULL};
  std::uint64_t hash = reinterpret_cast<std::uintptr_t>(query.user) ^
                       (query.resourceRequest ? 1 : 0) ^ (query.requestForm ? 2 : 0) ^
                       (anyName ? 4 : 0);
  memoForEachKeyAttribute(query, anyName, [&](std::size_t i, std::string_view attribute) {
    hash += memoSample(attribute) * kMultipliers[i];
    return true;
  });
  hash = (hash ^ (hash >> 29)) * 0xbf58476d1ce4e5b9ULL;
  return static_cast<std::size_t>(hash >> 40) & (kSlots - 1);
}

bool AuthorizationMemo::matches(const Entry& entry, const AuthorizationQuery& query, bool anyName) {
  if (entry.user != query.user || entry.resourceRequest != query.resourceRequest ||
      entry.requestForm != query.requestForm || entry.anyName != anyName) {
    return false;
  }
  if (!memoForEachKeyAttribute(query, anyName, [&](std::size_t i, std::string_view attribute) {
        return memoSameText(entry.attributes[i], attribute);
      })) {
    return false;
  }
  // The same address may hold another user than the one remembered.
  const UserInfo& user = *query.user;
  if (!memoSameText(entry.userName, user.name) || entry.groups.size() != user.groups.size()) {
    return false;
  }
  for (std::size_t i = 0; i < user.groups.size(); ++i) {
    if (!memoSameText(entry.groups[i], user.groups[i])) return false;
  }
  return true;
}

const AuthorizationResult* AuthorizationMemo::find(std::uint64_t serverId, std::uint64_t generation,
                                                   const AuthorizationQuery& query) const {
  if (const AuthorizationResult* answer = findExactly(serverId, generation, query, true)) {
    return answer;
  }
  return findExactly(serverId, generation, query, false);
}

const AuthorizationResult* AuthorizationMemo::findExactly(std::uint64_t serverId,
                                                          std::uint64_t generation,
                                                          const AuthorizationQuery& query,
                                                          bool anyName) const {
  const std::size_t slot = slotOf(query, anyName);
  for (std::size_t candidate : {slot, slot ^ 1}) {
    const Entry& entry = entries_[candidate];
    if (entry.serverId == serverId && entry.generation == generation &&
        matches(entry, query, anyName)) {
      return &entry.result;
    }
  }
  return nullptr;
}

void AuthorizationMemo::remember(std::uint64_t serverId, std::uint64_t generation,
                                 const AuthorizationQuery& query, bool nameMatters,
                                 const AuthorizationResult& result) {
  const bool anyName = !nameMatters;
  // Two slots per hash: the first that holds nothing current is taken, else the first.
  const std::size_t slot = slotOf(query, anyName);
  auto current = [&](const Entry& entry) {
    return entry.serverId == serverId && entry.generation == generation;
  };
  Entry& entry =
      current(entries_[slot]) && !current(entries_[slot ^ 1]) ? entries_[slot ^ 1] : entries_[slot];
  entry.serverId = serverId;
  entry.generation = generation;
  entry.user = query.user;
  entry.userName = query.user->name;
  entry.groups = query.user->groups;
  entry.resourceRequest = query.resourceRequest;
  entry.requestForm = query.requestForm;
  entry.anyName = anyName;
  memoForEachKeyAttribute(query, anyName, [&](std::size_t i, std::string_view attribute) {
    entry.attributes[i].assign(attribute);
    return true;
  });
  entry.result = result;
}

}  // namespace fakekube
