"""tools/validate/shapepile.py - issue 18's validation 5 for validate.py:
piles of cubes and of spheres of the same bounding radius, material and pour;
the cube pile stands steeper. Its scenes, the angle of a pile, the study and
its blocks of docs/validation.md.

The pour is the pile of bench/pile.json (d = 13 mm ore from a source 3 d wide,
20 d above the steel floor of an inside box 0.6 m wide, N / 80 s of pouring,
h = 5 ms, 50 warm iterations), measured REST s after the source closes. Three piles: cubes whose bounding
sphere has the pellets' radius, spheres of that radius with the same
contact materials, and the ore spheres of the pile study (rolling resistance
0.32, which stands in for the pellets' shape and which a shaped particle's
material may not set: docs/job.md).

The angle (`pile_angle`, tests/test_shape_pile.c measures it the same way):
the surface is the highest point (centre + bounding radius) in each ring of
width r about the pile's axis (the particles' mean x, y); the base is the
lowest ring (the skirt of one layer), the top the highest; the angle is the
least-squares slope of the rings outside the top whose height above the base
is between 20 % and 80 % of the top's. No pile above the first layer (the
top less than 2 r above the base): 0."""
import json
import math
import os

REST = 5.0
BOX = 0.3  # m, half the floor's side: 46 d, past the cube pile's foot (0.24 m at 2000)
PILES = ("cube", "sphere", "sphere-rolling")
CUBE = {"type": "polyhedron",
        "vertices": [[x, y, z] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)]}
QUICK = {"shapepile_count": 300}
MEDIUM = {"shapepile_count": 1000}
FULL = {"shapepile_count": 2000}


def job(ms, count, kind):
    j = ms.pile()
    em = j["scene"]["emitters"][0]
    stop = ms.rnd(count / ms.PILE_EFFECTIVE_RATE)
    em["max_count"], em["stop"] = count, stop
    # the same floor, walled: spheres without rolling resistance roll on
    # over a plane until they leave the scene
    j["scene"]["geometry"] = [{"type": "box", "inside": True, "min": [-BOX, -BOX, 0.0],
                               "max": [BOX, BOX, 0.5], "material": "steel"}]
    if kind != "sphere-rolling":
        for cm in j["scene"]["contact_materials"]:
            cm.pop("rolling_resistance", None)  # refused with shapes
            cm["twisting_resistance"] = 0.0     # shapes have no twisting rows of their own
    if kind == "cube":
        em["shape"] = CUBE
    j["name"] = "shapepile-%d-%s" % (count, kind)
    j["solver"]["duration"] = ms.rnd(stop + REST)
    j["output"] = {"frame_interval": ms.rnd(stop + REST)}
    return j


def pile_angle(positions, radii):
    """(angle in degrees, top above base, base, flank rings fitted)."""
    n = len(radii)
    if n == 0:
        return 0.0, 0.0, 0.0, 0
    r = max(radii)
    cx = sum(positions[3 * i] for i in range(n)) / n
    cy = sum(positions[3 * i + 1] for i in range(n)) / n
    top = {}
    for i in range(n):
        k = int(math.hypot(positions[3 * i] - cx, positions[3 * i + 1] - cy) / r)
        top[k] = max(top.get(k, -math.inf), positions[3 * i + 2] + radii[i])
    base, peak = min(top.values()), max(top.values())
    if peak - base < 2 * r:
        return 0.0, peak - base, base, 0
    k_peak = min(k for k in top if top[k] == peak)
    pts = [((k + 0.5) * r, top[k]) for k in sorted(top)
           if k > k_peak and 0.2 <= (top[k] - base) / (peak - base) <= 0.8]
    if len(pts) < 2:
        return 0.0, peak - base, base, len(pts)
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    sxy = sum((x - mx) * (y - my) for x, y in pts)
    return math.degrees(math.atan(-sxy / sxx)), peak - base, base, len(pts)


def study(run, cfg, ms, read_final, write_csv):
    n = cfg["shapepile_count"]

    def measure(d):
        fin, summ = read_final(d)
        ang, height, base, rings = pile_angle(fin["positions"], fin["radii"])
        return {"angle": ang, "height": height, "base": base, "rings": rings,
                "particles": fin["particles"], "ms_per_step": summ.get("ms_per_step")}
    res = run.run_all([run.ndem_run("shapepile-%d-%s" % (n, k), job(ms, n, k), {}, measure)
                       for k in PILES])
    rows = []
    for k in PILES:
        r = res.get("shapepile-%d-%s" % (n, k))
        if r:
            rows.append([k, r["particles"], r["angle"], r["height"], r["rings"], r["ms_per_step"],
                         r["wall_seconds"]])
    write_csv(run, "shapepile.csv", ["pile", "particles", "angle_deg", "height", "flank_rings",
                                     "ms_per_step", "wall_seconds"], rows)
    return {"rows": rows, "count": n}


def blocks(res, cfg, table):
    if not res or not res.get("rows"):
        return {"shapepile_count": str(cfg["shapepile_count"]) if cfg else "",
                "shapepile_table": "(not run)", "shapepile_findings": "not run yet."}
    names = {"cube": "cubes", "sphere": "spheres, same material",
             "sphere-rolling": "spheres, ore (rolling resistance 0.32)"}
    rows = [[names[k], p, "%.1f" % a, "%.1f" % (1e3 * h), fl, "%.1f" % (ms or 0), "%.0f" % w]
            for k, p, a, h, fl, ms, w in res["rows"]]
    got = {r[0]: r for r in res["rows"]}
    find = "not all three piles have run yet."
    if all(k in got for k in PILES):
        c, s, sr = (got[k][2] for k in PILES)
        find = ("the cube pile stands at %.1f degrees, the spheres of the same material at %.1f "
                "(%s): the cubes stand %s. The ore spheres, whose rolling resistance 0.32 stands "
                "in for the pellets' shape, stand at %.1f, %s the cubes." % (
                    c, s, "they roll out over the floor, at most two layers deep" if s == 0.0
                    else "a pile", "steeper" if c > s else "**not** steeper", sr,
                    "above" if sr > c else "below"))
    return {"shapepile_count": str(res["count"]),
            "shapepile_table": table(["pile", "particles", "angle (deg)", "top above base (mm)",
                                      "flank rings", "ms/step", "wall s"], rows),
            "shapepile_findings": find}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


if __name__ == "__main__":  # the angle of a run's final.json: shapepile.py FINAL.json ...
    import sys
    for p in sys.argv[1:]:
        fin = load(p)
        print(os.path.basename(os.path.dirname(p)), "%.2f deg, top %.4f m above base %.4f m, "
              "%d rings" % pile_angle(fin["positions"], fin["radii"]))
