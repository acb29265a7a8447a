#!/usr/bin/env python3
"""The ACAS Xu results of `knn verify --instances` as the Markdown tables of
docs/verification.md: networks by properties 1-4, the other properties, totals per property.

    scripts/instances-table.py RESULTS.csv
"""
import csv
import re
import sys
from collections import defaultdict

def cell(answer, seconds):
    if answer.startswith("unknown:"):
        answer = f"unknown ({answer[len('unknown:'):]})"
    return f"{answer} {float(seconds):.2f}"


def main(path):
    rows = list(csv.DictReader(open(path)))
    by = {}
    totals = defaultdict(lambda: [0, 0, 0, 0.0])
    for r in rows:
        net = re.search(r"(\d_\d)", r["network"]).group(1)
        prop = int(re.search(r"prop_(\d+)", r["property"]).group(1))
        by[(net, prop)] = (r["answer"], r["seconds"])
        t = totals[prop]
        t[0 if r["answer"] == "holds" else 1 if r["answer"] == "violated" else 2] += 1
        t[3] += float(r["seconds"])
    nets = sorted({n for n, _ in by})
    print("| network | prop 1 | prop 2 | prop 3 | prop 4 |")
    print("| --- | --- | --- | --- | --- |")
    for n in nets:
        cells = [cell(*by[(n, p)]) if (n, p) in by else "" for p in (1, 2, 3, 4)]
        print(f"| {n} | " + " | ".join(cells) + " |")
    print()
    print("| instance | answer, seconds |")
    print("| --- | --- |")
    for (n, p), (a, s) in sorted(by.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if p > 4:
            print(f"| {n} prop {p} | {cell(a, s)} |")
    print()
    print("| property | holds | violated | unknown | seconds |")
    print("| --- | --- | --- | --- | --- |")
    all_ = [0, 0, 0, 0.0]
    for p in sorted(totals):
        t = totals[p]
        print(f"| {p} | {t[0]} | {t[1]} | {t[2]} | {t[3]:.1f} |")
        all_ = [a + b for a, b in zip(all_, t)]
    print(f"| all | {all_[0]} | {all_[1]} | {all_[2]} | {all_[3]:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1])
