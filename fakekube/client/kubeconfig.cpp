#include "fakekube/client/kubeconfig.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "fakekube/api/internal/base64.h"

namespace fakekube {
namespace {

Status bad(std::string_view what) {
  return Status::badRequest(fmt::format("kubeconfig: {}", what));
}

// The entry named `name` of a kubeconfig list ("clusters", "users", "contexts"), whose item is
// under `field` ("cluster", "user", "context").
YAML::Node findNamed(const YAML::Node& root, const char* list, const char* field,
                     const std::string& name) {
  const YAML::Node items = root[list];
  if (!items || !items.IsSequence()) return YAML::Node(YAML::NodeType::Undefined);
  for (const auto& item : items) {
    if (item["name"] && item["name"].as<std::string>() == name && item[field]) return item[field];
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string scalar(const YAML::Node& node, const char* key) {
  const YAML::Node value = node[key];
  if (!value || !value.IsScalar()) return "";
  return value.as<std::string>();
}

Result<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return tl::unexpected(bad(fmt::format("cannot read {}", path)));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string resolve(const std::string& baseDir, const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  return baseDir + "/" + path;
}

// PEM text from `<key>-data` (base64) or the file `<key>` names.
Result<std::string> pem(const YAML::Node& node, const std::string& key,
                        const std::string& baseDir) {
  if (std::string data = scalar(node, (key + "-data").c_str()); !data.empty()) {
    auto decoded = base64Decode(data);
    if (!decoded) return tl::unexpected(bad(fmt::format("{}-data is not valid base64", key)));
    return *decoded;
  }
  if (std::string file = scalar(node, key.c_str()); !file.empty()) {
    return readFile(resolve(baseDir, file));
  }
  return std::string();
}

}  // namespace

Result<Kubeconfig> parseKubeconfig(std::string_view yaml, std::string_view context,
                                   const std::string& baseDir) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return tl::unexpected(bad(fmt::format("not valid YAML: {}", e.what())));
  }
  if (!root.IsMap()) return tl::unexpected(bad("not a kubeconfig (expected a mapping)"));
  try {
    std::string contextName(context);
    if (contextName.empty()) contextName = scalar(root, "current-context");
    if (contextName.empty()) return tl::unexpected(bad("no context given and no current-context"));
    const YAML::Node ctx = findNamed(root, "contexts", "context", contextName);
    if (!ctx) return tl::unexpected(bad(fmt::format("context \"{}\" not found", contextName)));

    Kubeconfig config;
    if (std::string ns = scalar(ctx, "namespace"); !ns.empty()) config.namespace_ = ns;

    const std::string clusterName = scalar(ctx, "cluster");
    const YAML::Node cluster = findNamed(root, "clusters", "cluster", clusterName);
    if (!cluster) return tl::unexpected(bad(fmt::format("cluster \"{}\" not found", clusterName)));
    config.server = scalar(cluster, "server");
    if (config.server.empty()) {
      return tl::unexpected(bad(fmt::format("cluster \"{}\" has no server", clusterName)));
    }
    while (!config.server.empty() && config.server.back() == '/') config.server.pop_back();
    config.insecureSkipTlsVerify = scalar(cluster, "insecure-skip-tls-verify") == "true";
    config.tlsServerName = scalar(cluster, "tls-server-name");
    auto ca = pem(cluster, "certificate-authority", baseDir);
    if (!ca) return tl::unexpected(ca.error());
    config.certificateAuthority = std::move(*ca);

    if (const std::string userName = scalar(ctx, "user"); !userName.empty()) {
      const YAML::Node user = findNamed(root, "users", "user", userName);
      if (!user) return tl::unexpected(bad(fmt::format("user \"{}\" not found", userName)));
      if (user["exec"] || user["auth-provider"]) {
        return tl::unexpected(bad(fmt::format(
            "user \"{}\" needs an exec or auth-provider plugin, which fakekube does not run",
            userName)));
      }
      config.token = scalar(user, "token");
      if (std::string file = scalar(user, "tokenFile"); config.token.empty() && !file.empty()) {
        auto text = readFile(resolve(baseDir, file));
        if (!text) return tl::unexpected(text.error());
        config.token = *text;
        while (!config.token.empty() &&
               std::isspace(static_cast<unsigned char>(config.token.back()))) {
          config.token.pop_back();
        }
      }
      config.username = scalar(user, "username");
      config.password = scalar(user, "password");
      auto cert = pem(user, "client-certificate", baseDir);
      if (!cert) return tl::unexpected(cert.error());
      config.clientCertificate = std::move(*cert);
      auto key = pem(user, "client-key", baseDir);
      if (!key) return tl::unexpected(key.error());
      config.clientKey = std::move(*key);
    }
    return config;
  } catch (const YAML::Exception& e) {
    return tl::unexpected(bad(fmt::format("unexpected shape: {}", e.what())));
  }
}

Result<Kubeconfig> loadKubeconfig(const std::string& path, std::string_view context) {
  auto text = readFile(path);
  if (!text) return tl::unexpected(text.error());
  const auto slash = path.rfind('/');
  const std::string baseDir = slash == std::string::npos ? "." : path.substr(0, slash);
  auto config = parseKubeconfig(*text, context, baseDir.empty() ? "/" : baseDir);
  if (!config) {
    Status error = config.error();
    error.message = fmt::format("{}: {}", path, error.message);
    return tl::unexpected(error);
  }
  return config;
}

std::string renderKubeconfig(std::string_view server, std::string_view token,
                             std::string_view certificateAuthority, std::string_view name) {
  std::string out = fmt::format(
      "apiVersion: v1\n"
      "kind: Config\n"
      "clusters:\n"
      "- name: {0}\n"
      "  cluster:\n"
      "    server: {1}\n",
      name, server);
  if (!certificateAuthority.empty()) {
    out += fmt::format("    certificate-authority-data: {}\n", base64Encode(certificateAuthority));
  }
  out += fmt::format(
      "users:\n"
      "- name: {0}\n"
      "  user:\n",
      name);
  if (!token.empty()) {
    out += fmt::format("    token: {}\n", token);
  } else {
    out += "    {}\n";
  }
  out += fmt::format(
      "contexts:\n"
      "- name: {0}\n"
      "  context:\n"
      "    cluster: {0}\n"
      "    user: {0}\n"
      "    namespace: default\n"
      "current-context: {0}\n",
      name);
  return out;
}

}  // namespace fakekube
