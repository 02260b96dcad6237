#!/bin/sh
# Packages the extension as llmsys-VERSION.vsix with vsce from the npm
# registry (run by hand; CI does not run it). Install the result with
#   code --install-extension llmsys-0.1.0.vsix
set -eu
cd "$(dirname "$0")"
npx --yes @vscode/vsce package --allow-missing-repository --skip-license "$@"
