#!/usr/bin/env python3
"""The schema walk: no numeric field is accepted and ignored.

Reads the schema (`llmsys schema`) and the walk's spec, whose lines marked
`// walk: KIND.FIELD` write each numeric field once, in scenarios that read
it. Perturbs each such value in turn and evaluates every scenario of the
spec: some figure must move (or the value be refused with a diagnostic).
Fields the schema marks "documentation only" (with the reason) are the only
ones that may be left unwritten; a documentation-only field written in the
spec must change nothing. A field the schema says is read by `layout`
only (IR/Schema.def's Read column, on which sweeps reuse the operators
built before `partition`) must leave those operators unchanged
(`llmsys-opt --passes=...`, the passes before partition). The entity kinds `measurement`, `sweep` and
`trend` are read by `llmsys validate`, `llmsys sweep` and `llmsys trends`,
not by a scenario, and are not walked (test/Driver/trends.test checks that
a trend's fields change its fit).

    schema-walk.py LLMSYS LLMSYS_OPT SPEC
"""
import json
import re
import subprocess
import sys

llmsys, llmsys_opt, spec = sys.argv[1], sys.argv[2], sys.argv[3]
BUILD_PASSES = "expand-layers,adapt,fuse,recompute"
NOT_WALKED = {"measurement", "sweep", "trend"}

schema = subprocess.run([llmsys, "schema"], capture_output=True, text=True,
                        check=True).stdout
numeric, doc_only, layout = {}, set(), set()
kind = None
for line in schema.splitlines():
    m = re.match(r"### `([^`]+)`", line)
    if m:
        kind = m.group(1)
        continue
    m = re.match(r"\| `(\w+)` \| ([^|]+) \| [^|]+ \| (\w+) \| (.*) \|$",
                 line)
    if not m or kind is None or kind in NOT_WALKED:
        continue
    field, type_, read_by, meaning = m.groups()
    if "list" in type_ or not any(w in type_ for w in ("number", "(", "whole")):
        continue
    name = f"{kind}.{field}"
    numeric[name] = type_
    if read_by == "layout":
        layout.add(name)
    if "(documentation only:" in meaning:
        doc_only.add(name)

lines = open(spec).read().split("\n")
marked = {}
for i, line in enumerate(lines):
    m = re.search(r"// walk: ([\w .-]+?)(?: = (\S+))?\s*$", line)
    if m:
        marked[m.group(1)] = (i, m.group(2))


def write(text):
    path = spec + ".walk.llmsys"
    with open(path, "w") as f:
        f.write(text)
    return path


def evaluate(text):
    out = subprocess.run([llmsys, "eval", "--format=json", write(text)],
                         capture_output=True, text=True)
    if out.returncode != 0:
        return None
    scenarios = json.loads(out.stdout)["scenarios"]
    for s in scenarios:
        s.pop("inputs", None)
    return json.dumps(scenarios, sort_keys=True)


def operators(text):
    """Every scenario's program after the passes before partition."""
    return subprocess.run([llmsys_opt, "--emit=program",
                           f"--passes={BUILD_PASSES}", write(text)],
                          capture_output=True, text=True).stdout


def perturb(line, type_, to, attempt=0):
    m = re.search(r"(=|<=|>=)\s*([0-9][0-9.]*(?:e-?[0-9]+)?)", line)
    if not m:
        return None
    value = float(m.group(2))
    if to is not None:
        new = to
    elif "whole" in type_:
        # Doubled first (divisibility holds), then one more.
        new = str(int(value) * 2 if attempt == 0 else int(value) + 1)
    else:
        new = repr(value * 1.25)
        bound = re.search(r"\.\. ([0-9.e+-]+)", type_)
        if bound and value * 1.25 > float(bound.group(1)):
            new = repr(value * 0.8)
    return line[:m.start(2)] + new + line[m.end(2):]


base = evaluate("\n".join(lines))
if base is None:
    sys.exit("the walk's spec does not evaluate")
base_operators = operators("\n".join(lines))
problems = refused = layout_checked = 0
for name in sorted(numeric):
    if name not in marked:
        if name not in doc_only:
            print(f"not walked: {name} (write it in the walk's spec)")
            problems += 1
        continue
    i, to = marked[name]
    changed = perturb(lines[i], numeric[name], to)
    if changed is None:
        print(f"cannot perturb line {i + 1}: {lines[i]}")
        problems += 1
        continue
    after = evaluate("\n".join(lines[:i] + [changed] + lines[i + 1:]))
    if after is None and to is None and "whole" in numeric[name]:
        changed = perturb(lines[i], numeric[name], to, attempt=1)
        after = evaluate("\n".join(lines[:i] + [changed] + lines[i + 1:]))
    moved = after != base  # None: refused with a diagnostic
    if after is None:
        print(f"refused with a diagnostic: {name}")
        refused += 1
    if name in doc_only and moved:
        print(f"documentation only, but moves a figure: {name}")
        problems += 1
    elif name not in doc_only and not moved:
        print(f"ignored: {name} changes no figure")
        problems += 1
    if name in layout and after is not None:
        layout_checked += 1
        if operators("\n".join(lines[:i] + [changed] + lines[i + 1:])) != \
                base_operators:
            print(f"read before partition, but the schema says layout: {name}")
            problems += 1
for name in sorted(set(marked) - set(numeric)):
    print(f"marked but not a numeric field of the schema: {name}")
    problems += 1
print(f"{len(numeric)} numeric fields, {len(doc_only)} documentation only, "
      f"{refused} refused, {layout_checked} read by layout only, "
      f"{problems} problems")
