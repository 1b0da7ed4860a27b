#include "fakekube/apiserver/internal/authorization_memo.h"

#include <atomic>
#include <cstring>

namespace fakekube {
namespace {

std::array<std::string_view, 7> memoKeyAttributes(const AuthorizationQuery& query) {
  return {query.verb,        query.ns,   query.apiGroup, query.resource,
          query.subresource, query.name, query.path};
}

std::uint64_t memoWordAt(const char* bytes) {
  std::uint64_t word = 0;
  std::memcpy(&word, bytes, sizeof word);
  return word;
}

// The length and the first and last eight bytes of `text`: names that differ usually differ in
// length or at an end (generated suffixes, numbered objects), and the full comparison catches
// the rest.
std::uint64_t memoSample(std::string_view text) {
  std::uint64_t sample = text.size();
  if (text.size() >= sizeof(std::uint64_t)) {
    sample ^=
        memoWordAt(text.data()) ^
        (memoWordAt(text.data() + text.size() - sizeof(std::uint64_t)) * 0x9e3779b97f4a7c15ULL);
  } else if (!text.empty()) {
    std::uint64_t word = 0;
    std::memcpy(&word, text.data(), text.size());
    sample ^= word << 8;
  }
  return sample;
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

std::size_t AuthorizationMemo::slotOf(const AuthorizationQuery& query) {
  std::uint64_t hash = reinterpret_cast<std::uintptr_t>(query.user) ^
                       (query.resourceRequest ? 1 : 0) ^ (query.requestForm ? 2 : 0);
  for (std::string_view attribute : memoKeyAttributes(query)) {
    hash = (hash ^ memoSample(attribute)) * 0xff51afd7ed558ccdULL;
  }
  return static_cast<std::size_t>(hash >> 40) & (kSlots - 1);
}

bool AuthorizationMemo::matches(const Entry& entry, const AuthorizationQuery& query) {
  if (entry.user != query.user || entry.resourceRequest != query.resourceRequest ||
      entry.requestForm != query.requestForm) {
    return false;
  }
  const auto attributes = memoKeyAttributes(query);
  for (std::size_t i = 0; i < kAttributes; ++i) {
    if (entry.attributes[i] != attributes[i]) return false;
  }
  // The same address may hold another user than the one remembered.
  return entry.userName == query.user->name && entry.groups == query.user->groups;
}

const AuthorizationResult* AuthorizationMemo::find(std::uint64_t serverId, std::uint64_t generation,
                                                   const AuthorizationQuery& query) const {
  const std::size_t slot = slotOf(query);
  for (std::size_t candidate : {slot, slot ^ 1}) {
    const Entry& entry = entries_[candidate];
    if (entry.serverId == serverId && entry.generation == generation && matches(entry, query)) {
      return &entry.result;
    }
  }
  return nullptr;
}

void AuthorizationMemo::remember(std::uint64_t serverId, std::uint64_t generation,
                                 const AuthorizationQuery& query,
                                 const AuthorizationResult& result) {
  // Two slots per hash: the first that holds nothing current is taken, else the first.
  const std::size_t slot = slotOf(query);
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
  const auto attributes = memoKeyAttributes(query);
  for (std::size_t i = 0; i < kAttributes; ++i) entry.attributes[i].assign(attributes[i]);
  entry.result = result;
}

}  // namespace fakekube
