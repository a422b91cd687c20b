#!/usr/bin/env python3
"""bench/make_scenes.py - writes the standard scenes of bench/README.md.

usage: python3 bench/make_scenes.py [--out DIR] [--check] [--bed COUNT [--duration S]]
  --out DIR  write into DIR instead of bench/
  --check    write nothing; exit 1 naming each file in bench/ (or DIR) that
             differs from what this script would write
  --bed N    write only bed-N.json: bed-100k scaled to N particles (the same
             density, the side times sqrt(N / 10^5)), for make bench-large;
             not a committed scene (--duration: its simulated time)

The scenes are job documents (docs/job.md). Every number comes from a named
parameter below, derived from the experiments of Wang, Servin and Berglund,
"Warm starting the projected Gauss-Seidel algorithm for granular matter
simulation" (Computational Particle Mechanics, 2016), section 4, where it can
be; the rest are the team's choices, named and explained. The output is
deterministic (fixed seeds, fixed key order, fixed formatting), so the files
committed in bench/ must equal this script's output (tests/cli_ndem.sh).
Standard library only.
"""
import argparse
import json
import math
import os
import sys

# ---- material: iron-ore pellets on steel (Wang et al., Table 1) ----
D = 0.013                  # particle diameter d = 13 mm
R = D / 2                  # 6.5 mm
D2 = 0.010                 # second size of the bi-disperse mixes, d2 = 10 mm
R2 = D2 / 2
R_MAX = max(R, R2)
# Generators place centres at least this far inside the walls: the largest
# radius plus half a millimetre, so no sphere starts touching a wall.
MARGIN = R_MAX + 0.0005    # 7 mm
BIDISPERSE = {"values": [R, R2], "weights": [0.5, 0.5]}  # equal numbers
GRAVITY = [0, 0, -9.81]
ORE = {"name": "ore", "density": 3700, "young_modulus": 6e6, "poisson_ratio": 0.3}
STEEL = {"name": "steel", "density": 7800, "young_modulus": 2e11, "poisson_ratio": 0.3}
FRICTION = 0.91
ROLLING = 0.32
RESTITUTION = 0.18

# ---- solver: the paper's NDEM settings ----
WARM_START_FACTOR = 0.85   # "85 % of the value from last time-step"
IMPACT_ITERATIONS = 10


def rnd(x):
    """Rounds away the binary noise of derived lengths (0.0065 * 3 =
    0.019500000000000003) so that files print the decimal the derivation
    means; 10 digits is far below any length here (0.1 micrometre)."""
    r = round(x, 10)
    return int(r) if isinstance(x, int) else r


def contact_materials(twisting):
    """Ore on ore and ore on steel share the pellets' coefficients. The beds
    (and the column) set twisting_resistance 0 explicitly; the pile and the
    drum leave it to the default (docs/job.md), as the team's scenes do."""
    out = []
    for pair in (["ore", "ore"], ["ore", "steel"]):
        cm = {"materials": pair, "friction": FRICTION, "rolling_resistance": ROLLING}
        if twisting is not None:
            cm["twisting_resistance"] = twisting
        cm["restitution"] = RESTITUTION
        out.append(cm)
    return out


def solver(time_step, duration, iterations):
    return {"method": "ndem", "time_step": time_step, "duration": duration,
            "iterations": iterations, "impact_iterations": IMPACT_ITERATIONS,
            "warm_start": True, "warm_start_factor": WARM_START_FACTOR}


def scene(geometry, particles, emitters=None, twisting=None):
    s = {"gravity": GRAVITY, "materials": [ORE, STEEL],
         "contact_materials": contact_materials(twisting),
         "geometry": geometry, "particles": particles}
    if emitters is not None:
        s["emitters"] = emitters
    return s


# ---- bed-10k, bed-100k: a random bi-disperse bed settling in a box ----
# Spheres of 13 and 10 mm in equal numbers, placed at random without overlap
# at about 25% by volume (seed 1), fall and settle for 2 s. The centre
# region starts MARGIN above the floor and ends at BED_TOP; its side was
# chosen by the team for about 25%: the fractions of sphere volume in the
# centre region are 25.3% (10k) and 25.1% (100k). The box is the region plus
# MARGIN on each side, and tall enough to close it well above the starting
# spheres (BED_BOX_HEIGHT, the team's choice).
BED_TOP = 0.34
BED_SIDE = {10000: 0.3149, 100000: 1.0013}        # centre region side (m)
BED_BOX_HEIGHT = {10000: 0.4717, 100000: 0.486}
BED_TIME_STEP = 0.0025
BED_DURATION = 2.0         # the benchmark protocol's 2 s (bench/README.md)
BED_ITERATIONS = 25
BED_FRAME_INTERVAL = 0.5


def bed(count, scaled=False):
    """The committed beds; scaled: bed-100k's region scaled to `count`
    particles at its density (bench/large.sh's curve)."""
    side = BED_SIDE[100000] * math.sqrt(count / 100000.0) if scaled else BED_SIDE[count]
    hi = rnd(MARGIN + side)
    box = rnd(hi + MARGIN)
    return {
        "name": "bed-%d" % count,
        "scene": scene(
            [{"type": "box", "min": [0, 0, 0],
              "max": [box, box, BED_BOX_HEIGHT[100000 if scaled else count]],
              "inside": True, "material": "steel"}],
            [{"type": "random", "min": [rnd(MARGIN)] * 3, "max": [hi, hi, BED_TOP],
              "count": count, "radius": BIDISPERSE, "material": "ore", "seed": 1}],
            twisting=0.0),
        "solver": solver(BED_TIME_STEP, BED_DURATION, BED_ITERATIONS),
        "output": {"frame_interval": BED_FRAME_INTERVAL},
    }


# ---- column-25: 25 spheres stacked with zero overlap on a plane ----
# Sphere k (from 0) has its centre at (2k + 1) R: each touches the next
# without overlap, and the settled height is compared with the Hertz height
# (docs/physics.md): the column of Wang et al., section 4.1 (spheres of
# d = 13 mm "on top of another with zero overlap"); 25 is the team's count.
COLUMN_COUNT = 25
COLUMN_TIME_STEP = 0.005
COLUMN_DURATION = 5.0
COLUMN_ITERATIONS = 50


def column():
    spheres = [[0, 0, rnd((2 * k + 1) * R), R] for k in range(COLUMN_COUNT)]
    return {
        "name": "column-%d" % COLUMN_COUNT,
        "scene": scene(
            [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1], "material": "steel"}],
            [{"type": "list", "material": "ore", "spheres": spheres}],
            twisting=0.0),
        "solver": solver(COLUMN_TIME_STEP, COLUMN_DURATION, COLUMN_ITERATIONS),
        "output": {"frame_interval": 0.5},
    }


# ---- pile: pile formation (Wang et al., section 4.2) ----
# N_p = 3363 spheres of d = 13 mm from a source 3d wide whose floor is 20d
# above a plane (the source is one d deep). The emitter asks for PILE_RATE
# per second but a step is skipped while the spot is occupied, so it is
# given the time of a slower effective rate, PILE_EFFECTIVE_RATE, to place
# all N_p; the pile is measured PILE_REST after the last emission, as in the
# paper ("10 s after the last emitted particle has come to approximate rest").
PILE_COUNT = 3363
PILE_WIDTH = 3 * D
PILE_HEIGHT = 20 * D
PILE_RATE = 100.0
PILE_EFFECTIVE_RATE = 80.0
PILE_REST = 10.0
PILE_TIME_STEP = 0.005     # the paper's 5 ms
PILE_ITERATIONS = 50       # the paper's N_it = 50 runs


def pile():
    half = rnd(PILE_WIDTH / 2)
    stop = rnd(PILE_COUNT / PILE_EFFECTIVE_RATE)
    return {
        "name": "pile",
        "scene": scene(
            [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1], "material": "steel"}],
            [],
            [{"type": "box", "min": [-half, -half, rnd(PILE_HEIGHT)],
              "max": [half, half, rnd(PILE_HEIGHT + D)], "rate": PILE_RATE, "start": 0,
              "stop": stop, "max_count": PILE_COUNT, "radius": R, "material": "ore",
              "velocity": [0, 0, 0], "seed": 1}]),
        "solver": solver(PILE_TIME_STEP, rnd(stop + PILE_REST), PILE_ITERATIONS),
        "output": {"frame_interval": 0.5},
    }


# ---- drum: rotating drum (Wang et al., section 4.3) ----
# Diameter 40d, width 7d, 0.25 rad/s, N_p = 4864 bi-disperse spheres. The
# closed cylinder (inside: true, end caps turn with it) starts with
# DRUM_START spheres at random in a box inside it (DRUM_BOX_X, DRUM_BOX_Z:
# the team's box, its corners stay MARGIN inside the wall); the rest pour in
# from a box above the axis (DRUM_SOURCE_X, DRUM_SOURCE_Z) during the first
# seconds, at DRUM_RATE per second from DRUM_POUR_START to DRUM_POUR_STOP.
# Along the axis both boxes span the width less MARGIN at each cap.
DRUM_COUNT = 4864
DRUM_START = 2400
DRUM_RADIUS = 40 * D / 2
DRUM_WIDTH = 7 * D
DRUM_OMEGA = 0.25
DRUM_BOX_X = 0.17
DRUM_BOX_Z = (-0.185, 0.12)
DRUM_SOURCE_X = 0.1
DRUM_SOURCE_Z = (0.135, 0.21)
DRUM_RATE = 500.0
DRUM_POUR_START = 0.5
DRUM_POUR_STOP = 15.0
DRUM_TIME_STEP = 0.005
DRUM_DURATION = 30.0
DRUM_ITERATIONS = 100
DRUM_FRAME_INTERVAL = 0.25


def drum():
    y = rnd(DRUM_WIDTH / 2 - MARGIN)
    return {
        "name": "drum",
        "scene": scene(
            [{"type": "cylinder", "center": [0, 0, 0], "axis": [0, 1, 0],
              "radius": rnd(DRUM_RADIUS), "length": rnd(DRUM_WIDTH), "inside": True,
              "angular_velocity": DRUM_OMEGA, "material": "steel"}],
            [{"type": "random", "count": DRUM_START, "radius": BIDISPERSE, "material": "ore",
              "seed": 1, "min": [-DRUM_BOX_X, -y, DRUM_BOX_Z[0]],
              "max": [DRUM_BOX_X, y, DRUM_BOX_Z[1]]}],
            [{"type": "box", "rate": DRUM_RATE, "start": DRUM_POUR_START,
              "stop": DRUM_POUR_STOP, "max_count": DRUM_COUNT - DRUM_START,
              "radius": BIDISPERSE, "material": "ore", "velocity": [0, 0, 0], "seed": 2,
              "min": [-DRUM_SOURCE_X, -y, DRUM_SOURCE_Z[0]],
              "max": [DRUM_SOURCE_X, y, DRUM_SOURCE_Z[1]]}]),
        "solver": solver(DRUM_TIME_STEP, DRUM_DURATION, DRUM_ITERATIONS),
        "output": {"frame_interval": DRUM_FRAME_INTERVAL},
    }


# ---- cubes-10k, spheres-10k; cubes-100k, spheres-100k: shapes' cost ----
# (make bench-shapes, bench/shapes.sh, docs/performance.md "Shaped
# particles"). cubes-10k: bed-10k with every particle a cube whose bounding
# sphere is the sphere's (edge 2 r / sqrt 3), poured and settled for 2 s;
# spheres-10k: the same bed of spheres. All without rolling resistance
# (a shaped particle's material may not set it). The 10^5 beds (and the
# 10^4 ones named -lattice) start packed on a lattice (50 x 50 x 40, 25 x 25
# x 16, of one radius, R) so that a few steps measure a
# settled bed: cubes face to face (spacing: the edge), spheres touching
# (spacing 2 R); one time step of the bed, SHAPE_LATTICE_STEPS of them.
CUBE = {"type": "polyhedron",
        "vertices": [[x, y, z] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)]}
SHAPE_LATTICE = {10000: (25, 25, 16), 100000: (50, 50, 40)}
SHAPE_LATTICE_STEPS = 20


def no_rolling(job):
    for cm in job["scene"]["contact_materials"]:
        del cm["rolling_resistance"]
    return job


def shape_bed(count, cube):
    job = no_rolling(bed(count))
    job["name"] = "%s-%dk" % ("cubes" if cube else "spheres", count // 1000)
    if cube:
        job["scene"]["particles"][0]["shape"] = CUBE
    return job


def shape_lattice(count, cube):
    nx, ny, nz = SHAPE_LATTICE[count]
    s = rnd(2 * R / math.sqrt(3) if cube else 2 * R)
    lo = rnd(R + 0.0005)
    hi = [rnd(lo + (n - 0.5) * s) for n in (nx, ny, nz)]  # past the last centre, short of the next
    box = [rnd(2 * lo + (n - 1) * s) for n in (nx, ny, nz)]
    particles = {"type": "lattice", "min": [lo] * 3, "max": hi, "spacing": s, "radius": R,
                 "material": "ore"}
    if cube:
        particles["shape"] = CUBE
    duration = rnd(SHAPE_LATTICE_STEPS * BED_TIME_STEP)
    job = no_rolling({
        "name": "%s-%dk%s" % ("cubes" if cube else "spheres", count // 1000,
                              "-lattice" if count < 100000 else ""),
        "scene": scene([{"type": "box", "min": [0, 0, 0], "max": box, "inside": True,
                         "material": "steel"}], [particles], twisting=0.0),
        "solver": solver(BED_TIME_STEP, duration, BED_ITERATIONS),
        "output": {"frame_interval": duration},
    })
    return job


SCENES = {
    "bed-10k.json": lambda: bed(10000),
    "bed-100k.json": lambda: bed(100000),
    "column-25.json": column,
    "drum.json": drum,
    "pile.json": pile,
    "cubes-10k.json": lambda: shape_bed(10000, True),
    "spheres-10k.json": lambda: shape_bed(10000, False),
    "cubes-10k-lattice.json": lambda: shape_lattice(10000, True),
    "spheres-10k-lattice.json": lambda: shape_lattice(10000, False),
    "cubes-100k.json": lambda: shape_lattice(100000, True),
    "spheres-100k.json": lambda: shape_lattice(100000, False),
}


def dump(value, indent=0):
    """JSON with two-space indentation and lists of numbers or strings on
    one line (a sphere is one line of the column)."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        items = ['%s%s: %s' % (pad, json.dumps(k), dump(v, indent + 1)) for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        if all(not isinstance(v, (dict, list)) for v in value):
            return "[" + ", ".join(dump(v) for v in value) + "]"
        items = [pad + dump(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    return json.dumps(value)


def main():
    ap = argparse.ArgumentParser(description="Writes the standard scenes of bench/README.md.")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--bed", type=int, help="write only bed-N.json, bed-100k scaled to N")
    ap.add_argument("--duration", type=float, default=BED_DURATION)
    args = ap.parse_args()
    if args.bed:
        # bed-100k scaled (bench/large.sh): 10^3 .. 10^6 particles at one density
        job = bed(args.bed, scaled=True)
        job["solver"]["duration"] = args.duration
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "bed-%d.json" % args.bed), "w", encoding="utf-8") as f:
            f.write(dump(job) + "\n")
        return 0
    differ = []
    for name, make in SCENES.items():
        text = dump(make()) + "\n"
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    same = f.read() == text
            except OSError:
                same = False
            if not same:
                differ.append(path)
        else:
            os.makedirs(args.out, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    for path in differ:
        print("make_scenes: %s differs from the script's output" % path, file=sys.stderr)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
