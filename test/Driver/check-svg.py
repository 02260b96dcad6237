#!/usr/bin/env python3
"""Checks the text of llmsys's SVG figures: every label lies inside the
canvas (not clipped) and no two labels overlap. Text boxes are estimated
from the font size (a sans-serif glyph is at most 0.62 em wide on average,
0.75 em above the baseline and 0.25 em below), which errs on the side of
reporting. One line per file, 'ok' or the problems.

    check-svg.py FILE.svg...
"""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def boxes(path):
    root = ET.parse(path).getroot()
    w, h = float(root.get("width")), float(root.get("height"))
    out = []
    for t in root.iter(NS + "text"):
        if t.get("transform"):  # rotated axis titles: checked by hand
            continue
        s = "".join(t.itertext())
        size = float(t.get("font-size", "12"))
        bold = t.get("font-weight") == "bold"
        width = len(s) * size * (0.66 if bold else 0.58)
        x, y = float(t.get("x")), float(t.get("y"))
        anchor = t.get("text-anchor", "start")
        x0 = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
        out.append((s, x0, y - 0.75 * size, x0 + width, y + 0.25 * size))
    return w, h, out


def main():
    bad = 0
    for path in sys.argv[1:]:
        w, h, bs = boxes(path)
        problems = []
        for s, x0, y0, x1, y1 in bs:
            if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
                problems.append("clipped: '%s'" % s)
        for i in range(len(bs)):
            for j in range(i + 1, len(bs)):
                a, b = bs[i], bs[j]
                if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]:
                    problems.append("overlap: '%s' and '%s'" % (a[0], b[0]))
        name = re.sub(r".*/", "", path)
        print("%s: %s" % (name, "ok" if not problems else "; ".join(problems)))
        bad += bool(problems)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
