#!/usr/bin/python3
"""Writes fakekube/api/builtin_schema_table.cpp: the fields of the built-in kinds, for the
OpenAPI documents that `kubectl explain` reads and for the API server's pruning of unknown fields
(builtin_schema_table.h).

Source: the models of the JavaScript Kubernetes client, @kubernetes/client-node 1.1.2 (generated
by the Kubernetes project's tooling from the v1.32.0 OpenAPI document, the version fakekube
serves): for each type its fields (JSON name, type, whether required) and each field's
description. Install it with npm and run this by hand after changing the kind list below:

    npm install --prefix /tmp/k8s-models --ignore-scripts @kubernetes/client-node@1.1.2
    /usr/bin/python3 tools/gen/builtin_schemas.py \
        /tmp/k8s-models/node_modules/@kubernetes/client-node/dist/gen/models \
        > fakekube/api/builtin_schema_table.cpp

The table is line based (see builtin_schema_table.h for the format).
"""
import json
import os
import re
import sys

# (group, version, kind, model class): the kinds whose schemas are published.
KINDS = [
    ("", "v1", "Binding", "V1Binding"),
    ("", "v1", "ComponentStatus", "V1ComponentStatus"),
    ("", "v1", "ConfigMap", "V1ConfigMap"),
    ("", "v1", "Endpoints", "V1Endpoints"),
    ("", "v1", "Event", "CoreV1Event"),
    ("", "v1", "LimitRange", "V1LimitRange"),
    ("", "v1", "Namespace", "V1Namespace"),
    ("", "v1", "Node", "V1Node"),
    ("", "v1", "PersistentVolume", "V1PersistentVolume"),
    ("", "v1", "PersistentVolumeClaim", "V1PersistentVolumeClaim"),
    ("", "v1", "Pod", "V1Pod"),
    ("", "v1", "PodTemplate", "V1PodTemplate"),
    ("", "v1", "ReplicationController", "V1ReplicationController"),
    ("", "v1", "ResourceQuota", "V1ResourceQuota"),
    ("", "v1", "Secret", "V1Secret"),
    ("", "v1", "Service", "V1Service"),
    ("", "v1", "ServiceAccount", "V1ServiceAccount"),
    ("autoscaling", "v1", "Scale", "V1Scale"),
    ("authentication.k8s.io", "v1", "TokenRequest", "AuthenticationV1TokenRequest"),
    ("authentication.k8s.io", "v1", "TokenReview", "V1TokenReview"),
    ("authorization.k8s.io", "v1", "LocalSubjectAccessReview", "V1LocalSubjectAccessReview"),
    ("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "V1SelfSubjectAccessReview"),
    ("authorization.k8s.io", "v1", "SelfSubjectRulesReview", "V1SelfSubjectRulesReview"),
    ("authorization.k8s.io", "v1", "SubjectAccessReview", "V1SubjectAccessReview"),
    ("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration",
     "V1MutatingWebhookConfiguration"),
    ("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration",
     "V1ValidatingWebhookConfiguration"),
    ("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "V1CustomResourceDefinition"),
    ("apiregistration.k8s.io", "v1", "APIService", "V1APIService"),
    ("apps", "v1", "ControllerRevision", "V1ControllerRevision"),
    ("apps", "v1", "DaemonSet", "V1DaemonSet"),
    ("apps", "v1", "Deployment", "V1Deployment"),
    ("apps", "v1", "ReplicaSet", "V1ReplicaSet"),
    ("apps", "v1", "StatefulSet", "V1StatefulSet"),
    ("autoscaling", "v1", "HorizontalPodAutoscaler", "V1HorizontalPodAutoscaler"),
    ("autoscaling", "v2", "HorizontalPodAutoscaler", "V2HorizontalPodAutoscaler"),
    ("batch", "v1", "CronJob", "V1CronJob"),
    ("batch", "v1", "Job", "V1Job"),
    ("certificates.k8s.io", "v1", "CertificateSigningRequest", "V1CertificateSigningRequest"),
    ("coordination.k8s.io", "v1", "Lease", "V1Lease"),
    ("discovery.k8s.io", "v1", "EndpointSlice", "V1EndpointSlice"),
    ("events.k8s.io", "v1", "Event", "EventsV1Event"),
    ("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "V1FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration",
     "V1PriorityLevelConfiguration"),
    ("networking.k8s.io", "v1", "Ingress", "V1Ingress"),
    ("networking.k8s.io", "v1", "IngressClass", "V1IngressClass"),
    ("networking.k8s.io", "v1", "NetworkPolicy", "V1NetworkPolicy"),
    ("node.k8s.io", "v1", "RuntimeClass", "V1RuntimeClass"),
    ("policy", "v1", "Eviction", "V1Eviction"),
    ("policy", "v1", "PodDisruptionBudget", "V1PodDisruptionBudget"),
    ("rbac.authorization.k8s.io", "v1", "ClusterRole", "V1ClusterRole"),
    ("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "V1ClusterRoleBinding"),
    ("rbac.authorization.k8s.io", "v1", "Role", "V1Role"),
    ("rbac.authorization.k8s.io", "v1", "RoleBinding", "V1RoleBinding"),
    ("scheduling.k8s.io", "v1", "PriorityClass", "V1PriorityClass"),
    ("storage.k8s.io", "v1", "CSIDriver", "V1CSIDriver"),
    ("storage.k8s.io", "v1", "CSINode", "V1CSINode"),
    ("storage.k8s.io", "v1", "CSIStorageCapacity", "V1CSIStorageCapacity"),
    ("storage.k8s.io", "v1", "StorageClass", "V1StorageClass"),
    ("storage.k8s.io", "v1", "VolumeAttachment", "V1VolumeAttachment"),
]

# A model field's type and format -> the table's type.
SCALARS = {("string", ""): "string", ("string", "byte"): "string", ("boolean", ""): "boolean",
           ("number", "int32"): "integer", ("number", "int64"): "integer",
           ("number", "double"): "number", ("number", ""): "number",
           ("Date", "date-time"): "date-time", ("Date", "date"): "date", ("Date", ""): "date-time",
           ("string", "date"): "date", ("any", ""): "object", ("IntOrString", "int-or-string"): "object",
           ("IntOrString", ""): "object", ("object", ""): "object",
           ("V1MicroTime", "date-time-micro"): "date-time"}

VERSION_PREFIX = re.compile(r"^(Core|Events|Authentication|Storage|Discovery|Networking|"
                            r"Apiextensions|Apiregistration|Admissionregistration|Flowcontrol|"
                            r"Policy|Rbac|Resource|Certificates|Storagemigration)?"
                            r"(V\d+(?:alpha\d+|beta\d+)?)(.*)$")


def definition_name(model):
    """V1PodSpec -> io.k8s.v1.PodSpec; CoreV1Event -> io.k8s.core.v1.Event."""
    if model == "V1ObjectMeta":
        return "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    m = VERSION_PREFIX.match(model)
    if not m:
        return "io.k8s." + model
    group, version, name = m.groups()
    prefix = "io.k8s." + (group.lower() + "." if group else "")
    return prefix + version.lower() + "." + name


def field_type(t, fmt, pending):
    if (t, fmt) in SCALARS:
        return SCALARS[(t, fmt)]
    m = re.match(r"^Array<(.*)>$", t)
    if m:
        return "[]" + field_type(m.group(1), fmt, pending)
    m = re.match(r"^\{ \[key: string\]: (.*); \}$", t)
    if m:
        return "map[]" + field_type(m.group(1), fmt, pending)
    if not re.match(r"^[A-Z][A-Za-z0-9]*$", t) or t in ("Date", "IntOrString"):
        raise SystemExit("unknown type %r (format %r)" % (t, fmt))
    pending.append(t)
    return "#" + definition_name(t)


def clean(text):
    # The .d.ts comments keep the JavaScript string escapes of quotes.
    text = text.replace("\\\"", "\"").replace("\\'", "'")
    text = "\n".join(line.strip() for line in text.strip().splitlines())
    return text.replace("\\", "\\\\").replace("\t", " ").replace("\n", "\\n")


def attribute_types(models, model):
    """The attributeTypeMap of the model's .js file: [{name, baseName, type, format}]."""
    with open(os.path.join(models, model + ".js")) as f:
        text = f.read()
    start = text.index(model + ".attributeTypeMap = [") + len(model + ".attributeTypeMap = ")
    end = text.index("];", start) + 1
    return json.loads(text[start:end])


def declarations(models, model):
    """From the model's .d.ts: each property's (required, description)."""
    out = {}
    comment = None
    in_comment = False
    with open(os.path.join(models, model + ".d.ts")) as f:
        for line in f:
            stripped = line.strip()
            if stripped.startswith("/**"):
                in_comment = True
                comment = []
                continue
            if in_comment:
                if stripped.startswith("*/"):
                    in_comment = False
                else:
                    comment.append(re.sub(r"^\* ?", "", stripped))
                continue
            m = re.match(r"^'([^']+)'(\??):", stripped)
            if m:
                out[m.group(1)] = (m.group(2) != "?", "\n".join(comment or []))
                comment = None
            elif stripped and not stripped.startswith("static"):
                comment = None
    return out


CONVENTIONS = "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"

# What the Kubernetes API says of every kind's metadata, spec and status (the models leave the
# descriptions of fields that refer to another type out).
STANDARD = {
    "metadata": "Standard object's metadata. More info: " + CONVENTIONS + "#metadata",
    "spec": "Specification of the desired behavior of the {kind}. More info: " + CONVENTIONS +
            "#spec-and-status",
    "status": "Most recently observed status of the {kind}. This data may not be up to date. "
              "Populated by the system. Read-only. More info: " + CONVENTIONS + "#spec-and-status",
}


def main():
    models = sys.argv[1]
    out = []
    kind_of = {k[3]: k[2] for k in KINDS}
    pending = [k[3] for k in KINDS]
    seen = set()
    while pending:
        model = pending.pop(0)
        if model in seen:
            continue
        seen.add(model)
        declared = declarations(models, model)
        out.append("D " + definition_name(model))
        for attribute in sorted(attribute_types(models, model), key=lambda a: a["baseName"]):
            name = attribute["baseName"]
            is_required, text = declared.get(attribute["name"], (False, ""))
            text = clean(text)
            if not text and model in kind_of and name in STANDARD:
                text = STANDARD[name].format(kind=kind_of[model])
            kind = field_type(attribute["type"], attribute["format"], pending)
            out.append("\t".join([name, kind, "r" if is_required else "", text]))
    for group, version, kind, model in KINDS:
        out.append("K " + "\t".join([group, version, kind, definition_name(model)]))
    text = "\n".join(out) + "\n"

    w = sys.stdout.write
    w("// Generated by tools/gen/builtin_schemas.py; do not edit. The fields and descriptions of\n")
    w("// the built-in kinds, from the Kubernetes project's published API schema (v1.32).\n")
    w('#include "fakekube/api/internal/builtin_schema_table.h"\n\nnamespace fakekube {\n\n')
    w("std::string_view builtinSchemaTable() {\n  static constexpr char kTable[] =\n")
    chunk = 60000
    for i in range(0, len(text), chunk):
        w('      R"schema(' + text[i:i + chunk] + ')schema"\n')
    w("      ;\n  return {kTable, sizeof(kTable) - 1};\n}\n\n}  // namespace fakekube\n")


if __name__ == "__main__":
    main()
