#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer, and runs each for SECONDS (default 60), side
# by side. docs/building.md, "Fuzzing".
#
#   tools/fuzz.sh [SECONDS] [FrontEndFuzzer|PipelineFuzzer ...]
#
# Seeds: every .llmsys of stdlib/ and test/, and the `//--- NAME.llmsys`
# parts of the lit tests. The dictionary: the grammar's keywords and
# punctuation, and every entity kind, field and figure name of
# `llmsys schema`. The corpus grows in $build/fuzz/corpus/TARGET; a crash,
# leak or timeout is written to $build/fuzz/findings/TARGET/ and the
# script exits 1 (turn each into a lit test: docs/building.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${LLMSYS_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(FrontEndFuzzer PipelineFuzzer)

"$root/tools/sanitized-build.sh" "$build" -DLLMSYS_FUZZ=ON -- llmsys \
  $(printf 'llmsys-fuzz-%s ' "${targets[@]}")

work=$build/fuzz
mkdir -p "$work/seeds"
python3 - "$root" "$work/seeds" <<'PY'
import os, re, sys, hashlib
root, out = sys.argv[1], sys.argv[2]
def save(text):
    data = text.encode()
    if 0 < len(data) <= 8192:
        name = hashlib.sha1(data).hexdigest()
        open(os.path.join(out, name), "wb").write(data)
for top in ("stdlib", "test", "examples"):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            p = os.path.join(d, f)
            text = open(p, encoding="utf-8", errors="replace").read()
            if f.endswith(".llmsys"):
                save(text)
            elif f.endswith(".test"):
                for part in re.split(r"^//--- ", text, flags=re.M)[1:]:
                    name, _, body = part.partition("\n")
                    if name.strip().endswith(".llmsys"):
                        save(body)
PY
{
  # Keywords and punctuation of grammar/LLMSys.g4.
  grep -oE "^[A-Z_]+ *: *'[^']+'" "$root/grammar/LLMSys.g4" |
    sed -E "s/^[A-Z_]+ *: *'([^']+)'/\1/"
  # Entity kinds, fields and figures.
  "$build/bin/llmsys" schema | grep -oE '^(### |\| )`[a-z_0-9]+`' |
    grep -oE '[a-z_0-9]+'
  # Units.
  printf '%s\n' GB/s TB/s Gb/s GiB GB TB MB us ms s W kW J TFLOP/s PFLOP/s \
    tokens requests/s mm^2 nm GHz USD
} | sort -u | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&"/' > "$work/llmsys.dict"

status=0
pids=()
for t in "${targets[@]}"; do
  mkdir -p "$work/corpus/$t" "$work/findings/$t"
  (
    cd "$work/findings/$t"
    "$build/bin/llmsys-fuzz-$t" "$work/corpus/$t" "$work/seeds" \
      -dict="$work/llmsys.dict" -max_total_time="$seconds" -max_len=8192 \
      -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
      >"$work/$t.log" 2>&1
  ) &
  pids+=($!)
done
for i in "${!pids[@]}"; do
  t=${targets[$i]}
  if wait "${pids[$i]}"; then
    echo "$t: no finding in ${seconds} s ($(grep -m1 -oE 'stat::number_of_executed_units: *[0-9]+' "$work/$t.log" | grep -oE '[0-9]+$') runs)"
  else
    echo "$t: FINDING, see $work/$t.log and $work/findings/$t/"
    status=1
  fi
done
exit $status
