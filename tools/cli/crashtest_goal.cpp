#include "tools/cli/crashtest_goal.h"

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "fakekube/api/object_meta.h"
#include "fakekube/apiserver/api_server.h"
#include "fixtures/json_path.h"
#include "tools/cli/crashtest_rayservice.h"

namespace fakekube::cli {
namespace {

// One --until term, or one object of the default goal.
struct Condition {
  std::string text;      // as written, for messages
  std::string resource;  // as written (resolved on the running server)
  std::string kind;      // the resolved kind
  std::string namespace_;
  std::string name;
  std::string path;                 // "status.state"
  std::vector<std::string> values;  // any of them
};

std::string fieldText(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// Does the condition hold on the server; `seen` says what it found otherwise. `resolved` keeps
// what the condition's resource named once it was served (the goal is checked after every task
// of every run, and the files' definitions are the same in every run).
bool holds(ApiServer& server, const Condition& c, std::optional<GroupVersionResource>& resolved,
           std::string* seen) {
  if (!resolved) {
    const auto info = server.registry().resolve(c.resource);
    if (!info) {
      *seen = fmt::format("{}: the kind is not served", c.text);
      return false;
    }
    resolved = info->gvr();
  }
  auto object = server.get(*resolved, c.namespace_, c.name);
  if (!object) {
    *seen = fmt::format("{} {}/{}: not found", resolved->resource, c.namespace_, c.name);
    return false;
  }
  const Json* value = findField(**object, c.path);
  const std::string text = value == nullptr ? std::string("<none>") : fieldText(*value);
  for (const auto& v : c.values) {
    if (value != nullptr && text == v) return true;
  }
  *seen =
      fmt::format("{} {}/{}: {} is \"{}\"", resolved->resource, c.namespace_, c.name, c.path, text);
  return false;
}

Expectation allHold(std::vector<Condition> conditions, std::string description) {
  auto resolved =
      std::make_shared<std::vector<std::optional<GroupVersionResource>>>(conditions.size());
  return Expectation(std::move(description), [conditions = std::move(conditions), resolved](
                                                 ApiServer& server, std::string* seen) {
    for (std::size_t i = 0; i < conditions.size(); ++i) {
      if (!holds(server, conditions[i], (*resolved)[i], seen)) return false;
    }
    return true;
  });
}

// The field a KIND/NAME=VALUE condition reads for a kind, "" when the kind has none.
std::string shortcutField(const std::string& kind) {
  if (kind == "RayCluster") return "status.state";
  if (kind == "RayJob") return "status.jobDeploymentStatus";
  if (kind == "RayService") return "status.serviceStatus";
  if (kind == "Pod") return "status.phase";
  return "";
}

Result<Condition> parseCondition(const std::string& text, const ResourceRegistry& registry,
                                 const std::vector<Json>& objects, const std::string& flag) {
  auto bad = [&](const std::string& why) {
    return tl::unexpected(Status::badRequest(fmt::format("{} \"{}\": {}", flag, text, why)));
  };
  Condition c;
  c.text = text;
  // KIND/[NAMESPACE/]NAME[:PATH]=VALUE; the value may hold any character.
  const auto equals = text.find('=');
  if (equals == std::string::npos)
    return bad("expected KIND/NAME=VALUE or KIND/NAME:{.path}=VALUE");
  std::string target = text.substr(0, equals);
  c.values = {text.substr(equals + 1)};
  if (const auto colon = target.find(':'); colon != std::string::npos) {
    c.path = target.substr(colon + 1);
    target = target.substr(0, colon);
    if (c.path.empty()) return bad("an empty field path");
    if (auto parsed = parseFieldPath(c.path); !parsed) return bad(parsed.error().message);
  }
  std::vector<std::string> parts;
  std::stringstream in(target);
  for (std::string part; std::getline(in, part, '/');) parts.push_back(part);
  if (!target.empty() && target.back() == '/') parts.push_back("");
  if (parts.size() < 2 || parts.size() > 3) return bad("expected KIND/NAME or KIND/NAMESPACE/NAME");
  for (const auto& p : parts) {
    if (p.empty()) return bad("an empty kind, namespace or name");
  }
  c.resource = parts.front();
  c.name = parts.back();
  const auto info = registry.resolve(c.resource);
  if (!info) return bad(fmt::format("unknown kind \"{}\"", c.resource));
  c.kind = info->kind;
  if (c.path.empty()) {
    c.path = shortcutField(c.kind);
    if (c.path.empty()) {
      return bad(fmt::format("{} has no default field; name one: {}/{}:{{.status.phase}}=VALUE",
                             c.kind, parts.front(), c.name));
    }
  }
  if (parts.size() == 3) {
    c.namespace_ = parts[1];
  } else if (info->namespaced) {
    c.namespace_ = "default";
    for (const auto& o : objects) {
      if (meta::kind(o) == c.kind && meta::name(o) == c.name && !meta::namespace_(o).empty()) {
        c.namespace_ = meta::namespace_(o);
      }
    }
  }
  if (!info->namespaced) c.namespace_.clear();
  return c;
}

// Every RayJob of the files terminal, every RayCluster of the files ready, every RayService of
// the files Running.
std::vector<Condition> defaultGoal(const std::vector<Json>& objects) {
  std::vector<Condition> goal;
  for (const auto& o : objects) {
    if (meta::apiVersion(o) != "ray.io/v1") continue;
    Condition c;
    c.kind = meta::kind(o);
    c.name = meta::name(o);
    c.namespace_ = namespaceOrDefault(o);
    if (c.kind == "RayCluster") {
      c.resource = "rayclusters.ray.io";
      c.path = "status.state";
      c.values = {"ready"};
    } else if (c.kind == "RayJob") {
      c.resource = "rayjobs.ray.io";
      c.path = "status.jobDeploymentStatus";
      c.values = {"Complete", "Failed"};
    } else if (c.kind == "RayService") {
      c.resource = "rayservices.ray.io";
      c.path = "status.serviceStatus";
      c.values = {"Running"};
    } else {
      continue;
    }
    c.text = fmt::format("{}/{}", c.kind, c.name);
    goal.push_back(std::move(c));
  }
  return goal;
}

std::string goalDescription(const std::vector<Condition>& conditions) {
  std::vector<std::string> parts;
  for (const auto& c : conditions) {
    parts.push_back(
        fmt::format("{}/{} {} in {{{}}}", c.kind, c.name, c.path, fmt::join(c.values, ",")));
  }
  return fmt::format("{}", fmt::join(parts, " and "));
}

// The conditions of --until (`flag`) or --then-until, for the objects of their manifests.
Result<std::vector<Condition>> parseConditions(const std::vector<std::string>& texts,
                                               const std::string& flag,
                                               const ResourceRegistry& registry,
                                               const std::vector<Json>& objects) {
  std::vector<Condition> conditions;
  for (const auto& text : texts) {
    auto condition = parseCondition(text, registry, objects, flag);
    if (!condition) return tl::unexpected(condition.error());
    conditions.push_back(std::move(*condition));
  }
  return conditions;
}

}  // namespace

std::string namespaceOrDefault(const Json& object) {
  const std::string ns = meta::namespace_(object);
  return ns.empty() ? "default" : ns;
}

Result<Expectation> crashtestGoal(const CrashtestOptions& options, const ResourceRegistry& registry,
                                  const std::vector<Json>& objects) {
  if (options.until.empty()) {
    std::vector<Condition> goal = defaultGoal(objects);
    if (goal.empty()) {
      return tl::unexpected(Status::badRequest(
          "the manifests hold no RayCluster, RayJob or RayService: say what to wait for with "
          "--until"));
    }
    return allHold(goal, goalDescription(goal));
  }
  auto goal = parseConditions(options.until, "--until", registry, objects);
  if (!goal) return tl::unexpected(goal.error());
  return allHold(*goal, goalDescription(*goal));
}

Result<Expectation> crashtestThenGoal(const CrashtestOptions& options, ResourceRegistry& registry,
                                      const std::vector<Json>& thenObjects) {
  for (const auto& o : thenObjects) {
    if (meta::kind(o) != "CustomResourceDefinition") continue;
    auto info = ResourceRegistry::fromCustomResourceDefinition(o);
    if (!info) return tl::unexpected(info.error());
    registry.add(std::move(*info));
  }
  if (!options.thenUntil.empty()) {
    auto goal = parseConditions(options.thenUntil, "--then-until", registry, thenObjects);
    if (!goal) return tl::unexpected(goal.error());
    return allHold(*goal, goalDescription(*goal));
  }
  std::vector<Condition> goal = defaultGoal(thenObjects);
  std::erase_if(goal, [](const Condition& c) { return c.kind == "RayService"; });
  const auto rayServices = rayServiceTargets(thenObjects);
  if (goal.empty() && rayServices.empty()) {
    return tl::unexpected(Status::badRequest(
        "the --then manifests hold no RayCluster, RayJob or RayService: say what to wait for "
        "with --then-until"));
  }
  if (rayServices.empty()) return allHold(goal, goalDescription(goal));
  if (goal.empty()) return rayServicesUpgraded(rayServices);
  return allHold(goal, goalDescription(goal)) && rayServicesUpgraded(rayServices);
}

}  // namespace fakekube::cli
