#!/usr/bin/env python3
"""`llmsys trends --format=json` refitted: least squares of ln(value) on
the year; growth = exp(slope x per_years), its error the growth at the
slope -/+ its standard error, R^2 of the log fit, each point's fit.

    check-trends.py TRENDS.json
"""
import json
import math
import sys

for t in json.load(open(sys.argv[1]))["trends"]:
    xs = [p["year"] for p in t["points"]]
    ys = [math.log(p["value"]) for p in t["points"]]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    syy = sum((y - my) ** 2 for y in ys)
    b = sxy / sxx
    a = my - b * mx
    res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    close = lambda u, v: abs(u / v - 1) < 1e-9
    ok = close(t["growth"], math.exp(b * t["per_years"]))
    ok &= abs(t["r2"] - (1 - res / syy if syy else 1)) < 1e-9
    for p, x in zip(t["points"], xs):
        ok &= close(p["fitted"], math.exp(a + b * x))
    if n > 2:
        se = math.sqrt(res / (n - 2) / sxx)
        ok &= close(t["growth_low"], math.exp((b - se) * t["per_years"]))
        ok &= close(t["growth_high"], math.exp((b + se) * t["per_years"]))
    else:
        ok &= t["growth_low"] is None and t["growth_high"] is None
    ok &= t["first_year"] == min(xs) and t["last_year"] == max(xs)
    print(f"{t['name']}: {'ok' if ok else 'FAILED ' + json.dumps(t)}")
