// Shared pieces of the benchmarks: the 1.5 KiB Pod document every store benchmark writes, and
// temporary directories for the file-backed (WAL) runs.
#pragma once

#include <string>

#include "fakekube/api/json.h"

namespace fakekube::bench {

// A realistic Pod of about 1.5 KiB when serialised (labels, annotations, two containers with env,
// resources and probes), without server-set fields.
Json samplePod(const std::string& name);

// A fresh directory under $TMPDIR (or /tmp), removed with its contents by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace fakekube::bench
