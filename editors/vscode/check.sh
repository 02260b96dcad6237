#!/bin/sh
# Tests the TextMate grammar with vscode-textmate and vscode-oniguruma
# (installed from the npm registry into node_modules here, ignored by git).
# Exit status 77: node or npm is not installed (the check is skipped).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "npm not installed: the TextMate grammar check needs node and npm (docs/editors.md)" >&2
  exit 77
fi
if [ ! -d node_modules/vscode-textmate ] || [ ! -d node_modules/vscode-oniguruma ]; then
  npm install --no-save --no-package-lock --no-audit --no-fund --ignore-scripts >/dev/null
fi
node test/highlight.test.js
