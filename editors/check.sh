#!/bin/sh
# Runs the editor-support checks, the tree-sitter grammar
# (tree-sitter-llmsys/check.sh) and the VS Code TextMate grammar
# (vscode/check.sh), and prints a summary. Exit status: 0 when every check
# that could run passed, 1 on any failure, 77 when none could run (tools
# missing). CI does not run it: both checks need tools from the npm registry.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
ran=0
for check in tree-sitter-llmsys vscode; do
  echo "==== $check"
  { sh "$here/$check/check.sh" 2>&1; echo $? > "$work/$check.rc"; } | tee "$work/$check.log"
  rc=$(cat "$work/$check.rc")
  case $rc in
    0) ran=$((ran + 1)); result="passed: $(grep -E '^(tree-sitter|textmate): ' "$work/$check.log" | tail -1)" ;;
    77) result="skipped: $(tail -1 "$work/$check.log")" ;;
    *) ran=$((ran + 1)); failed=$((failed + 1)); result="FAILED (exit $rc)" ;;
  esac
  echo "$check: $result" >> "$work/summary"
done
echo "==== summary"
cat "$work/summary"
if [ "$failed" -ne 0 ]; then exit 1; fi
if [ "$ran" -eq 0 ]; then exit 77; fi
exit 0
