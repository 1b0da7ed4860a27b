#include "fakekube/auth/rbac_rules.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace fakekube {
namespace {

std::vector<std::string> ruleStrings(const Json& rule, const char* member) {
  std::vector<std::string> values;
  if (!rule.is_object()) return values;
  auto it = rule.find(member);
  if (it == rule.end() || !it->is_array()) return values;
  values.reserve(it->size());
  for (const Json& value : *it) {
    if (value.is_string()) values.push_back(value.get<std::string>());
  }
  return values;
}

bool containsString(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

bool containsAllStrings(const std::vector<std::string>& values,
                        const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(),
                     [&](const std::string& value) { return containsString(values, value); });
}

// VerbMatches, APIGroupMatches: the value listed, or "*".
bool listMatches(const std::vector<std::string>& values, std::string_view wildcard,
                 std::string_view requested) {
  for (const std::string& value : values) {
    if (value == wildcard || value == requested) return true;
  }
  return false;
}

// ResourceMatches: "*", the resource ("pods") or resource/subresource ("pods/log") exactly, or
// "*/<subresource>" for any resource's subresource. The combined name is compared in its parts,
// so a request builds no string.
bool resourceMatches(const PolicyRule& rule, std::string_view resource,
                     std::string_view subresource) {
  for (const std::string& ruleResource : rule.resources) {
    if (ruleResource == rbac::kResourceAll) return true;
    std::string_view candidate = ruleResource;
    if (subresource.empty()) {
      if (candidate == resource) return true;
      continue;
    }
    if (candidate.size() == resource.size() + 1 + subresource.size() &&
        candidate.starts_with(resource) && candidate[resource.size()] == '/' &&
        candidate.ends_with(subresource)) {
      return true;
    }
    if (candidate.size() == subresource.size() + 2 && candidate.starts_with("*/") &&
        candidate.ends_with(subresource)) {
      return true;
    }
  }
  return false;
}

bool resourceNameMatches(const PolicyRule& rule, std::string_view name) {
  return rule.resourceNames.empty() || containsString(rule.resourceNames, name);
}

// A trailing "*" matches every path with the prefix before it; TrimRight takes every trailing
// "*", as Go's strings.TrimRight does.
bool nonResourceUrlCovers(std::string_view owner, std::string_view path) {
  if (owner == path) return true;
  if (!owner.ends_with('*')) return false;
  std::string_view prefix = owner.substr(0, owner.find_last_not_of('*') + 1);
  if (owner.find_last_not_of('*') == std::string_view::npos) prefix = {};
  return path.starts_with(prefix);
}

bool nonResourceUrlMatches(const PolicyRule& rule, std::string_view path) {
  for (const std::string& url : rule.nonResourceURLs) {
    if (url == rbac::kNonResourceAll || nonResourceUrlCovers(url, path)) return true;
  }
  return false;
}

// breakdownRule: one verb, group, resource and name each; non-resource URLs with one verb each.
void breakDownRule(const PolicyRule& rule, std::vector<PolicyRule>& into) {
  for (const std::string& group : rule.apiGroups) {
    for (const std::string& resource : rule.resources) {
      for (const std::string& verb : rule.verbs) {
        if (rule.resourceNames.empty()) {
          into.push_back(PolicyRule{{verb}, {group}, {resource}, {}, {}});
          continue;
        }
        for (const std::string& name : rule.resourceNames) {
          into.push_back(PolicyRule{{verb}, {group}, {resource}, {name}, {}});
        }
      }
    }
  }
  for (const std::string& url : rule.nonResourceURLs) {
    for (const std::string& verb : rule.verbs) {
      into.push_back(PolicyRule{{verb}, {}, {}, {}, {url}});
    }
  }
}

// ruleCovers: the owner rule (any shape) grants all of the broken-down rule.
bool ruleCoversSubrule(const PolicyRule& owner, const PolicyRule& subrule) {
  bool verbs =
      containsString(owner.verbs, rbac::kVerbAll) || containsAllStrings(owner.verbs, subrule.verbs);
  bool groups = containsString(owner.apiGroups, rbac::kApiGroupAll) ||
                containsAllStrings(owner.apiGroups, subrule.apiGroups);
  bool resources = containsString(owner.resources, rbac::kResourceAll) ||
                   containsAllStrings(owner.resources, subrule.resources);
  bool urls = std::all_of(
      subrule.nonResourceURLs.begin(), subrule.nonResourceURLs.end(), [&](const std::string& url) {
        return std::any_of(
            owner.nonResourceURLs.begin(), owner.nonResourceURLs.end(),
            [&](const std::string& ownerUrl) { return nonResourceUrlCovers(ownerUrl, url); });
      });
  bool names = subrule.resourceNames.empty()
                   ? owner.resourceNames.empty()
                   : owner.resourceNames.empty() ||
                         containsAllStrings(owner.resourceNames, subrule.resourceNames);
  return verbs && groups && resources && names && urls;
}

}  // namespace

PolicyRule PolicyRule::fromJson(const Json& rule) {
  return PolicyRule{ruleStrings(rule, "verbs"), ruleStrings(rule, "apiGroups"),
                    ruleStrings(rule, "resources"), ruleStrings(rule, "resourceNames"),
                    ruleStrings(rule, "nonResourceURLs")};
}

Json PolicyRule::toJson() const {
  Json rule = Json::object();
  auto put = [&](const char* member, const std::vector<std::string>& values) {
    if (!values.empty()) rule[member] = values;
  };
  put("verbs", verbs);
  put("apiGroups", apiGroups);
  put("resources", resources);
  put("resourceNames", resourceNames);
  put("nonResourceURLs", nonResourceURLs);
  return rule;
}

std::vector<PolicyRule> policyRulesFromJson(const Json& rules) {
  std::vector<PolicyRule> parsed;
  if (!rules.is_array()) return parsed;
  parsed.reserve(rules.size());
  for (const Json& rule : rules) parsed.push_back(PolicyRule::fromJson(rule));
  return parsed;
}

Json policyRulesToJson(const std::vector<PolicyRule>& rules) {
  Json array = Json::array();
  for (const PolicyRule& rule : rules) array.push_back(rule.toJson());
  return array;
}

bool ruleAllows(const PolicyRule& rule, const AuthorizationAttributes& attributes) {
  if (!listMatches(rule.verbs, rbac::kVerbAll, attributes.verb)) return false;
  if (!attributes.resourceRequest) return nonResourceUrlMatches(rule, attributes.path);
  return listMatches(rule.apiGroups, rbac::kApiGroupAll, attributes.apiGroup) &&
         resourceMatches(rule, attributes.resource, attributes.subresource) &&
         resourceNameMatches(rule, attributes.name);
}

bool ruleAllows(const Json& policyRule, const AuthorizationAttributes& attributes) {
  return ruleAllows(PolicyRule::fromJson(policyRule), attributes);
}

bool rulesAllow(const Json& rulesArray, const AuthorizationAttributes& attributes) {
  if (!rulesArray.is_array()) return false;
  return std::any_of(rulesArray.begin(), rulesArray.end(),
                     [&](const Json& rule) { return ruleAllows(rule, attributes); });
}

std::vector<PolicyRule> uncoveredRules(const std::vector<PolicyRule>& owner,
                                       const std::vector<PolicyRule>& requested) {
  std::vector<PolicyRule> subrules;
  for (const PolicyRule& rule : requested) breakDownRule(rule, subrules);
  std::vector<PolicyRule> uncovered;
  for (PolicyRule& subrule : subrules) {
    bool covered = std::any_of(owner.begin(), owner.end(), [&](const PolicyRule& ownerRule) {
      return ruleCoversSubrule(ownerRule, subrule);
    });
    if (!covered) uncovered.push_back(std::move(subrule));
  }
  return uncovered;
}

bool rulesCover(const Json& ownerRules, const Json& requestedRules) {
  return uncoveredRules(policyRulesFromJson(ownerRules), policyRulesFromJson(requestedRules))
      .empty();
}

std::vector<PolicyRule> compactRules(const std::vector<PolicyRule>& rules) {
  std::vector<PolicyRule> compacted;
  std::map<std::pair<std::string, std::string>, PolicyRule> simple;
  for (const PolicyRule& rule : rules) {
    bool isSimple = rule.resourceNames.empty() && rule.nonResourceURLs.empty() &&
                    rule.apiGroups.size() == 1 && rule.resources.size() == 1;
    if (!isSimple) {
      compacted.push_back(rule);
      continue;
    }
    auto [it, inserted] = simple.try_emplace({rule.apiGroups[0], rule.resources[0]}, rule);
    if (!inserted) {
      it->second.verbs.insert(it->second.verbs.end(), rule.verbs.begin(), rule.verbs.end());
    }
  }
  for (auto& [groupResource, rule] : simple) compacted.push_back(std::move(rule));
  return compacted;
}

std::string aggregateErrorMessage(const std::vector<std::string>& errors) {
  std::vector<std::string> seen;
  for (const std::string& error : errors) {
    if (std::find(seen.begin(), seen.end(), error) == seen.end()) seen.push_back(error);
  }
  if (seen.size() == 1) return seen.front();
  std::string joined = "[";
  for (std::size_t i = 0; i < seen.size(); ++i) {
    if (i > 0) joined += ", ";
    joined += seen[i];
  }
  return joined + "]";
}

std::string goQuoteList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ' ';
    out += goQuote(values[i]);
  }
  out += ']';
  return out;
}

std::string compactString(const PolicyRule& rule) {
  std::string out = "{";
  auto part = [&](const char* label, const std::vector<std::string>& values) {
    if (values.empty()) return;
    if (out.size() > 1) out += ", ";
    out.append(label).append(":").append(goQuoteList(values));
  };
  part("APIGroups", rule.apiGroups);
  part("Resources", rule.resources);
  part("NonResourceURLs", rule.nonResourceURLs);
  part("ResourceNames", rule.resourceNames);
  part("Verbs", rule.verbs);
  out += '}';
  return out;
}

bool appliesToUser(const UserInfo& user, const Json& subject, std::string_view ns) {
  if (!subject.is_object()) return false;
  auto text = [&](const char* member) -> std::string_view {
    auto it = subject.find(member);
    if (it == subject.end() || !it->is_string()) return {};
    return it->get_ref<const std::string&>();
  };
  std::string_view kind = text("kind");
  std::string_view name = text("name");
  if (kind == "User") return user.name == name;
  if (kind == "Group") return user.inGroup(name);
  if (kind != "ServiceAccount") return false;
  std::string_view saNamespace = text("namespace");
  if (saNamespace.empty()) saNamespace = ns;
  if (saNamespace.empty()) return false;
  // serviceaccount.MatchesUsername: system:serviceaccount:<namespace>:<name>, compared in parts.
  std::string_view username = user.name;
  if (!username.starts_with(users::kServiceAccountPrefix)) return false;
  username.remove_prefix(users::kServiceAccountPrefix.size());
  if (!username.starts_with(saNamespace)) return false;
  username.remove_prefix(saNamespace.size());
  if (!username.starts_with(':')) return false;
  username.remove_prefix(1);
  return username == name;
}

std::optional<std::size_t> appliesTo(const UserInfo& user, const Json& subjects,
                                     std::string_view ns) {
  if (!subjects.is_array()) return std::nullopt;
  for (std::size_t i = 0; i < subjects.size(); ++i) {
    if (appliesToUser(user, subjects[i], ns)) return i;
  }
  return std::nullopt;
}

}  // namespace fakekube
