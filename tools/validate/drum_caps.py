#!/usr/bin/env python3
"""drum_caps.py - the bench drum with end caps of their own friction, for the
plug-zone study of issue 14 (docs/validation.md, "The drum's plug zone").

usage: drum_caps.py MU [--rolling R] [--count N] > job.json

Writes validate.py's drum job (100 warm iterations, 4864 spheres or N) with
the cylinder lengthened by 4 d so that its own caps are out of reach, and two
planes of a material "cap" where the bench drum's caps are, turning with the
drum (0.25 rad/s about +y, as a real drum's end plates do). The ore-cap
contact has friction MU and rolling resistance R (default: the particles'
0.32); the mantle keeps the ore-steel contact of bench/drum.json. Run it with
ndem-probe (--prepare 20 --iterations 500 --settle 5 --snapshots FILE --every
10) and read it with drum_plug.py."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate as va  # noqa: E402

ms = va.ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mu", type=float)
    ap.add_argument("--rolling", type=float, default=0.32)
    ap.add_argument("--count", type=int, default=ms.DRUM_COUNT)
    a = ap.parse_args()
    start = min(ms.DRUM_START, a.count)
    job = va.drum_job(start, a.count, 20.0, 100, True)
    sc = job["scene"]
    cyl = sc["geometry"][0]
    cyl["length"] = ms.rnd(ms.DRUM_WIDTH + 4 * ms.D)
    half = ms.DRUM_WIDTH / 2
    sc["materials"].append({"name": "cap", "density": 7800, "young_modulus": 2e11,
                            "poisson_ratio": 0.3})
    ore_steel = next(c for c in sc["contact_materials"] if c["materials"] == ["ore", "steel"])
    cap = dict(ore_steel, materials=["ore", "cap"], friction=a.mu, rolling_resistance=a.rolling)
    sc["contact_materials"].append(cap)
    for sign in (-1, 1):
        sc["geometry"].append({"type": "plane", "point": [0, ms.rnd(sign * half), 0],
                               "normal": [0, -sign, 0], "material": "cap",
                               "angular_velocity": [0, ms.DRUM_OMEGA, 0]})
    job["name"] = "drum-caps-mu%g" % a.mu
    json.dump(job, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
