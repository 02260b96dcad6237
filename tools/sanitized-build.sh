#!/usr/bin/env bash
# Configures (once) and builds a clang build with AddressSanitizer and
# UndefinedBehaviorSanitizer: tools/sanitize.sh and tools/fuzz.sh use it.
#
#   tools/sanitized-build.sh BUILD-DIR [CMAKE-ARG...] [-- TARGET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$1
shift
cmake_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
if ! command -v clang++-16 >/dev/null; then
  echo "$(basename "$0"): needs clang++-16 and libclang-rt-16-dev (tools/install-deps.sh --fuzz)" >&2
  exit 2
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 \
    -DLLMSYS_SANITIZE=address,undefined "${cmake_args[@]}" >/dev/null
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build" "${targets[@]}" -- -j"$(nproc)" >&2
