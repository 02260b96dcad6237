#!/usr/bin/env bash
# The README's quick start. On a fresh machine this installs the Debian
# packages, configures and builds, then:
#   tools/quickstart.sh run   runs study 1 (GPT-3 175B on A100, H100, B200)
#   tools/quickstart.sh test  runs the whole lit suite and prints
#                             "N passed, N failed" as its last line
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LLMSYS_BUILD_DIR:-$root/build}
action=${1:-run}

"$root/tools/install-deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -- -j"$(nproc)" >&2

case "$action" in
  run)
    shift || true
    # The main job: study 1 (docs/studies/gpu-generations.md), GPT-3 175B
    # on A100, H100 and B200: each generation's best mapping, then the
    # scenarios' reports.
    study="$root/stdlib/studies/gpu_generations/gpt3_175b.llmsys"
    "$build/bin/llmsys" sweep "$study"
    echo
    exec "$build/bin/llmsys" eval --ops 5 "$study" "$@"
    ;;
  test)
    exec python3 "$root/tools/run-lit.py" "$build"
    ;;
  *)
    echo "usage: tools/quickstart.sh run|test" >&2
    exit 2
    ;;
esac
