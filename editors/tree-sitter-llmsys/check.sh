#!/bin/sh
# Generates the parser, runs the corpus and highlighting tests, and parses
# every .llmsys file of stdlib/, test/validation/ and examples/, failing on
# any ERROR or MISSING node. (Inputs under test/ that hold syntax errors on
# purpose, such as test/Parse and test/Diagnostics, are left out.)
#
# The tree-sitter CLI comes from $TREE_SITTER, else PATH. Exit status 77:
# it is not installed (the check is skipped).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

ts=${TREE_SITTER:-}
if [ -z "$ts" ]; then
  ts=$(command -v tree-sitter 2>/dev/null || true)
fi
if [ -z "$ts" ] || ! "$ts" --version >/dev/null 2>&1; then
  echo "tree-sitter-cli not installed: set TREE_SITTER or put tree-sitter on PATH (docs/editors.md)" >&2
  exit 77
fi

# Keep the CLI's configuration and compiled parsers out of the user's home.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TREE_SITTER_DIR="$work/config" TREE_SITTER_LIBDIR="$work/lib"
mkdir -p "$TREE_SITTER_DIR" "$TREE_SITTER_LIBDIR"
echo '{"parser-directories": []}' > "$TREE_SITTER_DIR/config.json"

cd "$here"
echo "== $("$ts" --version)"
echo "== tree-sitter generate"
"$ts" generate

echo "== tree-sitter test (corpus and highlighting)"
"$ts" test > "$work/test.log" 2>&1 || { cat "$work/test.log"; echo "tree-sitter test failed" >&2; exit 1; }
cat "$work/test.log"
# The CLI's exit status does not always reflect a failure: read the log too.
if grep -q '✗' "$work/test.log"; then
  echo "tree-sitter test failed" >&2
  exit 1
fi
corpus=$(grep -c '✓' "$work/test.log" || true)
assertions=$(sed -n 's/.*(\([0-9][0-9]*\) assertions).*/\1/p' "$work/test.log" | awk '{s += $1} END {print s + 0}')
highlight_files=$(grep -c 'assertions)' "$work/test.log" || true)

echo "== tree-sitter parse (stdlib, test/validation, examples)"
find "$root/stdlib" "$root/test/validation" "$root/examples" -name '*.llmsys' 2>/dev/null \
  | sort > "$work/files"
count=$(wc -l < "$work/files" | tr -d ' ')
failed=0
# In batches: one CLI run per file would cost a compile check each time.
if ! xargs "$ts" parse --quiet < "$work/files" > "$work/parse.log" 2>&1; then
  failed=1
fi
# Lines naming a file with an ERROR or MISSING node.
bad=$(grep -c 'ERROR\|MISSING' "$work/parse.log" || true)
if [ "$failed" -ne 0 ] || [ "$bad" -ne 0 ]; then
  grep 'ERROR\|MISSING' "$work/parse.log" | sed "s|$root/||" >&2 || cat "$work/parse.log" >&2
  echo "tree-sitter: $bad of $count files do not parse cleanly" >&2
  exit 1
fi
echo "tree-sitter: $((corpus - highlight_files)) corpus tests, $highlight_files highlight files ($assertions assertions), $count files parsed, 0 failed"
