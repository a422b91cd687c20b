#!/usr/bin/env python3
"""tools/validate/restore_pile.py - rebuild the pile study's runs from its
carried CSVs, so that `validate.py --only pile --report-only` regenerates the
section on a machine that does not hold the runs (a fresh clone): each row of
docs/data/validation/pile_height.csv and pile_reference.csv becomes
WORK/runs/NAME/result.json with the height, count, ms a step and wall time the
run measured. The runs' dates are the provenance line's first and last.

usage: restore_pile.py [--work DIR] [--count N]   (default build/validate, 3363)
Existing result.json files are kept (a run at hand wins over the CSV).
"""
import argparse
import csv
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "docs/data/validation")


def write(work, name, res):
    d = os.path.join(work, "runs", name)
    path = os.path.join(d, "result.json")
    if os.path.exists(path):
        return 0
    os.makedirs(d, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)
    return 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", default=os.path.join(ROOT, "build/validate"))
    ap.add_argument("--count", type=int, default=3363)
    args = ap.parse_args()
    with open(os.path.join(DATA, "pile.json"), encoding="utf-8") as f:
        dates = re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d", json.load(f)["provenance"])
    first, last = (dates[0], dates[-1]) if dates else ("", "")
    n, made = args.count, 0
    with open(os.path.join(DATA, "pile_height.csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for i, r in enumerate(rows):
        it = int(r["iterations"])
        name = ("pile-%d-%s-%d" % (n, r["start"], it) if r["order"] == "forward"
                else "pile-%d-%s-%d-%s" % (n, r["start"], it, r["order"]))
        made += write(args.work, name, {
            "height": float(r["height"]), "particles": n, "ms_per_step": float(r["ms_per_step"]),
            "wall_seconds": float(r["wall_seconds"]), "env": {}, "restored": True,
            "date": last if i == len(rows) - 1 else first})
    with open(os.path.join(DATA, "pile_reference.csv"), encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["wall_seconds"]:  # the carried paper reference has none: it is read elsewhere
                made += write(args.work, "pile-%d-ref" % n, {
                    "height": float(r["height"]), "particles": n, "ms_per_step": "",
                    "wall_seconds": float(r["wall_seconds"]), "env": {}, "restored": True,
                    "date": first})
    print("restore_pile: %d runs written under %s" % (made, os.path.relpath(args.work, ROOT)))


if __name__ == "__main__":
    main()
