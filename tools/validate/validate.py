#!/usr/bin/env python3
"""tools/validate/validate.py - the convergence study of `make validate`.

Reproduces the experiments of Wang, Servin and Berglund, "Warm starting the
projected Gauss-Seidel algorithm for granular matter simulation" (Computational
Particle Mechanics, 2016), section 4, with the release `ndem` and `ndem-probe`
(tools/validate/probe.c): the column (Fig. 3), the pile (Figs. 6, 7, 8) and
the rotating drum (Figs. 12, 13), and the sweep-order investigation of issue
14. Writes one CSV per figure into --work, plots them with gnuplot into
docs/images/validation-*.png and regenerates docs/validation.md from
tools/validate/validation.md.in. Python 3 standard library only.

usage: validate.py [--pass full|medium|quick] [--quick] [--only STUDY,...]
                   [--set KEY=JSON] [--report-only] [--no-plots] [--jobs N]
                   [--ndem PATH] [--probe PATH] [--work DIR]

Every run keeps its result in WORK/runs/NAME/result.json; a run whose result
exists is not run again, so an interrupted study resumes, and --report-only
writes the CSVs, plots and docs/validation.md from the results at hand
(missing runs are named as not run). --quick: a coarse subset on smaller
scenes, the same code paths, a few minutes; --pass medium: the same with the
pile at 1000 spheres. A study the pass has not run is shown from the next
smaller pass that has, and the page says so. --only STUDY,...: only those
studies' sections are regenerated; every other study's section is taken
unchanged from docs/data/validation/STUDY.json (tools/validate/sections.py),
where each section is saved when generated. tools/validate/restore_pile.py
takes the pile runs of the saved section's CSVs as run where their folders are
gone, so that only new pile runs (levers, orders) run.
"""
import argparse
import concurrent.futures
import datetime
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import make_scenes as ms  # noqa: E402  (the standard scenes' materials and solver)
import triaxial  # noqa: E402  (tools/validate/triaxial.py: section 4.4)
import shapepile  # noqa: E402  (tools/validate/shapepile.py: issue 18's validation 5)

# ---- the study's settings: full (the paper's where affordable) and quick ----
FULL = {
    "column_counts": [5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    "column_iterations": [5, 10, 15, 20, 30, 40, 50, 70, 100, 150, 200, 300, 400, 500],
    "column_duration": 5.0,
    "pile_count": ms.PILE_COUNT,
    "pile_rest": ms.PILE_REST,
    "pile_iterations": [10, 20, 50, 100, 200, 500],
    # The paper's reference is h = 0.2 ms; 260,000 steps of 500 iterations
    # take about 5 h on one core here: pile_ref.sh runs it in pieces and the
    # study reads its carried result (paper_reference); this pass runs 1 ms.
    "pile_ref_step": 0.001,
    "probe_settle_iterations": 100,  # Fig. 9's N_it
    "probe_sweeps": 500,
    "probe_steps": 10,               # probed steps averaged (one step is noisy)
    "orders_iterations": [50, 100],
    "creep_seconds": 5.0,
    "drum_start": ms.DRUM_START,
    "drum_count": ms.DRUM_COUNT,
    "drum_prepare": 20.0,
    "drum_adapt": 3.0,
    "drum_average": 2.0,            # the paper's 2 s
    "drum_iterations": [10, 25, 50, 100, 200, 500],
    **triaxial.FULL,
    **shapepile.FULL,
}
QUICK = {
    "column_counts": [5, 10, 25, 50],
    "column_iterations": [5, 10, 20, 50, 100, 200, 500],
    "column_duration": 3.0,
    "pile_count": 300,
    "pile_rest": 3.0,
    "pile_iterations": [10, 50, 200],
    "pile_ref_step": 0.0025,
    "probe_settle_iterations": 100,
    "probe_sweeps": 200,
    "probe_steps": 5,
    "orders_iterations": [50],
    "creep_seconds": 3.0,
    "drum_start": 1200,
    "drum_count": 1200,
    "drum_prepare": 4.0,
    "drum_adapt": 1.0,
    "drum_average": 1.0,
    "drum_iterations": [10, 50, 200],
    **triaxial.QUICK,
    **shapepile.QUICK,
}
# MEDIUM: the QUICK pass with the paper's pile shrunk to 1000 spheres (about
# 15 minutes): the pile's creep, probe and formation at a size where a
# pile has a bulk; the triaxial cell at 1000 spheres up to 1000 iterations
MEDIUM = dict(QUICK, pile_count=1000, **triaxial.MEDIUM, **shapepile.MEDIUM)
PASSES = {"full": FULL, "medium": MEDIUM, "quick": QUICK}  # in the page's order of preference
VARIANTS = {  # name: (warm_start, environment, solver fields)
    "warm": (True, {}, {}),
    "warm-normal": (True, {"NDEM_WARM_ROWS": "normal"}, {}),
    "cold": (False, {}, {}),
    # the warm start at full strength (beta = 1 instead of the paper's 0.85):
    # the investigation's candidate (docs/validation.md, "Why the pile ...")
    "warm-beta1": (True, {}, {"warm_start_factor": 1.0}),
}
COLUMN_VARIANTS = ("warm", "cold", "warm-beta1")
DRUM_VARIANTS = ("warm", "cold", "warm-beta1")
ORDERS = {  # sweep orders of the investigation: environment of the engine
    "forward": {},
    "reverse": {"NDEM_SWEEP": "reverse"},
    "symmetric": {"NDEM_SWEEP": "symmetric"},
    "walls-first": {"NDEM_SWEEP": "walls-first"},  # rows on static geometry in colours of their own
    "walls-last": {"NDEM_SWEEP": "walls-last"},    # Box2D v3's place for its static contacts
    "serial": {"NDEM_OVERFLOW": "all"},
}
# the orders the pile forms with besides forward (study_pile): warm, orders_iterations
PILE_ORDERS = ("symmetric", "reverse", "walls-first", "walls-last")
PROBE_VARIANTS = [("warm", "forward"), ("cold", "forward"), ("warm", "reverse"),  # study_probe
                  ("cold", "reverse"), ("warm", "symmetric"), ("cold", "symmetric"),
                  ("warm", "serial"), ("warm", "walls-first"), ("warm", "walls-last")]
# ---- issue 14's levers: the projection and the impact stage (study_pile) ----
# name: (environment, solver fields, orders_iterations they run at). The auto
# impact threshold is 0.02 d / h = 0.052 m/s at the pile's 5 ms; 10 times it
# still takes every sphere falling from the source (2.3 m/s) as an impact.
PILE_LEVERS = {
    "default": ({}, {}, None),  # the default again, at the levers' load: their wall times' yardstick
    "box": ({"NDEM_PROJECTION": "box"}, {}, None),             # Wang et al. 2016, App. A: each row clamped
    "disc-previous": ({"NDEM_PROJECTION": "disc-previous"}, {}, [50]),  # last normal bounds
    "noimpact": ({}, {"impact_iterations": 0}, None),          # no impact stage
    "impact-reach1": ({"NDEM_IMPACT_REACH": "1"}, {}, None),  # impacting bodies' rows only
    "impact-3": ({}, {"impact_iterations": 3}, [50]),          # 3 impact sweeps, not 10
    "vimp-x10": ({}, {"impact_velocity": 0.52}, None),         # threshold 10 x the auto one
}


# the projections on the resting pile (study_probe, study_creep): the impact
# levers change nothing there (no contact is impacting at rest)
PROBE_LEVERS = [("warm", "box"), ("warm", "disc-previous")]
CREEP_LEVERS = [("warm-50-box", 50, [], PILE_LEVERS["box"][0]),
                ("warm-50-disc-previous", 50, [], PILE_LEVERS["disc-previous"][0])]


def variant_env(order):
    """The engine's environment of a sweep order or of a lever."""
    return ORDERS[order] if order in ORDERS else PILE_LEVERS[order][0]


def pile_lever_tasks(run, cfg, n, rest, measure):
    """The levers' pile runs, warm, at orders_iterations (or their own)."""
    tasks = []
    for lever, (env, fields, its) in PILE_LEVERS.items():
        for it in its or cfg["orders_iterations"]:
            tasks.append((it, lever, fields, env))
    out = []
    for it, lever, fields, env in sorted(tasks, key=lambda t: t[0]):  # the fewer iterations first
        out.append(run.ndem_run("pile-%d-warm-%d-%s" % (n, it, lever),
                                pile_job(n, rest, ms.PILE_TIME_STEP, it, True, fields),
                                env, measure))
    return out


def pile_lever_rows(res, cfg, n, ref_h):
    """pile_height.csv's rows of the levers (the order column names them)."""
    rows = []
    for lever, (_, _, its) in PILE_LEVERS.items():
        for it in its or cfg["orders_iterations"]:
            r = res.get("pile-%d-warm-%d-%s" % (n, it, lever))
            if r:
                eps = (ref_h - r["height"]) / ref_h if ref_h else ""
                rows.append(["warm", lever, it, r["height"], r["height"] / ms.D, eps,
                             r["ms_per_step"], r["wall_seconds"]])
    return rows


PLUG_THRESHOLD = 0.15  # v_r <= 0.15 (paper, section 4.3)


def solver(h, duration, iterations, warm):
    s = ms.solver(h, duration, iterations)
    s["warm_start"] = warm
    return s


def column_job(n, iterations, var, duration):
    warm, _, fields = VARIANTS[var]
    spheres = [[0, 0, ms.rnd((2 * k + 1) * ms.R), ms.R] for k in range(n)]
    return {"name": "column-%d" % n,
            "scene": ms.scene([{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1],
                                "material": "steel"}],
                              [{"type": "list", "material": "ore", "spheres": spheres}],
                              twisting=0.0),
            "solver": dict(solver(ms.COLUMN_TIME_STEP, duration, iterations, warm), **fields),
            "output": {"frame_interval": duration}}


def hertz_column_height(n):
    """tests/scene.h's hertz_column_height for the ore column on steel."""
    nu = ms.ORE["poisson_ratio"]
    e_o, e_s = ms.ORE["young_modulus"], ms.STEEL["young_modulus"]
    m = ms.ORE["density"] * 4 / 3 * math.pi * ms.R ** 3
    w = m * -ms.GRAVITY[2]
    k_pp = e_o * math.sqrt(2 * ms.R) / (3 * (1 - nu * nu))
    e_w = 2 * e_o * e_s / (e_o + e_s)
    k_w = e_w * math.sqrt(2 * 2 * ms.R) / (3 * (1 - nu * nu))
    h = 2 * ms.R * n - (n * w / k_w) ** (2 / 3)
    for k in range(1, n):
        h -= ((n - k) * w / k_pp) ** (2 / 3)
    return h


def pile_job(count, rest, h, iterations, warm, fields=None):
    job = ms.pile()
    em = job["scene"]["emitters"][0]
    stop = ms.rnd(count / ms.PILE_EFFECTIVE_RATE)
    em["max_count"], em["stop"] = count, stop
    job["name"] = "pile-%d" % count
    job["solver"] = dict(solver(h, ms.rnd(stop + rest), iterations, warm), **(fields or {}))
    job["output"] = {"frame_interval": ms.rnd(stop + rest)}
    return job


def drum_job(start, count, duration, iterations, warm):
    job = ms.drum()
    job["scene"]["particles"][0]["count"] = start
    if count > start:
        job["scene"]["emitters"][0]["max_count"] = count - start
    else:
        del job["scene"]["emitters"]
    job["solver"] = solver(ms.DRUM_TIME_STEP, duration, iterations, warm)
    job["output"] = {"frame_interval": duration}
    return job


# ---- running ----
class Runner:
    def __init__(self, args):
        self.ndem, self.probe = os.path.abspath(args.ndem), os.path.abspath(args.probe)
        self.work = os.path.abspath(args.work)
        self.jobs = args.jobs
        self.report_only = args.report_only
        self.log = open(os.path.join(self.work, "progress.log"), "a", encoding="utf-8")

    def say(self, msg):
        line = "%s %s" % (datetime.datetime.now(datetime.timezone.utc).strftime("%H:%M:%S"), msg)
        print(line, flush=True)
        self.log.write(line + "\n")
        self.log.flush()

    def result(self, name):
        path = os.path.join(self.work, "runs", name, "result.json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        return None

    def _exec(self, name, job, argv, env, measure):
        d = os.path.join(self.work, "runs", name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "job.json"), "w", encoding="utf-8") as f:
            json.dump(job, f, indent=1)
        full_env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE", **env)
        argv = [a.replace("{dir}", d) for a in argv]
        t0 = time.time()
        p = subprocess.run(argv, env=full_env, cwd=d, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        wall = time.time() - t0
        with open(os.path.join(d, "log.txt"), "w", encoding="utf-8") as f:
            f.write(" ".join(argv) + "\n" + p.stdout + p.stderr)
        if p.returncode != 0:
            self.say("FAILED %s (exit %d), see %s/log.txt" % (name, p.returncode, d))
            return None
        r = measure(d)
        r.update({"wall_seconds": round(wall, 2), "env": env,
                  "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")})
        with open(os.path.join(d, "result.json"), "w", encoding="utf-8") as f:
            json.dump(r, f, indent=1)
        self.say("done %s (%.1f s)" % (name, wall))
        return r

    def run_all(self, tasks):
        """tasks: (name, job, argv, env, measure); runs the missing ones
        (--jobs at a time, one thread each) and returns {name: result}."""
        out = {}
        todo = []
        for t in tasks:
            r = self.result(t[0])
            if r is not None:
                out[t[0]] = r
            elif not self.report_only:
                todo.append(t)
        if todo:
            self.say("running %d runs (%d cached)" % (len(todo), len(out)))
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs) as ex:
            futs = {ex.submit(self._exec, *t): t[0] for t in todo}
            for f in concurrent.futures.as_completed(futs):
                r = f.result()
                if r is not None:
                    out[futs[f]] = r
        return out

    def ndem_run(self, name, job, env, measure):
        return (name, job, [self.ndem, "run", "job.json", "--out", "{dir}/out", "--quiet",
                            "--no-vtk", "--threads", "1"], env, measure)


def read_final(d):
    with open(os.path.join(d, "out", "final.json"), encoding="utf-8") as f:
        fin = json.load(f)
    with open(os.path.join(d, "out", "summary.json"), encoding="utf-8") as f:
        summ = json.load(f)
    shutil.rmtree(os.path.join(d, "out", "frames"), ignore_errors=True)
    return fin, summ


def top_of(fin):
    p, r = fin["positions"], fin["radii"]
    return max(p[3 * i + 2] + r[i] for i in range(len(r))) if r else 0.0


def ms_per_step(summ):
    return summ.get("ms_per_step")


# ---- studies ----
def study_column(run, cfg):
    tasks = []
    for n in cfg["column_counts"]:
        for var in COLUMN_VARIANTS:
            for it in cfg["column_iterations"]:
                job = column_job(n, it, var, cfg["column_duration"])

                def measure(d, n=n):
                    fin, summ = read_final(d)
                    top, l = top_of(fin), hertz_column_height(n)
                    return {"height": top, "hertz": l, "eps": (l - top) / l,
                            "eps_compression": (l - top) / (2 * ms.R * n - l),
                            "ms_per_step": ms_per_step(summ)}
                tasks.append(run.ndem_run("column-%d-%s-%d" % (n, var, it), job, {}, measure))
    res = run.run_all(tasks)
    rows, req = [], []
    for n in cfg["column_counts"]:
        for var in COLUMN_VARIANTS:
            got = [(it, res.get("column-%d-%s-%d" % (n, var, it))) for it in cfg["column_iterations"]]
            for it, r in got:
                if r:
                    rows.append([n, var, it, r["height"], r["hertz"], r["eps"], r["eps_compression"],
                                 r["wall_seconds"]])
            for tol in (0.001, 0.01, 0.05):
                need = required(got, tol)
                if any(r is None for _, r in got):
                    need = "not run"
                req.append([n, var, tol, "" if need is None else need])
    write_csv(run, "column_runs.csv", ["particles", "start", "iterations", "height", "hertz_height",
                                       "eps_height", "eps_compression", "wall_seconds"], rows)
    req.sort(key=lambda r: (r[2], r[1], r[0]))  # a curve's rows together: gnuplot joins them
    write_csv(run, "column_required.csv", ["particles", "start", "tolerance", "iterations"], req)
    return {"runs": rows, "required": req}


def required(got, tol, key="eps"):
    """The fewest iterations of the grid from which on every run (all larger
    iteration counts) is within tol; None if not all ran or none is."""
    if any(r is None for _, r in got):
        return None
    need = None
    for it, r in reversed(got):
        if abs(r[key]) <= tol:
            need = it
        else:
            break
    return need


def study_pile(run, cfg):
    n, rest = cfg["pile_count"], cfg["pile_rest"]
    tasks = []

    def measure(d):
        fin, summ = read_final(d)
        return {"height": top_of(fin), "particles": fin["particles"],
                "ms_per_step": ms_per_step(summ)}
    ref = "pile-%d-ref" % n
    tasks.append(run.ndem_run(ref, pile_job(n, rest, cfg["pile_ref_step"], 500, True), {}, measure))
    for var, (warm, env, fields) in VARIANTS.items():
        for it in cfg["pile_iterations"]:
            tasks.append(run.ndem_run("pile-%d-%s-%d" % (n, var, it),
                                      pile_job(n, rest, ms.PILE_TIME_STEP, it, warm, fields), env,
                                      measure))
    # (the serial order runs one row at a time, ~40 times slower: probe only)
    for order in PILE_ORDERS:
        for it in cfg["orders_iterations"]:
            tasks.append(run.ndem_run("pile-%d-warm-%d-%s" % (n, it, order),
                                      pile_job(n, rest, ms.PILE_TIME_STEP, it, True),
                                      ORDERS[order], measure))
    tasks += pile_lever_tasks(run, cfg, n, rest, measure)
    res = run.run_all(tasks)
    r_ref = res.get(ref)
    paper = paper_reference(n)
    # the paper's own reference when it is carried for this count, else the
    # pass's small-step one; without either the 500-iteration warm pile stands in
    ref_h, ref_from = None, None
    if paper:
        ref_h, ref_from = paper["height"], "h = %g ms, 500 iterations" % (1e3 * paper["time_step"])
    elif r_ref:
        ref_h, ref_from = r_ref["height"], "h = %g ms, 500 iterations" % (1e3 * cfg["pile_ref_step"])
    elif res.get("pile-%d-warm-500" % n):
        ref_h, ref_from = res["pile-%d-warm-500" % n]["height"], "h = 5 ms, 500 warm iterations (stand-in)"
    rows = []
    for var in VARIANTS:
        for it in cfg["pile_iterations"]:
            r = res.get("pile-%d-%s-%d" % (n, var, it))
            if r:
                eps = (ref_h - r["height"]) / ref_h if ref_h else ""
                rows.append([var, "forward", it, r["height"], r["height"] / ms.D, eps,
                             r["ms_per_step"], r["wall_seconds"]])
    for order in PILE_ORDERS:
        for it in cfg["orders_iterations"]:
            r = res.get("pile-%d-warm-%d-%s" % (n, it, order))
            if r:
                eps = (ref_h - r["height"]) / ref_h if ref_h else ""
                rows.append(["warm", order, it, r["height"], r["height"] / ms.D, eps,
                             r["ms_per_step"], r["wall_seconds"]])
    rows += pile_lever_rows(res, cfg, n, ref_h)
    write_csv(run, "pile_height.csv", ["start", "order", "iterations", "height", "height_d",
                                       "eps_height", "ms_per_step", "wall_seconds"], rows)
    refs = [[paper["time_step"], paper["iterations"], paper["height"], paper["height"] / ms.D,
             ""]] if paper else []
    if r_ref:
        refs.append([cfg["pile_ref_step"], 500, r_ref["height"], r_ref["height"] / ms.D,
                     r_ref["wall_seconds"]])
    write_csv(run, "pile_reference.csv", ["step", "iterations", "height", "height_d",
                                          "wall_seconds"], refs)
    return {"rows": rows, "ref": r_ref, "ref_height": ref_h, "ref_from": ref_from, "count": n,
            "paper_ref": paper, "ref_step": cfg["pile_ref_step"], "levers": list(PILE_LEVERS)}


PAPER_REF = os.path.join(ROOT, "docs/data/validation/pile-ref-h0.2/result.json")


def paper_reference(count):
    """The paper's reference pile (h = 0.2 ms, 500 iterations), run in pieces
    by tools/validate/pile_ref.sh and carried in the repository; None until it
    has finished, or when this pass's pile has another count."""
    if not os.path.exists(PAPER_REF):
        return None
    with open(PAPER_REF, encoding="utf-8") as f:
        r = json.load(f)
    return r if r.get("particles") == count else None


def study_probe(run, cfg):
    """Figs. 7, 8 and the sweep orders: a pile formed with 500 warm
    iterations, then 1 s with N_it = 100 warm or cold (or warm in another
    sweep order), then one probe step of 500 sweeps."""
    n, rest = cfg["pile_count"], cfg["pile_rest"]
    job = pile_job(n, rest, ms.PILE_TIME_STEP, 500, True)
    prep = "probe-%d-prepare" % n
    prep_dir = os.path.join(run.work, "runs", prep)
    dur = job["solver"]["duration"]

    def measure_prep(d):
        return {"state": os.path.join(d, "state.ckpt"), "prepared_seconds": dur}
    run.run_all([(prep, job, [run.probe, "job.json", "--prepare", str(dur), "--save",
                              "{dir}/state.ckpt"], {}, measure_prep)])
    tasks = []
    variants = PROBE_VARIANTS + PROBE_LEVERS

    def measure(d):
        rows = []
        with open(os.path.join(d, "probe.csv"), encoding="utf-8") as f:
            head = f.readline()
            f.readline()
            for line in f:
                rows.append([float(x) for x in line.split(",")])
        meta = dict(kv.split("=") for kv in head[2:].split())
        return {"rows": rows, "contacts": int(meta["contacts"]),
                "wall_solve": float(meta["wall_solve"]), "kinetic": float(meta["kinetic"])}
    ckpt = os.path.join(prep_dir, "state.ckpt")
    for start, order in variants:
        argv = [run.probe, os.path.join(prep_dir, "job.json"), "--load", ckpt, "--iterations",
                str(cfg["probe_settle_iterations"]), "--settle", "1", "--sweeps",
                str(cfg["probe_sweeps"]), "--steps", str(cfg["probe_steps"]), "--out",
                "{dir}/probe.csv"]
        if start == "cold":
            argv.append("--cold")
        tasks.append(("probe-%d-%s-%s" % (n, start, order), job, argv, variant_env(order),
                      measure))
    res = run.run_all(tasks) if run.result(prep) else {}
    rows = []
    for start, order in variants:
        r = res.get("probe-%d-%s-%s" % (n, start, order))
        if r:
            per_sweep = r["wall_solve"] / cfg["probe_sweeps"]
            for row in r["rows"]:
                rows.append([start, order, int(row[0])] + row[1:] + [per_sweep])
    write_csv(run, "pile_probe.csv", ["start", "order", "sweep", "residual_normal",
                                      "residual_friction", "residual_rolling", "multiplier_error",
                                      "multiplier_error_total", "wall_per_sweep"], rows)
    return {"rows": rows, "res": res, "variants": variants}


# The resting pile's creep: from the state the probe study prepared (500
# warm iterations), each variant runs creep_seconds; the slope of the centre
# of mass height and the top's drop say whether the pile holds. Variants:
# (name, iterations, extra ndem-probe arguments, environment).
CREEP = [
    ("warm-500", 500, [], {}),
    ("warm-200", 200, [], {}),
    ("warm-100", 100, [], {}),
    ("warm-50", 50, [], {}),
    ("warm-25", 25, [], {}),
    ("cold-200", 200, ["--cold"], {}),
    ("cold-100", 100, ["--cold"], {}),
    ("cold-50", 50, ["--cold"], {}),
    ("warm-normal-50", 50, [], {"NDEM_WARM_ROWS": "normal"}),
    ("warm-50-beta1", 50, ["--factor", "1"], {}),
    ("warm-25-beta1", 25, ["--factor", "1"], {}),
    ("warm-50-noimpact", 50, ["--impact-iterations", "0"], {}),
    ("warm-50-reverse", 50, [], ORDERS["reverse"]),
    ("warm-50-symmetric", 50, [], ORDERS["symmetric"]),
    ("warm-50-walls-first", 50, [], ORDERS["walls-first"]),
    ("warm-50-walls-last", 50, [], ORDERS["walls-last"]),
]


def creep_metrics(path):
    snaps = {}
    with open(path, encoding="utf-8") as f:
        f.readline()
        for line in f:
            t, x, y, z, vx, vy, vz, r = (float(v) for v in line.split(","))
            s = snaps.setdefault(t, [0.0, 0.0, 0.0, 0])
            s[0] += z
            s[1] = max(s[1], z + r)
            s[2] += 0.5 * (vx * vx + vy * vy + vz * vz)
            s[3] += 1
    ts = sorted(snaps)
    zc = [snaps[t][0] / snaps[t][3] for t in ts]
    tm, zm = mean(ts), mean(zc)
    den = sum((t - tm) ** 2 for t in ts)
    slope = sum((t - tm) * (z - zm) for t, z in zip(ts, zc)) / den if den > 0 else 0.0
    return {"times": ts, "z_cm": zc, "top": [snaps[t][1] for t in ts],
            "slope_mm_s": 1e3 * slope, "top_drop_mm": 1e3 * (snaps[ts[0]][1] - snaps[ts[-1]][1]),
            "v2_mean": mean([snaps[t][2] / snaps[t][3] for t in ts])}


def study_creep(run, cfg):
    n = cfg["pile_count"]
    prep_dir = os.path.join(run.work, "runs", "probe-%d-prepare" % n)
    if not run.result("probe-%d-prepare" % n):
        return {"rows": []}
    with open(os.path.join(prep_dir, "job.json"), encoding="utf-8") as f:
        job = json.load(f)
    every = int(round(1.0 / ms.PILE_TIME_STEP))
    tasks = []

    def measure(d):
        m = creep_metrics(os.path.join(d, "snapshots.csv"))
        os.remove(os.path.join(d, "snapshots.csv"))
        return m
    for name, it, extra, env in CREEP + CREEP_LEVERS:
        argv = [run.probe, os.path.join(prep_dir, "job.json"), "--load",
                os.path.join(prep_dir, "state.ckpt"), "--iterations", str(it), "--settle",
                str(cfg["creep_seconds"]), "--snapshots", "{dir}/snapshots.csv", "--every",
                str(every)] + extra
        tasks.append(("creep-%d-%s" % (n, name), job, argv, env, measure))
    res = run.run_all(tasks)
    rows = []
    for name, it, extra, env in CREEP + CREEP_LEVERS:
        r = res.get("creep-%d-%s" % (n, name))
        if r:
            rows.append([name, it, r["slope_mm_s"], r["top_drop_mm"], r["v2_mean"],
                         r["wall_seconds"]])
    write_csv(run, "pile_creep.csv", ["variant", "iterations", "z_cm_slope_mm_per_s",
                                      "top_drop_mm", "mean_v2_half", "wall_seconds"], rows)
    return {"rows": rows}


def drum_metrics(path, t_from):
    """Plug fraction (v_r <= 0.15) and the dynamic angle of repose (the centre
    of mass against the rotation, from the vertical) per snapshot; and the
    plug fraction of the flow averaged over the window (each particle's
    velocity relative to the drum, turned into the drum's frame and averaged
    over the snapshots: the paper measures "on a flow averaged over 2 s"),
    None when the particles are not the same in every snapshot."""
    omega, radius = ms.DRUM_OMEGA, ms.DRUM_RADIUS
    snaps = {}
    with open(path, encoding="utf-8") as f:
        f.readline()
        for line in f:
            t, x, y, z, vx, vy, vz, r = (float(v) for v in line.split(","))
            if t < t_from - 1e-9:
                continue
            s = snaps.setdefault(t, [0, 0, 0.0, 0.0, 0.0, []])
            # rigid co-rotation about +y: Omega x r = (omega z, 0, -omega x)
            u = (vx - omega * z, vy, vz + omega * x)
            vr = math.sqrt(u[0] ** 2 + u[1] ** 2 + u[2] ** 2) / (radius * omega)
            m = r ** 3
            s[0] += 1
            s[1] += vr <= PLUG_THRESHOLD
            s[2] += m * x
            s[3] += m * z
            s[4] += m
            # the same vector in the drum's frame (turned back by omega t about +y)
            c, sn = math.cos(omega * t), math.sin(omega * t)
            s[5].append((c * u[0] - sn * u[2], u[1], sn * u[0] + c * u[2]))
    plug, angle = [], []
    for t in sorted(snaps):
        cnt, pl, mx, mz, m, _ = snaps[t]
        plug.append(pl / cnt)
        angle.append(math.degrees(math.atan2(abs(mx / m), -mz / m)))
    counts = {len(s[5]) for s in snaps.values()}
    mean_flow = None
    if len(counts) == 1 and snaps:
        n, k = counts.pop(), len(snaps)
        acc = [[0.0, 0.0, 0.0] for _ in range(n)]
        for s in snaps.values():
            for i, u in enumerate(s[5]):
                for q in range(3):
                    acc[i][q] += u[q] / k
        mean_flow = sum(math.sqrt(a[0] ** 2 + a[1] ** 2 + a[2] ** 2) / (radius * omega)
                        <= PLUG_THRESHOLD for a in acc) / n
    return plug, angle, mean_flow


def study_drum(run, cfg):
    dur = cfg["drum_prepare"]
    job = drum_job(cfg["drum_start"], cfg["drum_count"], dur, 100, True)
    prep = "drum-%d-prepare" % cfg["drum_count"]
    prep_dir = os.path.join(run.work, "runs", prep)
    run.run_all([(prep, job, [run.probe, "job.json", "--prepare", str(dur), "--save",
                              "{dir}/state.ckpt"], {}, lambda d: {"prepared_seconds": dur})])
    settle = cfg["drum_adapt"] + cfg["drum_average"]
    every = int(round(0.1 / ms.DRUM_TIME_STEP))
    tasks = []

    def measure(d):
        plug, angle, mean_flow = drum_metrics(os.path.join(d, "snapshots.csv"),
                                              dur + cfg["drum_adapt"])
        os.remove(os.path.join(d, "snapshots.csv"))
        return {"plug": plug, "angle": angle, "plug_mean_flow": mean_flow}
    for var in DRUM_VARIANTS:
        for it in cfg["drum_iterations"]:
            argv = [run.probe, os.path.join(prep_dir, "job.json"), "--load",
                    os.path.join(prep_dir, "state.ckpt"), "--iterations", str(it), "--settle",
                    str(settle), "--snapshots", "{dir}/snapshots.csv", "--every", str(every)]
            if var == "cold":
                argv.append("--cold")
            if var == "warm-beta1":
                argv += ["--factor", "1"]
            tasks.append(("drum-%d-%s-%d" % (cfg["drum_count"], var, it), job, argv, {}, measure))
    res = run.run_all(tasks) if run.result(prep) else {}
    rows = []
    for var in DRUM_VARIANTS:
        for it in cfg["drum_iterations"]:
            r = res.get("drum-%d-%s-%d" % (cfg["drum_count"], var, it))
            if r and r["plug"]:
                p, a = r["plug"], r["angle"]
                rows.append([var, it, mean(p), sd(p), mean(a), sd(a), len(p), r["wall_seconds"],
                             r.get("plug_mean_flow")])
    write_csv(run, "drum.csv", ["start", "iterations", "plug_fraction", "plug_sd", "angle_deg",
                                "angle_sd", "snapshots", "wall_seconds", "plug_mean_flow"], rows)
    return {"rows": rows}


def mean(v):
    return sum(v) / len(v)


def sd(v):
    m = mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / len(v))


def write_csv(run, name, header, rows):
    with open(os.path.join(run.work, name), "w", encoding="utf-8") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(fmt(x) for x in r) + "\n")


def fmt(x):
    if isinstance(x, float):
        return "%.6g" % x
    return str(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="the same as --pass quick")
    ap.add_argument("--pass", dest="pass_", choices=list(PASSES), default="full")
    ap.add_argument("--only", default="column,probe,creep,drum,pile,triaxial,shapepile")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--no-plots", action="store_true", help="leave docs/images as it is")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--ndem", default=os.path.join(ROOT, "build/release/ndem"))
    ap.add_argument("--probe", default=os.path.join(ROOT, "build/release/ndem-probe"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build/validate"))
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs"))
    ap.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                    help="override a setting of the pass, e.g. pile_count=1000")
    args = ap.parse_args()
    if args.quick:
        args.pass_ = "quick"
    base = args.work
    args.work = base if args.pass_ == "full" else os.path.join(base, args.pass_)
    os.makedirs(args.work, exist_ok=True)
    cfg = dict(PASSES[args.pass_])
    for kv in args.set:
        key, _, value = kv.partition("=")
        if key not in cfg:
            raise SystemExit("validate: --set %s: no such setting" % key)
        cfg[key] = json.loads(value)
    run = Runner(args)
    t0 = time.time()
    only = args.only.split(",")
    studies = {"column": study_column, "probe": study_probe, "creep": study_creep,
               "drum": study_drum, "pile": study_pile,
               "triaxial": lambda r, c: triaxial.study(r, c, write_csv),
               "shapepile": lambda r, c: shapepile.study(r, c, ms, read_final, write_csv)}
    results, cfgs, sources = {}, {}, {}
    for name in ("column", "probe", "creep", "drum", "pile", "triaxial", "shapepile"):  # cheapest first
        if name in only:
            run.say("study %s" % name)
            results[name], cfgs[name] = studies[name](run, cfg), cfg
            sources[name] = (args.pass_, args.work)
    # a study this pass has no results of yet is shown from the next pass in
    # PASSES that has them (smaller), and named so
    order = list(PASSES)
    for other in order[order.index(args.pass_) + 1:]:
        oargs = argparse.Namespace(**dict(vars(args), work=os.path.join(base, other),
                                          report_only=True))
        if not os.path.isdir(oargs.work):
            continue
        orun = Runner(oargs)
        for name in results:
            if not has_rows(results[name]):
                results[name], cfgs[name] = studies[name](orun, PASSES[other]), PASSES[other]
                sources[name] = (other, oargs.work)
    prefixes = {"column": lambda c: "column-", "probe": lambda c: "probe-%d-" % c["pile_count"],
                "creep": lambda c: "creep-%d-" % c["pile_count"],
                "drum": lambda c: "drum-%d-" % c["drum_count"],
                "pile": lambda c: "pile-%d-" % c["pile_count"],
                "triaxial": lambda c: "triaxial-%d-" % c["triaxial_count"],
                "shapepile": lambda c: "shapepile-%d-" % c["shapepile_count"]}
    times = {k: run_times(sources[k][1], prefixes[k](cfgs[k])) for k in sources}
    import plots  # tools/validate/plots.py: gnuplot
    import report  # tools/validate/report.py: docs/validation.md
    import sections  # tools/validate/sections.py: each study's section kept on its own
    meta = {"machine": machine(), "creep_variants": len(CREEP + CREEP_LEVERS), "times": times,
            "probe_variants": len(PROBE_VARIANTS + PROBE_LEVERS), "pile_orders": len(PILE_ORDERS),
            "pile_lever_runs": sum(len(its or cfg["orders_iterations"])
                                   for _, _, its in PILE_LEVERS.values()),
            "sources": {k: (lab, os.path.relpath(w, ROOT)) for k, (lab, w) in sources.items()}}
    # the studies run now replace their sections; the others keep theirs from
    # docs/data/validation/, and so does one run now with no runs at hand or
    # from a smaller pass than its saved section's (MEDIUM=1 does not demote
    # the full pass: delete STUDY.json for that)
    secs, regenerated = {}, []
    for k in report.STUDIES:
        saved = sections.load(args.docs, k)
        if k in results and (saved is None or (
                has_rows(results[k]) and rank(sources[k][0]) <= rank(saved["pass"]))):
            lab, w = sources[k]
            secs[k] = sections.make(k, results[k], cfgs[k], lab, meta["sources"][k][1], meta)
            regenerated.append(k)
        elif saved is not None:
            secs[k] = saved
            if k in results:
                run.say("%s: %s, its %s pass section is kept from %s" % (
                    k, "no runs at hand" if not has_rows(results[k]) else
                    "the %s pass is smaller" % sources[k][0], saved["pass"], saved["written"]))
        else:
            run.say("%s: no runs and no saved section (%s): shown as not run" % (
                k, os.path.relpath(sections.path(args.docs, k), ROOT)))
    images = os.path.join(args.docs, "images")
    if not args.no_plots:
        plots.plot_all({k: (w, lab) for k, (lab, w) in sources.items() if k in regenerated},
                       images)
    meta.update(elapsed=time.time() - t0, regenerated=regenerated)
    report.write(os.path.join(HERE, "validation.md.in"), os.path.join(args.docs, "validation.md"),
                 secs, meta)
    for k in regenerated:
        sections.save(args.docs, secs[k], sources[k][1])
    run.say("wrote docs/validation.md (regenerated: %s), %s/validation-*.png and %s" % (
        ", ".join(regenerated) or "none", os.path.relpath(images, ROOT),
        os.path.relpath(sections.folder(args.docs), ROOT)))
    return 0


def run_times(work, prefix):
    """(wall seconds summed, runs, first and last date) of the runs named
    prefix* in work/runs: which runs produced a study's numbers, and when."""
    total, count, dates = 0.0, 0, []
    d = os.path.join(work, "runs")
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        path = os.path.join(d, name, "result.json")
        if name.startswith(prefix) and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                r = json.load(f)
            total += r.get("wall_seconds", 0.0)
            count += 1
            dates.append(r.get("date", ""))
    return total, count, min(dates) if dates else "", max(dates) if dates else ""


def rank(label):
    """A pass's place in PASSES, the full pass first; unknown ones last."""
    return list(PASSES).index(label) if label in PASSES else len(PASSES)


def has_rows(res):
    return bool(res) and any(bool(v) for k, v in res.items() if k in ("runs", "rows"))


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d cores" % (cpu, os.cpu_count() or 0)


if __name__ == "__main__":
    sys.exit(main())
