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

"$root/tools/sanitized-build.sh" "$build"
exec python3 "$root/tools/run-lit.py" "$build"
