#!/usr/bin/env python3
"""Regenerates the tool outputs embedded in Markdown pages (the studies).

A page marks each output with the llmsys command that produces it:

    <!-- llmsys: sweep stdlib/studies/x.llmsys --sweep best -->
    ...replaced by the command's stdout...
    <!-- end -->

Text output is put in a ```text fence unless the command asks for
`--format=md`. Figures are written by

    <!-- llmsys-plot docs/studies/figures/x: eval stdlib/studies/x.llmsys -->

which runs the command with `--plot DIR` (stdout discarded). A number in
prose is generated in place, between

    <!--= eval stdlib/studies/x.llmsys | a.cost_per_token_usd * 1e6 | .3g -->23.1<!--=-->

: the JSON of `llmsys ARGS --format=json`, an expression over terms
with + - * / and numbers, and a Python format spec (`.3g`, `,.0f`,
`.1%`). A term is a path into that JSON: `.KEY` steps into an object,
`[N]` picks a list's element N (from 0), `[K=V]` the one element whose K
is V (`[K=V&K2=V2]` for several keys), and `[+K=V]` all elements that
match, summing what the rest of the path gives on each. For `eval` the
path starts at a scenario's name and a figure the scenario lacks is
looked up in its `inputs` (a.tpot_s, a.tp,
a.breakdown.compute_bound_s, a.operators[name=mlp.up&phase=decode].time_s);
for other commands it starts at the document (`results[0].tpot_s` of a
sweep, `requirements[scenario=x].resources[resource=compute].ratio` of a
require). Commands run from the repository root with the source tree's
stdlib. A `require` may exit 1, a finding (SLOs no single resource
meets): its report is what the page shows; any other non-zero status
fails.

    python3 tools/gen-doc-outputs.py [--llmsys BIN] [--check] PAGE...

--check rewrites nothing and exits 1 if a block or a figure is stale (lit:
test/stdlib/studies/*.test).
"""
import argparse
import filecmp
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"(<!-- llmsys: (.*?) -->\n)(.*?)(<!-- end -->)", re.S)
PLOT = re.compile(r"<!-- llmsys-plot (\S+): (.*?) -->")
VALUE = re.compile(r"(<!--= (.*?) \| (.*?) \| (\S+) -->)(.*?)(<!--=-->)", re.S)
TERM = re.compile(r"\b([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*|\[[^\]]*\])*)")
STEP = re.compile(r"\.([A-Za-z_]\w*)|\[([^\]]*)\]")


def run(llmsys, args, extra=()):
    env = dict(os.environ, LLMSYS_STDLIB=os.path.join(ROOT, "stdlib"))
    out = subprocess.run([llmsys] + shlex.split(args) + list(extra), cwd=ROOT,
                         env=env, capture_output=True, text=True)
    finding = (out.returncode == 1 and out.stdout
               and shlex.split(args)[:1] == ["require"])
    if out.returncode != 0 and not finding:
        sys.exit(f"gen-doc-outputs: 'llmsys {args}' failed:\n{out.stderr}")
    return out.stdout


def walk(v, steps, where):
    """The number at STEPS (parsed .KEY / [SELECTOR]) below V."""
    for i, (key, sel) in enumerate(steps):
        if key:
            v = v.get(key) if isinstance(v, dict) else None
        elif re.fullmatch(r"\d+", sel):
            n = int(sel)
            v = v[n] if isinstance(v, list) and n < len(v) else None
        else:
            every = sel.startswith("+")
            want = [c.split("=", 1) for c in sel.lstrip("+").split("&")]
            if not isinstance(v, list) or any(len(c) != 2 for c in want):
                sys.exit(f"gen-doc-outputs: '[{sel}]' selects nothing in {where}")
            hits = [e for e in v if isinstance(e, dict) and all(
                str(e.get(k)) == x for k, x in want)]
            if every:
                if not hits:
                    sys.exit(f"gen-doc-outputs: '[{sel}]' matches nothing in {where}")
                return sum(walk(e, steps[i + 1:], where) for e in hits)
            if len(hits) != 1:
                sys.exit(f"gen-doc-outputs: '[{sel}]' matches {len(hits)} "
                         f"elements in {where}; one is needed ([+...] sums)")
            v = hits[0]
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        sys.exit(f"gen-doc-outputs: a term is not a number in {where}")
    return float(v)


def value(llmsys, cache, args, expr, spec):
    """One generated number: EXPR over terms into the JSON of
    `llmsys ARGS --format=json`, formatted by SPEC."""
    if args not in cache:
        cache[args] = json.loads(run(llmsys, args, ["--format=json"]))
    doc = cache[args]
    where = f"'llmsys {args}'"
    is_eval = shlex.split(args)[0] == "eval"

    def term(m):
        name = m.group(1)
        steps = STEP.findall(m.group(2))
        if not is_eval:
            root = doc.get(name) if isinstance(doc, dict) else None
            if root is None:
                sys.exit(f"gen-doc-outputs: no '{name}' in {where}")
            return repr(walk(root, steps, where))
        scenarios = {s["name"]: s for s in doc["scenarios"]}
        if name not in scenarios:
            sys.exit(f"gen-doc-outputs: no scenario '{name}' in {where}")
        v = scenarios[name]
        # A figure, an input, or a key of one of the report's blocks
        # (breakdown.compute_bound_s).
        if len(steps) == 1 and steps[0][0] and steps[0][0] not in v:
            v = v.get("inputs", {})
        return repr(walk(v, steps, f"{where}, at '{m.group(0)}'"))

    code = TERM.sub(term, expr)
    if not re.fullmatch(r"[0-9eE.+\-*/() ]+", code):
        sys.exit(f"gen-doc-outputs: '{expr}' is not an expression of figures")
    x = eval(code, {"__builtins__": {}})
    # An integer spec (d, ,d) takes the nearest integer.
    return format(round(x) if spec.endswith("d") else x, spec)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llmsys", default=os.path.join(ROOT, "build/bin/llmsys"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("pages", nargs="+")
    a = ap.parse_args()
    stale = []
    for page in a.pages:
        text = open(page, encoding="utf-8").read()

        def fill(m):
            out = run(a.llmsys, m.group(2))
            if "--format=md" not in m.group(2):
                out = "```text\n" + out + "```\n"
            return m.group(1) + out + m.group(4)

        new = BLOCK.sub(fill, text)
        cache = {}
        new = VALUE.sub(lambda m: m.group(1) + value(a.llmsys, cache, m.group(2),
                                                     m.group(3), m.group(4))
                        + m.group(6), new)
        if new != text:
            stale.append(page)
            if not a.check:
                open(page, "w", encoding="utf-8").write(new)
        for m in PLOT.finditer(text):
            target = os.path.join(ROOT, m.group(1))
            with tempfile.TemporaryDirectory() as tmp:
                run(a.llmsys, m.group(2), ["--plot", tmp])
                names = sorted(os.listdir(tmp))
                have = sorted(os.listdir(target)) if os.path.isdir(target) else []
                same = names == have and all(
                    filecmp.cmp(os.path.join(tmp, n), os.path.join(target, n),
                                shallow=False) for n in names)
                if not same:
                    stale.append(target)
                    if not a.check:
                        os.makedirs(target, exist_ok=True)
                        for n in have:
                            os.remove(os.path.join(target, n))
                        for n in names:
                            with open(os.path.join(tmp, n), "rb") as f:
                                open(os.path.join(target, n), "wb").write(f.read())
    for s in stale:
        print(("stale: " if a.check else "updated: ") + os.path.relpath(s, ROOT))
    if a.check and stale:
        print("run: python3 tools/gen-doc-outputs.py " + " ".join(a.pages))
        return 1
    print(f"{len(a.pages)} page(s), {'up to date' if not stale else 'regenerated'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
