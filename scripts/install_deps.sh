#!/usr/bin/env bash
# Installs the Debian packages Vireo builds and tests with; skips what is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libtinyxml2-dev libgflags-dev libgoogle-glog-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libonnx-dev libprotobuf-dev libonnx-testdata
  libdnnl-dev
  ocl-icd-opencl-dev  # oneDNN's CMake config needs OpenCL; libdnnl-dev only recommends it
  pybind11-dev python3-dev python3-numpy python3-pytest
  file dpkg-dev  # CPack's DEB generator (file) and dpkg-shlibdeps (out_of_tree_check.sh)
  clang-format  # Debian 12's is version 14: scripts/check_tree.sh checks the formatting with it
  ccache  # compiler cache: the build trees (Release, sanitizers, fuzz) and fresh clones share objects
  rapidjson-dev  # the one JSON reader: server configs and REST bodies, tokenizer files, samples
  # vireo_server (VIREO_BUILD_SERVER): gRPC C++ and protoc's gRPC plugins, cpp-httplib;
  # its integration tests use grpcio with stubs generated at build time, and curl
  libgrpc++-dev protobuf-compiler-grpc protobuf-compiler libcpp-httplib-dev
  python3-grpcio python3-grpc-tools python3-protobuf curl openssl
)
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang libclang-rt-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "Installing: ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
