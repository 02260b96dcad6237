#!/usr/bin/env bash
# Installs the Debian packages llmsys builds and tests with (see docs/building.md).
# Does nothing when they are all present, so the quick-start commands can call
# it every time.
set -euo pipefail

packages=(
  cmake ninja-build g++ python3
  antlr4 libantlr4-runtime-dev default-jre-headless  # grammar tool 4.7.2 + C++ runtime 4.9
  llvm-16-dev llvm-16-tools                          # ADT/Support, lit, FileCheck
  libfmt-dev libbenchmark-dev libgtest-dev
  pybind11-dev python3-dev python3-pandas            # the Python module and its tests (docs/python.md)
  libopenmpi-dev openmpi-bin                         # sweeps over MPI ranks (docs/cli.md)
)

# --optional: also what some tests and scripts use when present: headless
# Chromium renders figures and HTML reports (test/Driver/browser.test);
# valgrind counts instructions for tools/bench-instructions.py.
# --fuzz: clang and its sanitizer and libFuzzer runtimes, for
# tools/sanitize.sh and tools/fuzz.sh (docs/building.md).
for arg in "$@"; do
  case "$arg" in
    --optional) packages+=(chromium valgrind) ;;
    --fuzz) packages+=(clang-16 libclang-rt-16-dev) ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
