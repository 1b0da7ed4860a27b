// Objects as fakekube hands them out: shared, immutable JSON documents, and the answer to a LIST.
//
// The API server keeps every live object parsed, and a read, a watch event or an informer's cache
// entry shares that very document instead of copying it: an ObjectPtr is a pointer to a document
// nobody changes any more. Copy one (`Json copy = *object;`) to change it. These are value types
// of the API, not of the storage: a Client over HTTP hands out the same ObjectPtr and ObjectList
// as the in-process server, so this header depends on nothing but the document type.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fakekube/api/json.h"

namespace fakekube {

using ObjectPtr = std::shared_ptr<const Json>;

// The answer to a LIST: the items and the list metadata.
struct ObjectList {
  std::string apiVersion;
  std::string kind;  // "<Kind>List"
  std::string resourceVersion;
  std::string continueToken;
  std::vector<ObjectPtr> items;

  // The wire form: {"apiVersion","kind","metadata":{"resourceVersion","continue"},"items":[...]}.
  Json toJson() const;
};

}  // namespace fakekube
