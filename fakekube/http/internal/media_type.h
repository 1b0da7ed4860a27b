// Media types of the Kubernetes API: content negotiation for responses (plain objects, meta.k8s.io
// Tables, PartialObjectMetadata) and the PATCH content types.
//
// Kubernetes clients name the shape they want in the Accept header's parameters, most preferred
// first: kubectl get asks for
//   application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,
//   application/json
// and metadata-only informers for as=PartialObjectMetadata(List). The first entry the server can
// produce wins; anything this server does not produce here (protobuf) is skipped,
// and a request with no acceptable entry is answered in plain JSON, which every client reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fakekube/apiserver/options.h"

namespace fakekube {

enum class ResponseForm {
  Object,                 // the object or list itself
  Table,                  // meta.k8s.io Table
  PartialObjectMetadata,  // meta.k8s.io PartialObjectMetadata / PartialObjectMetadataList
};

struct NegotiatedForm {
  ResponseForm form = ResponseForm::Object;
  std::string apiVersion;  // "meta.k8s.io/v1" or "meta.k8s.io/v1beta1" for Table / metadata
};

// The response shape an Accept header asks for.
NegotiatedForm negotiateForm(std::string_view accept);

// Whether an Accept header admits JSON (no header does).
bool acceptsJson(std::string_view accept);

// The apidiscovery.k8s.io version ("v2" or "v2beta1") of the aggregated discovery document an
// Accept header asks for before any plain JSON, as client-go does for /api and /apis; nullopt
// when it asks for the unaggregated documents.
std::optional<std::string> negotiateAggregatedDiscovery(std::string_view accept);

// "application/json" from "Application/JSON; charset=utf-8": the media type without parameters,
// lower-cased.
std::string baseMediaType(std::string_view contentType);

// The PATCH type a Content-Type names; nullopt when it names none.
std::optional<PatchType> patchTypeFor(std::string_view contentType);

}  // namespace fakekube
