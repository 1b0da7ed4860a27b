// The small objects the API server and HTTP facade tests write, as a client sends them: a
// ConfigMap, a Pod and a Deployment in a namespace, nginx in their containers. One copy for the
// fixtures of both (fakekube/apiserver/fixture.h, fakekube/http/http_fixture.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fakekube/api/json.h"

namespace fakekube::testing {

// A ConfigMap of one key; with an empty name, none (the test sets generateName).
inline Json configMap(const std::string& name, const std::string& ns = "default") {
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"namespace", ns}}},
             {"data", {{"key", "value"}}}};
  if (!name.empty()) cm["metadata"]["name"] = name;
  return cm;
}

inline Json pod(const std::string& name, const std::string& ns = "default") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "nginx:1.27"}}})}}}};
}

// A Deployment of `replicas` pods labelled app=<name>.
inline Json deployment(const std::string& name, const std::string& ns = "default",
                       int replicas = 1) {
  Json labels = {{"app", name}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", labels}}},
            {"template",
             {{"metadata", {{"labels", labels}}},
              {"spec",
               {{"containers", Json::array({{{"name", "main"}, {"image", "nginx:1.27"}}})}}}}}}}};
}

}  // namespace fakekube::testing
