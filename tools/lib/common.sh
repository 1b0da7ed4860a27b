# Shared by tools/test, tools/demo and tools/bench-run: install what the build needs (Debian
# packages, only those missing), then configure and build with CMake + Ninja.

FAKEKUBE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

FAKEKUBE_PACKAGES=(
  cmake ninja-build g++ lld pkg-config
  libsqlite3-dev nlohmann-json3-dev libfmt-dev libexpected-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcpp-httplib-dev libyaml-cpp-dev libssl-dev
  libgoogle-perftools-dev
)

# install_packages PKG...: apt-get installs the packages that are not installed yet.
install_packages() {
  local missing=()
  local pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "fakekube: installing ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# configure_and_build BUILD_DIR [CMAKE_ARGS...] -- [TARGETS...]
configure_and_build() {
  local dir="$1"
  shift
  local cmake_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    cmake_args+=("$1")
    shift
  done
  [ "${1:-}" = "--" ] && shift
  cmake -S "$FAKEKUBE_ROOT" -B "$dir" -G Ninja "${cmake_args[@]}" >/dev/null
  if [ $# -gt 0 ]; then
    cmake --build "$dir" -j "$(nproc)" --target "$@"
  else
    cmake --build "$dir" -j "$(nproc)"
  fi
}
