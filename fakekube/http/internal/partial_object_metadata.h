// PartialObjectMetadata: an object reduced to its metadata, the form metadata-only clients (the
// garbage collector and namespace controller of a real control plane, metadata informers) ask
// for with Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1.
#pragma once

#include <string>

#include "fakekube/api/json.h"
#include "fakekube/apiserver/api_server.h"

namespace fakekube {

// {"kind":"PartialObjectMetadata","apiVersion":<apiVersion>,"metadata":{...}}.
Json partialObjectMetadata(const Json& object, const std::string& apiVersion);

// {"kind":"PartialObjectMetadataList","apiVersion":..,"metadata":{rv, continue},"items":[...]}.
Json partialObjectMetadataList(const ObjectList& list, const std::string& apiVersion);

}  // namespace fakekube
