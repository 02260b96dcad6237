#!/usr/bin/env bash
# Builds llmsys with clang, AddressSanitizer and UndefinedBehaviorSanitizer
# (any finding stops the program) and runs the whole lit suite on that
# build, with the sanitizers' default options. docs/building.md, "Sanitizers".
#
#   tools/sanitize.sh            # build in build-asan/, then lit
#
# Ends with lit's "N passed, N failed" line; exits non-zero on a failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LLMSYS_SANITIZE_BUILD_DIR:-$root/build-asan}

if ! command -v clang++-16 >/dev/null; then
  echo "sanitize.sh: needs clang++-16 and libclang-rt-16-dev (tools/install-deps.sh --fuzz)" >&2
  exit 2
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 \
    -DLLMSYS_SANITIZE=address,undefined >/dev/null
fi
cmake --build "$build" -- -j"$(nproc)" >&2
exec python3 "$root/tools/run-lit.py" "$build"
