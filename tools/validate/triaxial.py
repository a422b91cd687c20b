"""tools/validate/triaxial.py - the triaxial test of Wang et al. (section 4.4,
Figs. 15 and 16) for validate.py: its scene, the critical deviator stress of a
run, the study (the stress-strain curves and the deviator against the
iterations, warm and cold), its figures (gnuplot) and its blocks of
docs/validation.md.

The paper's cell: six walls of 100 kg, 100 Pa on every side, then the top
and bottom walls driven inward at 0.01 m/s with the sides held at 100 Pa;
the critical deviator is the mean sigma_z - 100 Pa between 10 % and 25 %
strain (the paper writes "lateral strain"; the strain measured here is the
axial one, 1 - L_z / L_z(start)). E = 60 MPa, bi-disperse 13/10 mm, density
3700, e 0.18, mu 0.91, mu_r 0.32, h 5 ms (Table 1). The paper does not give
the cell's size nor the walls' friction: the cell here is a cube around a
random sample, its walls frictionless.

The preparation (`triaxial_prep`): "dense", the usual one, compresses the
random fill to 100 Pa with particle friction and rolling resistance off
(walls of 1 kg, PREP_TIME), then the shear runs start from that sample
(a `list` generator, the cell's faces where the preparation left them) with
the friction on, SETTLE at rest under 100 Pa, then the drive; every run of
a pass shears the same sample. "loose": the random fill compacted with the
friction on, in the same run as the shear (the study before issue 13's
sixth validation). No gravity: the sample's own weight over the cell's
floor (about 2.4 kPa for 1000 spheres) would dwarf the 100 Pa confinement."""
import csv
import json
import math
import os
import random

SIGMA = 100.0  # Pa, the hydrostatic stress
SPEED = 0.01   # m/s, each driven wall
STRAIN = (0.10, 0.25)

PREP_TIME = 3.0  # s: the frictionless compaction (1 kg walls settle in under 1 s)
SETTLE = 0.5     # s: the prepared sample at rest under 100 Pa, friction on

QUICK = {"triaxial_count": 400, "triaxial_box": 0.12, "triaxial_prep": "dense",
         "triaxial_wall_friction": [0.91, 0.32],
         "triaxial_iterations": [25, 50, 100, 200], "triaxial_masses": [1, 100]}
MEDIUM = {"triaxial_count": 1000, "triaxial_box": 0.16, "triaxial_prep": "dense",
          "triaxial_wall_friction": [0.91, 0.32],
          "triaxial_iterations": [25, 50, 100, 200, 500, 1000], "triaxial_masses": [1, 100]}
FULL = {"triaxial_count": 4000, "triaxial_box": 0.25, "triaxial_prep": "dense",
        "triaxial_wall_friction": [0.91, 0.32],
        "triaxial_iterations": [25, 50, 100, 200, 500, 1000], "triaxial_masses": [1, 100]}


def settle_time(mass):
    """The hydrostatic phase: walls of 100 kg close a loose sample in about
    4 s (1.4 N accelerate 100 kg), walls of 1 kg in under 1 s."""
    return 6.0 if mass >= 10 else 2.0


def job(count, box, mass, iterations, warm):
    m = 0.0065 * 1.05
    start = settle_time(mass)
    # to beyond 25 % strain of the settled sample (about 0.75 box)
    duration = start + 0.3 * 0.8 * box / (2 * SPEED)
    return {
        "name": "triaxial",
        "scene": {
            "gravity": [0, 0, 0],
            "materials": [{"name": "ore", "density": 3700, "young_modulus": 6e7},
                          {"name": "steel", "density": 7800, "young_modulus": 2e11}],
            "contact_materials": [
                {"materials": ["ore", "ore"], "friction": 0.91, "restitution": 0.18,
                 "rolling_resistance": 0.32},
                {"materials": ["ore", "steel"], "friction": 0.0, "restitution": 0.18}],
            "geometry": [{"type": "box", "name": "cell", "inside": True, "min": [0, 0, 0],
                          "max": [box] * 3, "material": "steel",
                          "walls": {"mass": mass, "stress": [SIGMA] * 3,
                                    "velocity": [None, None, SPEED], "start": start}}],
            "particles": [{"type": "random", "min": [m] * 3, "max": [box - m] * 3,
                           "count": count, "material": "ore", "seed": 1,
                           "radius": {"values": [0.0065, 0.005], "weights": [0.5, 0.5]}}]},
        "solver": {"time_step": 0.005, "duration": duration, "iterations": iterations,
                   "warm_start": warm},
        "output": {"frame_interval": duration},
    }


def materials(friction, rolling, walls=(0.0, 0.0)):
    """Table 1's contact between spheres, `walls` (friction, rolling
    resistance) between a sphere and a wall."""
    return {"materials": [{"name": "ore", "density": 3700, "young_modulus": 6e7},
                          {"name": "steel", "density": 7800, "young_modulus": 2e11}],
            "contact_materials": [
                {"materials": ["ore", "ore"], "friction": friction, "restitution": 0.18,
                 "rolling_resistance": rolling},
                {"materials": ["ore", "steel"], "friction": walls[0], "restitution": 0.18,
                 "rolling_resistance": walls[1]}]}


def prep_job(count, box):
    """The dense preparation: the random fill of job() under 100 Pa on
    every side, no friction, no rolling resistance, walls of 1 kg."""
    j = job(count, box, 1, 100, True)
    j["name"] = "triaxial-prep"
    j["scene"].update(materials(0.0, 0.0))
    j["scene"]["geometry"][0]["walls"]["velocity"] = [None, None, None]
    j["solver"]["duration"] = PREP_TIME
    j["output"]["frame_interval"] = PREP_TIME
    return j


def shear_job(prep, mass, iterations, warm, walls):
    """The shear of the prepared sample: its spheres where the preparation
    left them (at rest), the cell's faces there, friction on."""
    lo, hi = prep["min"], prep["max"]
    p, r = prep["positions"], prep["radii"]
    spheres = [[p[3 * i], p[3 * i + 1], p[3 * i + 2], r[i]] for i in range(len(r))]
    duration = SETTLE + 1.08 * STRAIN[1] * (hi[2] - lo[2]) / (2 * SPEED)
    return {
        "name": "triaxial",
        "scene": dict(materials(0.91, 0.32, walls), **{
            "gravity": [0, 0, 0],
            "geometry": [{"type": "box", "name": "cell", "inside": True, "min": lo, "max": hi,
                          "material": "steel",
                          "walls": {"mass": mass, "stress": [SIGMA] * 3,
                                    "velocity": [None, None, SPEED], "start": SETTLE}}],
            "particles": [{"type": "list", "material": "ore", "spheres": spheres}]}),
        "solver": {"time_step": 0.005, "duration": round(duration, 3), "iterations": iterations,
                   "warm_start": warm},
        "output": {"frame_interval": round(duration, 3)},
    }


def solid_fraction(fin, inset, samples=40000):
    """The solid fraction of the cell, and of its interior inset by `inset`
    from every wall (Monte Carlo, fixed seed: the walls' layering left out)."""
    g = fin["geometry"][0]
    lo, hi, p, r = g["min"], g["max"], fin["positions"], fin["radii"]
    vol = sum(4.0 / 3.0 * math.pi * x ** 3 for x in r)
    cell = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])
    h = 2 * max(r)
    grid = {}
    for i in range(len(r)):
        grid.setdefault(tuple(int(p[3 * i + k] // h) for k in range(3)), []).append(i)
    rnd, hit = random.Random(1), 0
    for _ in range(samples):
        x = [rnd.uniform(lo[k] + inset, hi[k] - inset) for k in range(3)]
        c = [int(x[k] // h) for k in range(3)]
        hit += any(sum((x[k] - p[3 * i + k]) ** 2 for k in range(3)) < r[i] ** 2
                   for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1)
                   for i in grid.get((c[0] + dx, c[1] + dy, c[2] + dz), ()))
    return vol / cell, hit / samples


def prep_measure(d):
    with open(os.path.join(d, "out", "final.json"), encoding="utf-8") as f:
        fin = json.load(f)
    g = fin["geometry"][0]
    phi, inner = solid_fraction(fin, 2 * 0.0065 * 0.89)  # about one mean diameter
    with open(os.path.join(d, "out", "series.csv"), encoding="utf-8") as f:
        last = list(csv.DictReader(f))[-1]
    return {"positions": fin["positions"], "radii": fin["radii"], "min": g["min"],
            "max": g["max"], "phi": phi, "phi_interior": inner,
            "stress": [float(last["cell_stress_" + k]) for k in "xyz"],
            "kinetic_energy": float(last["kinetic_energy"])}


def metrics(series_path, start):
    """The curve (strain, deviator, side stresses) from the start of the
    drive, and the means between 10 % and 25 % strain."""
    curve, dev, side, mdev, mside, ldev = [], [], [], [], [], []
    lz0 = lxy0 = None
    with open(series_path, encoding="utf-8") as f:
        for r in csv.DictReader(f):
            t = float(r["time"])
            if t < start - 1e-9:
                continue
            lz = float(r["cell_size_z"])
            lxy = float(r["cell_size_x"]) + float(r["cell_size_y"])
            if lz0 is None:
                lz0, lxy0 = lz, lxy
            eps = 1.0 - lz / lz0
            sx, sy, sz = (float(r["cell_stress_" + k]) for k in "xyz")
            # the seed's sigma_i = f_i / A_i: the motors' reading
            mx, my, mz = (float(r.get("cell_motor_stress_" + k, "nan")) for k in "xyz")
            curve.append((eps, sz - SIGMA, sx, sy, mz - SIGMA))
            # the paper's words, "lateral strain": the sides' mean growth
            if STRAIN[0] <= lxy / lxy0 - 1.0 <= STRAIN[1]:
                ldev.append(sz - SIGMA)
            if STRAIN[0] <= eps <= STRAIN[1]:
                dev.append(sz - SIGMA)
                side.append(0.5 * (sx + sy))
                mdev.append(mz - SIGMA)
                mside.append(0.5 * (mx + my))
    if not dev:
        return {"deviator": None, "side": None, "curve": curve[::5]}
    return {"deviator": sum(dev) / len(dev), "side": sum(side) / len(side),
            "side_min": min(side), "side_max": max(side), "samples": len(dev),
            "deviator_motor": sum(mdev) / len(mdev), "side_motor": sum(mside) / len(mside),
            "deviator_lateral": sum(ldev) / len(ldev) if ldev else None,
            "curve": curve[::5]}


def name(cfg, mass, var, it):
    return "triaxial-%d-m%g-%s-%d" % (cfg["triaxial_count"], mass, var, it)


def prep_name(cfg):
    return "triaxial-%d-prep" % cfg["triaxial_count"]


def study(run, cfg, write_csv):
    count, box = cfg["triaxial_count"], cfg["triaxial_box"]
    its = cfg["triaxial_iterations"]
    dense = cfg.get("triaxial_prep", "dense") == "dense"
    prep = None
    if dense:
        prep = run.run_all([run.ndem_run(prep_name(cfg), prep_job(count, box), {},
                                         prep_measure)]).get(prep_name(cfg))
        if prep is None:
            return {"rows": [], "curves": []}
    tasks = []
    sweep_mass = min(cfg["triaxial_masses"])
    plan = [(sweep_mass, var, it) for var in ("warm", "cold") for it in its]
    plan += [(m, "warm", max(its)) for m in cfg["triaxial_masses"] if m != sweep_mass]
    for mass, var, it in plan:
        start = SETTLE if dense else settle_time(mass)

        def measure(d, start=start):
            return metrics(os.path.join(d, "out", "series.csv"), start)
        walls = cfg.get("triaxial_wall_friction", [0.0, 0.0])
        if dense:
            j = shear_job(prep, mass, it, var == "warm", walls)
        else:
            j = job(count, box, mass, it, var == "warm")
            j["scene"].update(materials(0.91, 0.32, walls))
        tasks.append(run.ndem_run(name(cfg, mass, var, it), j, {}, measure))
    res = run.run_all(tasks)
    rows, curves = [], []
    for mass, var, it in plan:
        r = res.get(name(cfg, mass, var, it))
        if not r or r["deviator"] is None:
            continue
        rows.append([mass, var, it, r["deviator"], r["side"], r["side_min"], r["side_max"],
                     r["wall_seconds"], r.get("deviator_motor", float("nan")),
                     r.get("side_motor", float("nan"))])
        if it == max(its) or (mass == sweep_mass and var == "warm" and it == 100):
            for c in r["curve"]:
                curves.append(["%s-%g-kg-%d" % (var, mass, it)] + list(c[:4]))
    write_csv(run, "triaxial.csv", ["mass_kg", "start", "iterations", "deviator_pa",
                                    "side_pa", "side_min_pa", "side_max_pa", "wall_seconds",
                                    "deviator_motor_pa", "side_motor_pa"], rows)
    write_csv(run, "triaxial_curve.csv", ["run", "strain", "deviator_pa", "stress_x_pa",
                                          "stress_y_pa"], curves)
    out = {"rows": rows, "curves": sorted({c[0] for c in curves})}
    if prep:
        out["prep"] = {k: prep[k] for k in ("phi", "phi_interior", "stress", "min", "max",
                                            "kinetic_energy", "wall_seconds")}
    return out


# ---- figures (plots.py's FIGURES) ----
def plot_deviator(head, lc, work, out, label):
    f = os.path.join(work, "triaxial.csv")
    s = head.format(w=700, h=450, out=out)
    s += 'set title "Triaxial: critical deviator vs iterations (Wang et al. Fig. 15), %s"\n' % label
    s += "set xlabel 'iterations'\nset ylabel 'deviator stress (Pa)'\nset logscale x\n"
    s += "set key bottom right\nset yrange [0:2000]\n"
    # the paper's 1 +- 0.2 kPa
    s += "set object 1 rect from graph 0, first 800 to graph 1, first 1200 fc rgb '#dddddd' " \
         "fs solid 0.5 noborder behind\n"
    # the sweep's walls (the lightest of the pass, triaxial.study), then the others' points
    with open(f, encoding="utf-8") as fh:
        masses = sorted({float(r["mass_kg"]) for r in csv.DictReader(fh)})
    sweep = masses[0] if masses else 1.0
    s += "plot " + ", ".join(
        "'%s' using 3:((strcol(2) eq \"%s\" && $1 == %g) ? $4 : 1/0) with linespoints %s "
        "title '%s, walls of %g kg'" % (f, v, sweep, lc(v), v, sweep) for v in ("warm", "cold"))
    for m in masses[1:]:
        s += ", '%s' using 3:($1 == %g ? $4 : 1/0) with points pt 7 lc rgb 'black' " \
             "title 'warm, walls of %g kg'" % (f, m, m)
    return s + "\n"


def plot_curve(head, lc, work, out, label):
    f = os.path.join(work, "triaxial_curve.csv")
    runs = []
    with open(f, encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            r = line.split(",")[0]
            if r not in runs:
                runs.append(r)
    s = head.format(w=1100, h=450, out=out)
    s += 'set multiplot layout 1,2 title "Triaxial: stresses vs axial strain ' \
         '(Wang et al. Fig. 16), %s"\n' % label
    s += "set xlabel 'axial strain'\nset ylabel 'deviator sigma_z - 100 Pa (Pa)'\n"
    s += "set arrow 1 from 0.1, graph 0 to 0.1, graph 1 nohead dt 2\n"
    s += "set arrow 2 from 0.25, graph 0 to 0.25, graph 1 nohead dt 2\n"
    s += "plot " + ", ".join("'%s' using 2:(strcol(1) eq \"%s\" ? $3 : 1/0) with lines "
                             "title '%s'" % (f, r, r) for r in runs) + "\n"
    s += "set ylabel 'side stress (sigma_x + sigma_y) / 2 (Pa)'\n"
    s += "plot " + ", ".join("'%s' using 2:(strcol(1) eq \"%s\" ? ($4 + $5) / 2 : 1/0) with "
                             "lines title '%s'" % (f, r, r) for r in runs) + "\n"
    s += "unset multiplot\n"
    return s


# ---- docs/validation.md ----
def blocks(res, cfg, table):
    if not res or not res.get("rows"):
        return {"triaxial_table": "_not run_", "triaxial_findings": "_not run_",
                "triaxial_count": "", "triaxial_box": ""}
    rows = [[m, v, it, "%.0f" % d, "%.0f" % md, "%.1f" % s, "%.0f to %.0f" % (lo, hi),
             "%.1f" % ms, "%.0f" % w]
            for m, v, it, d, s, lo, hi, w, md, ms in res["rows"]]
    tab = table(["wall mass (kg)", "PGS start", "iterations", "critical deviator (Pa)",
                 "from the motor (Pa)", "mean side stress (Pa)", "side stress range (Pa)",
                 "side, motor (Pa)", "wall s"], rows)
    light = [r for r in res["rows"] if r[0] < 10]
    heavy = [r for r in res["rows"] if r[0] >= 10]
    lines = []
    for v in ("warm", "cold"):
        got = sorted((r[2], r[3]) for r in light if r[1] == v)
        if got:
            lines.append("- %s, light walls: the deviator goes %s Pa over %s iterations "
                         "(the paper: about 1000 +- 200 Pa, reached at >= 200 warm, 1000 cold)"
                         % (v, " -> ".join("%.0f" % d for _, d in got),
                            " -> ".join(str(i) for i, _ in got)))
    for r in heavy:
        lines.append("- walls of %g kg (%s, %d iterations): deviator %.0f Pa, sides %.0f Pa on "
                     "average, %.0f to %.0f Pa between 10 %% and 25 %% strain"
                     % (r[0], r[1], r[2], r[3], r[4], r[5], r[6]))
    prep = res.get("prep")
    if prep:
        size = [hi - lo for lo, hi in zip(prep["min"], prep["max"])]
        lines.insert(0, "- the dense preparation (%g s frictionless under 100 Pa, %.0f s of wall "
                     "time): a cell of %.1f x %.1f x %.1f mm, solid fraction %.3f (%.3f inside one "
                     "diameter from the walls), wall stresses %s Pa at its end"
                     % (PREP_TIME, prep["wall_seconds"], 1e3 * size[0], 1e3 * size[1],
                        1e3 * size[2], prep["phi"], prep["phi_interior"],
                        ", ".join("%.1f" % x for x in prep["stress"])))
    return {"triaxial_table": tab, "triaxial_findings": "\n".join(lines),
            "triaxial_count": str(cfg["triaxial_count"]),
            "triaxial_box": "%g" % cfg["triaxial_box"]}
