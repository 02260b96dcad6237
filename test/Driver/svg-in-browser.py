#!/usr/bin/env python3
"""Renders llmsys's SVG figures in headless Chromium and checks the real
text boxes (the browser's fonts, not estimates): every label inside the
canvas and no two overlapping. Also writes a PNG of each figure to look
at (the first three), and fails on any message the page logs to the
console.

    svg-in-browser.py CHROMIUM OUTDIR FILE.svg...

One line per figure, 'ok' or the problems.
"""
import glob
import os
import subprocess
import sys

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"></head><body style="margin:0">
%s
<pre id="result"></pre>
<script>
const lines = [];
for (const div of document.querySelectorAll("div.figure")) {
  const svg = div.querySelector("svg");
  const w = svg.width.baseVal.value, h = svg.height.baseVal.value;
  const boxes = [];
  for (const t of svg.querySelectorAll("text")) {
    if (t.getAttribute("transform")) continue;
    const b = t.getBBox();
    boxes.push([t.textContent, b.x, b.y, b.x + b.width, b.y + b.height]);
  }
  const problems = [];
  for (const [s, x0, y0, x1, y1] of boxes)
    if (x0 < -0.5 || y0 < -0.5 || x1 > w + 0.5 || y1 > h + 0.5)
      problems.push("clipped: '" + s + "'");
  for (let i = 0; i < boxes.length; ++i)
    for (let j = i + 1; j < boxes.length; ++j) {
      const a = boxes[i], b = boxes[j];
      // Touching is not overlapping: a pixel of slack each way.
      if (a[1] + 1 < b[3] && b[1] + 1 < a[3] && a[2] + 1 < b[4] &&
          b[2] + 1 < a[4])
        problems.push("overlap: '" + a[0] + "' and '" + b[0] + "'");
    }
  // (Spelled in two so that the script's own text is no result.)
  lines.push("RES" + "ULT " + div.id + ": " +
             (problems.length ? problems.join("; ") : "ok"));
}
document.getElementById("result").textContent = lines.join("\\n");
</script></body></html>
"""


def flags(chromium):
    return [chromium, "--headless", "--no-sandbox", "--disable-gpu",
            "--enable-logging=stderr", "--v=0"]


def main():
    chromium, outdir = sys.argv[1], sys.argv[2]
    # Patterns too (lit passes '*.svg' unexpanded).
    svgs = sorted(f for a in sys.argv[3:] for f in (glob.glob(a) or [a]))
    os.makedirs(outdir, exist_ok=True)
    # One page holds every figure: one browser start checks them all.
    divs = []
    for svg in svgs:
        body = open(svg, encoding="utf-8").read()
        divs.append('<div class="figure" id="%s">%s</div>'
                    % (os.path.basename(svg), body[body.index("<svg"):]))
    page = os.path.join(outdir, "figures.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(PAGE % "\n".join(divs))
    dom = subprocess.run(flags(chromium) + ["--dump-dom", "file://" + page],
                         capture_output=True, text=True, timeout=300)
    results = [l.split("RESULT ", 1)[1].replace("</pre>", "")
               for l in dom.stdout.splitlines() if "RESULT " in l]
    console = [l for l in dom.stderr.splitlines() if "CONSOLE" in l]
    for r in results:
        print(r)
    if console:
        print("console: " + console[0])
    if len(results) != len(svgs):
        print("only %d of %d figures checked" % (len(results), len(svgs)))
    # PNGs of the first three, to look at.
    for svg in svgs[:3]:
        name = os.path.basename(svg)
        subprocess.run(flags(chromium) + [
            "--window-size=720,440",
            "--screenshot=" + os.path.join(outdir, name + ".png"),
            "file://" + os.path.abspath(svg)], capture_output=True, timeout=120)
    bad = console or len(results) != len(svgs) or \
        any(not r.endswith(": ok") for r in results)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
