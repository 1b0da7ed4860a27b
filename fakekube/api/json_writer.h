// A fast compact JSON serialiser for Json documents.
//
// Serialising is the largest cost of a write (a 1.5 KiB Pod takes longer to dump() than SQLite
// takes to store it), so the hot path uses this writer instead of json::dump(): it appends to a
// caller-owned buffer that is reused across writes, copies runs of plain characters at once, and
// never throws — invalid UTF-8 is replaced by U+FFFD, as Go's encoding/json does, where dump()
// would throw. The output parses back to an equal document (a double that holds an integral value
// keeps its ".0", NaN and infinities become null as with dump()).
//
// A binary value holds JSON text that is already compact and valid, and is written as it is: a
// stored object keeps each managedFields entry's fieldsV1 so (managed_fields.h), as Go's
// metav1.FieldsV1 keeps its Raw bytes. Nothing else in a document is binary (no parser makes it).
#pragma once

#include <string>

#include "fakekube/api/json.h"

namespace fakekube {

void appendJson(std::string& out, const Json& value);
std::string toJsonText(const Json& value);

// An upper bound on the length of what appendJson writes for `value`, found without writing it:
// a walk of the document that counts every byte of a string as six (its longest escape) and every
// number at its widest. A store checks its size limit with it, and writes the text only where the
// bound is not enough.
std::size_t jsonTextSizeBound(const Json& value);

}  // namespace fakekube
