"""What the study pages' checkers share: a page's prose, the numbers it
must quote as the tool computes them, findings that must hold, and an
audit that no figure in the prose is typed by hand.

The audit takes every figure-like token of the prose (a decimal, a
percentage, a ratio such as 2.4x, a number grouped in thousands) outside
code, links and comments, and fails on each that is not

  - generated in place (`<!--= ... -->N<!--=-->`, tools/gen-doc-outputs.py),
  - shown in an output block the page generates (`<!-- llmsys: ... -->`),
    token for token, so that it goes stale with the block,
  - inside a text the checker recomputed and found (`quoted`), or
  - declared given on the page, for numbers that are not the tool's
    outputs (the seeds' claims, sources' figures, stdlib inputs):
    `<!-- given: the seed's 35x and 40-75%; the H100's 0.816 -->` (its
    figure-like tokens, matched as written).
"""
import csv
import json
import re

BLOCK = re.compile(r"<!-- llmsys: .*? -->\n(.*?)<!-- end -->", re.S)
VALUE = re.compile(r"<!--= .*? -->.*?<!--=-->", re.S)
GIVEN = re.compile(r"<!-- given: (.*?)-->", re.S)
NUMBER = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?(?:%|x\b)?(?![\w])")


def figures(text):
    """The figure-like tokens of TEXT: decimals, percentages, ratios and
    numbers grouped in thousands (an integer alone is a count, a size or a
    year, and is not audited)."""
    out = []
    for m in NUMBER.finditer(text):
        tok = m.group(0).rstrip(",.")
        if re.search(r"[.%x]|\d,\d{3}", tok):
            out.append(tok)
    return out


def prose_text(page):
    """PAGE without what the audit does not read: generated blocks and
    values, comments, code, link targets and headings' anchors."""
    t = BLOCK.sub(" ", page)
    t = VALUE.sub(" ", t)
    t = re.sub(r"<!--.*?-->", " ", t, flags=re.S)
    t = re.sub(r"```.*?```", " ", t, flags=re.S)
    t = re.sub(r"`[^`]*`", " ", t)
    t = re.sub(r"\]\([^)]*\)", "]", t)
    t = re.sub(r"!\[[^\]]*\]", " ", t)
    return t


def sweep_rows(base, name):
    """The rows of BASE.NAME.csv, a sweep's CSV a checker's test saved."""
    return list(csv.DictReader(open(f"{base}.{name}.csv")))


def column(rows, key):
    return [float(r[key]) for r in rows]


def scenarios(path):
    """The scenarios of an `llmsys eval --format=json` document, by name."""
    return {s["name"]: s for s in json.load(open(path))["scenarios"]}


def study_checker(argv):
    """A checker run as `CHECKER.py BASE PAGE.md`: BASE, the page's
    Prose, and the rows of BASE.NAME.csv by sweep name."""
    base = argv[1]
    return base, Prose(argv[2]), lambda name: sweep_rows(base, name)


class Prose:
    def __init__(self, path):
        self.raw = open(path).read()
        # Whitespace-insensitive: the prose wraps anywhere.
        self.page = " ".join(self.raw.split())
        self.failed = []
        self.found = []

    def quoted(self, text):
        """TEXT, recomputed from the tool's output, appears on the page."""
        if text not in self.page:
            self.failed.append(text)
        else:
            self.found.append(text)

    def check(self, what, ok):
        """A finding the page states holds."""
        if not ok:
            self.failed.append(what)

    def audit(self):
        """Every figure of the prose is generated, shown in a generated
        block, recomputed by the checker, or declared given."""
        known = set()
        for m in BLOCK.finditer(self.raw):
            known.update(figures(m.group(1)))
        for text in self.found:
            known.update(figures(text))
        for m in GIVEN.finditer(self.raw):
            known.update(figures(m.group(1)))
        for i, line in enumerate(prose_text(self.raw).split("\n")):
            for tok in figures(line):
                if tok not in known:
                    self.failed.append(f"hand-typed figure '{tok}' in: "
                                       f"{line.strip()[:100]}")

    def report(self, title):
        self.audit()
        for x in self.failed:
            print(f"FAILED: {x}")
        print(f"{title}: " + ("ok" if not self.failed else f"{len(self.failed)} failed"))


if __name__ == "__main__":
    # python3 prose.py PAGE...: the audit alone (a checker's recomputed
    # texts not counted), for writing a page.
    import sys
    for path in sys.argv[1:]:
        Prose(path).report(path)
