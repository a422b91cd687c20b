"""tools/validate/triaxial_walls.py - the wall-mass study of
docs/validation.md, section 4 ("The wall mass", issue 13): one prepared
sample of tools/validate/triaxial.py sheared with variants of its walls, each
run's sides (contact stress between 10 % and 25 % axial strain), the side
walls' peak outward speed and the critical deviator; and, from one run, the
inertia term M a / A that walls of mass M would add if they followed that
run's side walls.

    python3 tools/validate/triaxial_walls.py COUNT[:BOX] VARIANT... [--ndem PATH] [--work DIR]
    python3 tools/validate/triaxial_walls.py --inertia RUN_DIR MASS

COUNT: 400, 1000, 4000 (the QUICK, MEDIUM, FULL cells) or any count with its
random fill's cube BOX (m; 27000:0.5 is the 332 mm cell). A VARIANT is
key=value pairs separated by commas: mass (kg, 100), its (100), warm (1 or 0),
settle (s at rest under 100 Pa before the drive, 0.5), ramp (s, the driven
pair's `ramp`, 0). Example: 1000 mass=1 mass=100 mass=100,ramp=1 mass=100,settle=2.

The variants (b), a motor aiming at speed 0 with force range +-stress A, and
(c), a viscous damping of the walls, were measured with a scratch build of
core/walls.c, not kept: (b) motor_target 0, motor_lo = -motor_hi (the outward
stop left at max_speed); (c) each wall's speed divided by 1 + c h / M before
its motor's first update (implicit damping c, N s/m)."""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import triaxial as T  # noqa: E402

H = 0.005  # s, Table 1's step


def run(ndem, work, name, job):
    d = os.path.join(work, name)
    if os.path.exists(os.path.join(d, "ok")):
        return d
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "job.json"), "w", encoding="utf-8") as f:
        json.dump(job, f, indent=1)
    t0 = time.time()
    p = subprocess.run(["nice", ndem, "run", "job.json", "--out", d + "/out", "--quiet",
                        "--no-vtk", "--threads", "1"], cwd=d, capture_output=True, text=True,
                       env=dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE"))
    if p.returncode:
        raise SystemExit("%s failed: %s" % (name, p.stderr[-500:]))
    with open(os.path.join(d, "ok"), "w", encoding="utf-8") as f:
        f.write("%.1f\n" % (time.time() - t0))
    return d


def sides(d, start):
    """The side walls' peak outward speed (mm/s) and the means of metrics()."""
    with open(os.path.join(d, "out", "series.csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    vout, prev = 0.0, None
    for r in rows:
        lxy = (float(r["cell_size_x"]), float(r["cell_size_y"]))
        if prev is not None and float(r["time"]) >= start - 1e-9:
            # one wall of a pair: half the edge's growth
            vout = max(vout, max(a - b for a, b in zip(lxy, prev)) / (2 * H))
        prev = lxy
    m = T.metrics(os.path.join(d, "out", "series.csv"), start)
    m.pop("curve")
    m["peak_outward_mm_s"] = 1e3 * vout
    return m


def inertia(d, mass, start=T.SETTLE, smooth=20):
    """M a / A (Pa) of walls of `mass` following run d's side walls, mean,
    min and max over 10 % to 25 % strain (central differences over
    `smooth` steps)."""
    with open(os.path.join(d, "out", "series.csv"), encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if float(r["time"]) >= start - 1e-9]
    lx, ly, lz = ([float(r["cell_size_" + k]) for r in rows] for k in "xyz")
    w, out = smooth, []
    for i in range(w, len(rows) - w):
        eps = 1 - lz[i] / lz[0]
        a = sum((e[i + w] - 2 * e[i] + e[i - w]) / (w * H) ** 2 / 2 for e in (lx, ly)) / 2
        area = 0.5 * (ly[i] + lx[i]) * lz[i]
        if T.STRAIN[0] <= eps <= T.STRAIN[1]:
            out.append(mass * a / area)
    return {"mean": sum(out) / len(out), "min": min(out), "max": max(out)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cell", nargs="?")
    ap.add_argument("variants", nargs="*")
    ap.add_argument("--ndem", default=os.path.join(HERE, "..", "..", "build/release/ndem"))
    ap.add_argument("--work", default=os.path.join(HERE, "..", "..", "build/triaxial-walls"))
    ap.add_argument("--inertia", nargs=2, metavar=("RUN_DIR", "MASS"))
    args = ap.parse_args()
    if args.inertia:
        print(json.dumps(inertia(args.inertia[0], float(args.inertia[1]))))
        return 0
    cfgs = {c["triaxial_count"]: c for c in (T.QUICK, T.MEDIUM, T.FULL)}
    count, _, box = args.cell.partition(":")
    count = int(count)
    box = float(box) if box else cfgs[count]["triaxial_box"]
    ndem, work = os.path.abspath(args.ndem), os.path.abspath(args.work)
    prep = T.prep_measure(run(ndem, work, "prep-%d-%g" % (count, box), T.prep_job(count, box)))
    print("prepared: solid fraction %.3f (%.3f inside), cell %s m" % (
        prep["phi"], prep["phi_interior"],
        [round(b - a, 4) for a, b in zip(prep["min"], prep["max"])]), flush=True)
    for spec in args.variants:
        v = dict(mass=100.0, its=100, warm=1, settle=0.5, ramp=0.0)
        for kv in filter(None, spec.split(",")):
            k, _, x = kv.partition("=")
            if k not in v:
                raise SystemExit("no variant key %s" % k)
            v[k] = type(v[k])(float(x))
        T.SETTLE = v["settle"]
        j = T.shear_job(prep, v["mass"], v["its"], bool(v["warm"]), [0.91, 0.32])
        if v["ramp"]:
            j["scene"]["geometry"][0]["walls"]["ramp"] = v["ramp"]
        # the ramp's lag: the driven walls are velocity * ramp / 2 behind
        j["solver"]["duration"] = round(j["solver"]["duration"] + v["ramp"] / 2, 3)
        j["output"]["frame_interval"] = j["solver"]["duration"]
        name = "%d-%g-" % (count, box) + "-".join("%s%g" % kv for kv in sorted(v.items()))
        m = sides(run(ndem, work, name, j), v["settle"])
        print(name, json.dumps({k: round(x, 2) if isinstance(x, float) else x
                                for k, x in m.items()}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
