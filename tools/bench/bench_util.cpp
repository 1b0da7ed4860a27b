#include "tools/bench/bench_util.h"

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fakekube::bench {

Json samplePod(const std::string& name) {
  Json container = {{"name", "main"},
                    {"image", "registry.example.com/team/service:1.27.3"},
                    {"command", {"/bin/service", "--config=/etc/service/config.yaml", "--verbose"}},
                    {"ports", {{{"name", "http"}, {"containerPort", 8080}, {"protocol", "TCP"}}}},
                    {"env",
                     {{{"name", "SERVICE_MODE"}, {"value", "production"}},
                      {{"name", "SERVICE_REGION"}, {"value", "eu-west-1"}},
                      {{"name", "LOG_LEVEL"}, {"value", "info"}}}},
                    {"resources",
                     {{"requests", {{"cpu", "500m"}, {"memory", "512Mi"}}},
                      {"limits", {{"cpu", "1"}, {"memory", "1Gi"}}}}},
                    {"readinessProbe",
                     {{"httpGet", {{"path", "/healthz"}, {"port", 8080}}},
                      {"initialDelaySeconds", 5},
                      {"periodSeconds", 10}}},
                    {"volumeMounts", {{{"name", "config"}, {"mountPath", "/etc/service"}}}}};
  Json sidecar = {{"name", "sidecar"},
                  {"image", "registry.example.com/team/proxy:2.4.1"},
                  {"args", {"--upstream=127.0.0.1:8080", "--listen=:9090"}},
                  {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}}}};
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"labels",
             {{"app", "service"},
              {"tier", "backend"},
              {"release", "stable"},
              {"pod-template-hash", "7d9f8c6b5"}}},
            {"annotations",
             {{"example.com/owner", "team-platform"},
              {"example.com/revision", "42"},
              {"prometheus.io/scrape", "true"}}}}},
          {"spec",
           {{"containers", {container, sidecar}},
            {"volumes", {{{"name", "config"}, {"configMap", {{"name", "service-config"}}}}}},
            {"restartPolicy", "Always"},
            {"serviceAccountName", "service"},
            {"nodeSelector", {{"kubernetes.io/os", "linux"}}}}}};
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/fakekube-bench-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace fakekube::bench
