#!/usr/bin/env python3
"""bench/peers/liggghts_input.py - writes a LIGGGHTS 3.8 input for a bed scene.

usage: python3 bench/peers/liggghts_input.py SCENE.json FRAME.ndf OUTDIR
           [--duration S] [--step-fraction F] [--print-step]

SCENE.json is a bench bed (bench/bed-10k.json, bench/bed-100k.json): one box
geometry (inside: true) of a wall material, one particle material. FRAME.ndf
is ndem's frame 0 of that scene (`ndem run`, frames/000000.ndf): LIGGGHTS
starts from the very particles ndem places (positions and radii; float32 in
the frame, 0.03 um at 0.3 m), at rest. Writes OUTDIR/bed.data (read_data,
atom_style granular) and OUTDIR/in.bed; prints the time step on stdout.

The time step is LIGGGHTS' usual choice: a fraction F (default 0.1) of the
Rayleigh time of the smallest particle, dt_R = pi r sqrt(rho / G) /
(0.1631 nu + 0.8766), G = E / (2 (1 + nu)) (the bound LIGGGHTS' fix
check/timestep/gran reports against). bench/peers.sh runs ndem's smooth
Hertz DEM at the same step.

What is the same: box, particles, E, nu, density, gravity, restitution,
friction and rolling resistance of both material pairs (peratomtypepair),
no twisting resistance, Hertz normal force with Mindlin tangential history.
What differs (docs/performance.md, "LIGGGHTS beside ndem"): LIGGGHTS'
rolling friction `cdt` is a constant torque mu_r r* f_n opposing the rolling
velocity (ndem's smooth Hertz: a spring cut at that bound; NDEM: a
complementarity row with that bound); LIGGGHTS' Hertz damping and tangential
stiffness follow its own formulas (beta from ln e, S_t = 8 G* sqrt(R* delta)),
ndem's smooth Hertz damps with p sqrt(m* k_n) delta^(1/4) (docs/physics.md).
Standard library only.
"""
import argparse
import json
import math
import os
import struct
import sys


def read_ndf(path):
    """Positions and radii of an NDF1 frame (docs/frames.md)."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:4] != b"NDF1":
        sys.exit("liggghts_input: %s is not an NDF1 frame" % path)
    hs, _, n = struct.unpack_from("<III", b, 4)
    fields, = struct.unpack_from("<I", b, 32)
    if fields & 3 != 3:
        sys.exit("liggghts_input: %s has no positions or radii" % path)
    pos = struct.unpack_from("<%df" % (3 * n), b, hs)
    rad = struct.unpack_from("<%df" % n, b, hs + 12 * n)
    return [pos[3 * i:3 * i + 3] for i in range(n)], list(rad)


def pair_value(scene, key, a, b, default):
    for cm in scene.get("contact_materials", []):
        if sorted(cm["materials"]) == sorted([a, b]):
            return cm.get(key, default)
    return default


def rayleigh_step(r, mat):
    g = mat["young_modulus"] / (2 * (1 + mat["poisson_ratio"]))
    return math.pi * r * math.sqrt(mat["density"] / g) / (0.1631 * mat["poisson_ratio"] + 0.8766)


def main():
    ap = argparse.ArgumentParser(description="Writes a LIGGGHTS input for a bench bed.")
    ap.add_argument("scene")
    ap.add_argument("frame")
    ap.add_argument("outdir")
    ap.add_argument("--duration", type=float, default=None,
                    help="simulated seconds (default: the job's solver.duration)")
    ap.add_argument("--step-fraction", type=float, default=0.1,
                    help="time step as a fraction of the Rayleigh time (default 0.1)")
    args = ap.parse_args()

    with open(args.scene, encoding="utf-8") as f:
        job = json.load(f)
    scene = job["scene"]
    boxes = [g for g in scene["geometry"] if g["type"] == "box" and g.get("inside")]
    if len(scene["geometry"]) != 1 or len(boxes) != 1 or len(scene["particles"]) != 1:
        sys.exit("liggghts_input: expects one inside box and one particle group (a bench bed)")
    box = boxes[0]
    mats = {m["name"]: m for m in scene["materials"]}
    pmat = mats[scene["particles"][0]["material"]]
    wmat = mats[box["material"]]
    pos, rad = read_ndf(args.frame)
    n = len(rad)

    dt = args.step_fraction * rayleigh_step(min(rad), pmat)
    duration = args.duration if args.duration is not None else job["solver"]["duration"]
    steps = max(1, int(round(duration / dt)))
    gx, gy, gz = scene["gravity"]
    gmag = math.sqrt(gx * gx + gy * gy + gz * gz)

    # type 1: the particles' material, type 2: the walls'
    names = [pmat["name"], wmat["name"]]

    def matrix(key, default):
        return " ".join("%.10g" % pair_value(scene, key, a, b, default)
                        for a in names for b in names)

    rolling = any(pair_value(scene, "rolling_resistance", a, b, 0) > 0
                  for a in names for b in names)
    model = "model hertz tangential history" + (" rolling_friction cdt" if rolling else "")
    lo, hi = box["min"], box["max"]

    os.makedirs(args.outdir, exist_ok=True)
    with open(os.path.join(args.outdir, "bed.data"), "w", encoding="utf-8") as f:
        f.write("LIGGGHTS data file: %s, ndem frame 0\n\n%d atoms\n2 atom types\n\n" % (
            job.get("name", "bed"), n))
        for k, axis in enumerate("xyz"):
            f.write("%.17g %.17g %slo %shi\n" % (lo[k], hi[k], axis, axis))
        f.write("\nAtoms\n\n")
        for i in range(n):
            # atom_style granular: id type diameter density x y z
            f.write("%d 1 %.7g %.9g %.9g %.9g %.9g\n" % (
                i + 1, 2 * rad[i], pmat["density"], pos[i][0], pos[i][1], pos[i][2]))

    thermo = max(1, steps // 10)
    walls = []
    for k, axis in enumerate("xyz"):
        for side, v in (("lo", lo[k]), ("hi", hi[k])):
            walls.append("fix w%s%s all wall/gran %s primitive type 2 %splane %.17g" % (
                axis, side, model, axis, v))
    lines = [
        "# %s in LIGGGHTS 3.8: written by bench/peers/liggghts_input.py" % job.get("name", "bed"),
        "atom_style granular",
        "atom_modify map array",
        "boundary f f f",
        "newton off",
        "communicate single vel yes",
        "units si",
        # split along x: the bed settles to the floor, so a z split would idle a rank
        "processors * 1 1",
        "read_data bed.data",
        "neighbor %.6g bin" % (0.5 * min(rad)),
        "neigh_modify delay 0",
        # the steel walls' E = 2e11 is above LIGGGHTS' SI guard (1e9) for soft grains
        "hard_particles yes",
        "fix m1 all property/global youngsModulus peratomtype %.10g %.10g" % (
            pmat["young_modulus"], wmat["young_modulus"]),
        "fix m2 all property/global poissonsRatio peratomtype %.10g %.10g" % (
            pmat["poisson_ratio"], wmat["poisson_ratio"]),
        "fix m3 all property/global coefficientRestitution peratomtypepair 2 %s" % matrix(
            "restitution", 0.5),
        "fix m4 all property/global coefficientFriction peratomtypepair 2 %s" % matrix(
            "friction", 0.0),
    ]
    if rolling:
        lines.append("fix m5 all property/global coefficientRollingFriction peratomtypepair 2 %s"
                     % matrix("rolling_resistance", 0.0))
    lines += [
        "pair_style gran %s" % model,
        "pair_coeff * *",
        "timestep %.9g" % dt,
        "fix gravi all gravity %.17g vector %.17g %.17g %.17g" % (
            gmag, gx / gmag, gy / gmag, gz / gmag),
    ] + walls + [
        "fix integr all nve/sphere",
        "compute zmean all reduce ave z",
        "thermo_style custom step time atoms ke c_zmean",
        "thermo_modify lost ignore norm no",
        "thermo %d" % thermo,
        "run %d" % steps,
    ]
    with open(os.path.join(args.outdir, "in.bed"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print("%.9g %d" % (dt, steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
