#!/usr/bin/env python3
"""tools/make_excavation.py - writes the excavation example (docs/excavation.md).

usage: python3 tools/make_excavation.py [--out DIR] [--check] [--small]
                                       [--count N --duration T]
  --out DIR  write into DIR instead of examples/
  --check    write nothing; exit 1 naming each file that differs from what
             this script would write
  --small    the test variant instead (excavation-small.json: a few hundred
             spheres, 0.2 s; tests/cli_ndem.sh runs it)
  --count N --duration T  a larger or smaller bed for timing runs instead
             (excavation-N.json: N spheres, the box's length and width times
             sqrt(N / 10^4) for the same depth of bed, T seconds simulated;
             docs/excavation.md's 10^5 run is --count 100000 --duration 0.3)

Writes excavation.json and bucket.stl (tools/make_bucket.py with its
default width, radius and depth). The job: a bed of 10^4 bi-disperse ore
spheres poured at random into a steel box settles for BED_SETTLE seconds
while the bucket waits above it; then the bucket ("name": "bucket", so
series.csv gets its force and position) goes down into the bed, drags
along it, comes up out of it and turns its mouth down to dump what it
carries (keyframes below). Materials and solver settings are the bench
scenes' (bench/make_scenes.py). Deterministic output; the committed files
must equal it (tests/cli_ndem.sh). Standard library only.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, HERE)
import make_bucket  # noqa: E402
import make_scenes as ms  # noqa: E402

BUCKET_R = make_bucket.RADIUS
SIN45 = 0.7071067811865476
UPRIGHT = [1, 0, 0, 0]
DUMPED = [SIN45, 0, SIN45, 0]   # a quarter turn about +y: the mouth (+x) faces down

# ---- the example: 10^4 spheres, a 0.7 x 0.3 m box ----
# The bed's spheres start at about 25% by volume in the box less MARGIN
# (top BED_POUR_TOP) and settle to a bed about 0.086 m deep (measured,
# docs/excavation.md). The bucket's centre (its reference point, the
# shell's axis) moves through KEYFRAMES (time s, centre m, orientation):
# hold above until the bed has settled, down until its floor is 0.035 m
# above the box floor (about 5 cm into the bed), drag 0.3 m along x, up,
# then dump.
BOX = [0.7, 0.3, 0.45]
BED_COUNT = 10000
BED_POUR_TOP = 0.178
Y = BOX[1] / 2
DIG_Z = 0.035 + BUCKET_R
HIGH_Z = 0.25
KEYFRAMES = [(0.0, [0.12, Y, HIGH_Z], UPRIGHT),
             (1.0, [0.12, Y, HIGH_Z], UPRIGHT),
             (1.4, [0.15, Y, DIG_Z], UPRIGHT),
             (2.2, [0.45, Y, DIG_Z], UPRIGHT),
             (2.6, [0.50, Y, HIGH_Z], UPRIGHT),
             (3.0, [0.50, Y, HIGH_Z], DUMPED)]
DURATION = 3.4
TIME_STEP = 0.0025         # lands on every keyframe time
ITERATIONS = 25
FRAME_INTERVAL = 0.05

# ---- the test variant: a resting lattice of 648 spheres, 0.2 s ----
# Two layers of 13 mm spheres touching (18 x 18 x 2, bed top 0.026 m); the
# bucket waits 0.04 s with its floor 0.05 m up, goes down to 0.014 m
# (between the layers' centres), drags 0.09 m, comes up to 0.05 m.
SMALL_BOX = [0.24, 0.24, 0.3]
SMALL_Y = SMALL_BOX[1] / 2
SMALL_DIG_Z = 0.014 + BUCKET_R
SMALL_HIGH_Z = 0.05 + BUCKET_R
SMALL_KEYFRAMES = [(0.0, [0.06, SMALL_Y, SMALL_HIGH_Z], UPRIGHT),
                   (0.04, [0.06, SMALL_Y, SMALL_HIGH_Z], UPRIGHT),
                   (0.08, [0.07, SMALL_Y, SMALL_DIG_Z], UPRIGHT),
                   (0.14, [0.16, SMALL_Y, SMALL_DIG_Z], UPRIGHT),
                   (0.18, [0.17, SMALL_Y, SMALL_HIGH_Z], UPRIGHT)]
SMALL_DURATION = 0.2
SMALL_TIME_STEP = 0.001


def bucket(keyframes):
    return {"type": "mesh", "file": "bucket.stl", "name": "bucket", "material": "steel",
            "motion": {"keyframes": [{"time": t, "position": [ms.rnd(v) for v in p],
                                      "orientation": q} for t, p, q in keyframes]}}


def box(size):
    return {"type": "box", "min": [0, 0, 0], "max": size, "inside": True, "material": "steel"}


def excavation(count=BED_COUNT, duration=DURATION):
    m = ms.rnd(ms.MARGIN)
    k = (count / BED_COUNT) ** 0.5
    size = [round(BOX[0] * k, 4), round(BOX[1] * k, 4), BOX[2]] if count != BED_COUNT else BOX
    return {
        "name": "excavation" if count == BED_COUNT else "excavation-%d" % count,
        "scene": ms.scene(
            [box(size), bucket(KEYFRAMES)],
            [{"type": "random", "min": [m, m, m],
              "max": [ms.rnd(size[0] - m), ms.rnd(size[1] - m), BED_POUR_TOP],
              "count": count, "radius": ms.BIDISPERSE, "material": "ore", "seed": 1}],
            twisting=0.0),
        "solver": ms.solver(TIME_STEP, duration, ITERATIONS),
        "output": {"frame_interval": FRAME_INTERVAL},
    }


def excavation_small():
    lo = [0.0075, 0.0075, ms.R]
    hi = [ms.rnd(0.0075 + 17 * ms.D), ms.rnd(0.0075 + 17 * ms.D), ms.rnd(3 * ms.R)]
    return {
        "name": "excavation-small",
        "scene": ms.scene(
            [box(SMALL_BOX), bucket(SMALL_KEYFRAMES)],
            [{"type": "lattice", "min": lo, "max": hi, "spacing": ms.D, "radius": ms.R,
              "material": "ore"}],
            twisting=0.0),
        "solver": ms.solver(SMALL_TIME_STEP, SMALL_DURATION, ITERATIONS),
        "output": {"frame_interval": 0.1},
    }


def main():
    ap = argparse.ArgumentParser(description="Writes the excavation example.")
    ap.add_argument("--out", default=os.path.join(ROOT, "examples"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--count", type=int)
    ap.add_argument("--duration", type=float, default=DURATION)
    args = ap.parse_args()
    name, make = ("excavation-small.json", excavation_small) if args.small else \
        ("excavation.json", excavation)
    if args.count is not None:
        if args.count < 1:
            ap.error("--count must be at least 1")
        name = "excavation-%d.json" % args.count
        make = lambda: excavation(args.count, args.duration)  # noqa: E731
    files = {name: (ms.dump(make()) + "\n").encode("utf-8"),
             "bucket.stl": make_bucket.binary_stl(make_bucket.bucket_triangles())}
    differ = []
    for fname, data in files.items():
        path = os.path.join(args.out, fname)
        if args.check:
            try:
                with open(path, "rb") as f:
                    same = f.read() == data
            except OSError:
                same = False
            if not same:
                differ.append(path)
        else:
            os.makedirs(args.out, exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
    for path in differ:
        print("make_excavation: %s differs from the script's output" % path, file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
