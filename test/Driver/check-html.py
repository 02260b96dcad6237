#!/usr/bin/env python3
"""Counts what an llmsys HTML report holds, and what would make it depend
on the network or run code: sections, inline figures, tables, scripts and
attributes that load something (src, href, url(...)). The page must parse
with every element closed.

    check-html.py FILE|-
"""
import html.parser
import sys

VOID = {"meta", "br", "img", "hr", "input", "link", "line", "rect",
        "circle", "polyline"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.count = {}
        self.external = 0
        self.stack = []

    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        for name, value in attrs:
            if name in ("src", "href") or (value and "url(" in value):
                self.external += 1
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            sys.exit("check-html: </%s> closes <%s>" %
                     (tag, self.stack[-1] if self.stack else "nothing"))
        self.stack.pop()


text = sys.stdin.read() if sys.argv[1] == "-" else open(sys.argv[1]).read()
p = Page()
p.feed(text)
if p.stack:
    sys.exit("check-html: unclosed <%s>" % p.stack[-1])
c = p.count
print("sections %d, figures %d, tables %d, scripts %d, external %d" %
      (c.get("section", 0), c.get("svg", 0), c.get("table", 0),
       c.get("script", 0), p.external))
