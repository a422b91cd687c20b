"""tools/validate/report.py - writes docs/validation.md from the template
tools/validate/validation.md.in and the results of validate.py. The
template holds the prose; `{{name}}` is replaced by the generated block of
that name (tables, numbers, the list of runs). Standard library only."""
import datetime
import re

import shapepile
import triaxial


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def pct(x, digits=2):
    return "" if x in ("", None) else "%.*f%%" % (digits, 100 * x)


def column_blocks(res, cfg):
    if not res:
        return {"column_table": "_not run_", "column_summary": "_not run_"}
    req = {}
    for n, var, tol, it in res["required"]:
        req[(n, var, tol)] = it
    top = "> %d" % cfg["column_iterations"][-1]
    rows = []
    ratios = {(a, b, tol): [] for a, b in (("cold", "warm"), ("warm", "warm-beta1"))
              for tol in (0.001, 0.01, 0.05)}
    for n in cfg["column_counts"]:
        row = [n]
        for tol in (0.001, 0.01, 0.05):
            got = {v: req.get((n, v, tol), "") for v in ("warm", "cold", "warm-beta1")}
            row += ["%s / %s / %s" % tuple(got[v] if got[v] != "" else top
                                           for v in ("warm", "cold", "warm-beta1"))]
            for (a, b, t), lst in ratios.items():
                if t == tol and all(isinstance(got[v], int) for v in (a, b)):
                    lst.append(got[a] / got[b])
        rows.append(row)
    t = table(["particles", "0.1%: warm / cold / warm beta=1", "1%", "5%"], rows)
    parts = []
    for (a, b, tol), r in ratios.items():
        if r:
            parts.append("%s: %s needs %.1f times the iterations of %s on average "
                         "(%.1f to %.1f over %d column sizes)" % (
                             pct(tol, 1), a, sum(r) / len(r), b, min(r), max(r), len(r)))
    return {"column_table": t, "column_summary": "; ".join(parts) + "." if parts else "_no pairs_"}


PILE_VARIANTS = [  # (label, start, order) of the table "what converges faster"
    ("warm, beta = 0.85 (default)", "warm", "forward"),
    ("warm, beta = 1", "warm-beta1", "forward"),
    ("warm, symmetric sweep", "warm", "symmetric"),
    ("warm, reverse sweep", "warm", "reverse"),
    ("warm, wall rows first", "warm", "walls-first"),
    ("warm, wall rows last", "warm", "walls-last"),
    ("warm, normals only", "warm-normal", "forward"),
    ("cold", "cold", "forward"),
]
PILE_TOLERANCE = 0.05  # "within 5%" of the variants' table


def pile_blocks(res, cfg):
    if not res:
        return {"pile_table": "_not run_", "pile_reference": "_not run_", "orders_pile": "_not run_",
                "pile_variants": "_not run_", "levers_pile": "_not run_", "pile_count": str(cfg["pile_count"]) if cfg else "",
                "pile_rest": str(cfg["pile_rest"]) if cfg else ""}
    by = {}
    for start, order, it, h, hd, eps, msps, wall in res["rows"]:
        by[(start, order, it)] = (h, hd, eps, msps, wall)
    its = sorted({k[2] for k in by if k[1] == "forward"})
    rows = []
    for it in its:
        row = [it]
        for v in ("warm", "warm-normal", "cold", "warm-beta1"):
            x = by.get((v, "forward", it))
            row.append("%.2f d (%s)" % (x[1], pct(x[2], 1)) if x else "not run")
        rows.append(row)
    t = table(["iterations", "warm (all rows)", "warm (normals only)", "cold", "warm, beta = 1"],
              rows)
    ref, paper = res.get("ref"), res.get("paper_ref")
    if paper:
        rtxt = ("the errors are against the paper's reference pile (%s, run in %d pieces by "
                "`tools/validate/pile_ref.sh`): %.3f m = %.2f d (%d particles; the paper: about "
                "15 d)" % (res["ref_from"], len(paper.get("pieces", [])), paper["height"],
                           paper["height"] / 0.013, paper["particles"]))
        if ref:
            rtxt += "; this pass's h = %g ms pile: %.3f m = %.2f d (%s against it, %.0f s of " \
                    "wall time)" % (1e3 * res["ref_step"], ref["height"], ref["height"] / 0.013,
                                    pct((paper["height"] - ref["height"]) / paper["height"], 1),
                                    ref["wall_seconds"])
    elif ref:
        rtxt = "reference pile (%s): %.3f m = %.2f d (%d particles, %.0f s of wall time)" % (
            res["ref_from"], ref["height"], ref["height"] / 0.013, ref["particles"],
            ref["wall_seconds"])
    elif res.get("ref_height"):
        rtxt = ("the small-step reference has not run yet; the errors are against the %s pile, "
                "%.3f m = %.2f d" % (res["ref_from"], res["ref_height"], res["ref_height"] / 0.013))
    else:
        rtxt = "no reference pile has run yet"
    levers = res.get("levers", [])
    orows = []
    for (start, order, it), x in sorted(by.items(), key=lambda kv: (kv[0][2], kv[0][1])):
        if order in levers:
            continue  # levers_pile
        if start == "warm" and (order != "forward" or any(
                k[1] != "forward" and k[2] == it and k[1] not in levers for k in by)):
            orows.append([it, order, "%.2f d" % x[1], pct(x[2], 1), "%.2f" % x[3]])
    ot = table(["iterations", "order", "height", "error", "ms/step"], orows) if orows else "_not run_"
    return {"pile_table": t, "pile_reference": rtxt, "orders_pile": ot,
            "pile_variants": pile_variants(by, sorted({k[2] for k in by})),
            "levers_pile": pile_levers(by, levers),
            "pile_count": str(cfg["pile_count"]), "pile_rest": str(cfg["pile_rest"])}


def pile_levers(by, levers):
    """Issue 14's levers (validate.py PILE_LEVERS) beside the default (warm,
    forward) at the iteration counts they ran: height, error, the error
    against the default's (points), time per step and wall time."""
    rows = []
    for it in sorted({k[2] for k in by if k[1] in levers}):
        base = by.get(("warm", "forward", it))
        for order in ["forward"] + list(levers):
            x = by.get(("warm", order, it))
            if not x:
                continue
            gain = ("%+.1f" % (100 * (abs(base[2]) - abs(x[2])))
                    if base and base[2] != "" and x[2] != "" and order != "forward" else "")
            label = {"forward": "default (disc, impact stage): the pile study's run",
                     "default": "default, run again beside the levers"}.get(order, order)
            rows.append([it, label,
                         "%.2f d" % x[1], pct(x[2], 1), gain, "%.1f" % x[3], "%.0f" % x[4]])
    return table(["iterations", "lever", "height", "error", "points closer than the default",
                  "ms/step", "wall s"], rows) if rows else "_not run_"


def pile_variants(by, its):
    """Each variant's height error and wall time per iteration count, and the
    fewest iterations from which on the error stays within PILE_TOLERANCE."""
    rows = []
    for label, start, order in PILE_VARIANTS:
        got = [(it, by.get((start, order, it))) for it in its]
        if not any(x for _, x in got):
            continue
        cells = ["%s, %.0f s" % (pct(x[2], 1), x[4]) if x and x[2] != "" else "" for _, x in got]
        ran = [(it, x) for it, x in got if x and x[2] != ""]
        need = None
        for it, x in reversed(ran):
            if abs(x[2]) > PILE_TOLERANCE:
                break
            need = (it, x)
        if need:
            within = "%d (%.0f s, %.1f ms/step)" % (need[0], need[1][4], need[1][3])
        else:
            within = "none (ran %s)" % ", ".join(str(it) for it, _ in ran)
        rows.append([label] + cells + [within])
    return table(["variant"] + ["%d" % it for it in its] +
                 ["fewest iterations within %s (wall time)" % pct(PILE_TOLERANCE, 0)], rows)


def probe_blocks(res):
    if not res or not res["rows"]:
        return {"probe_table": "_not run_", "orders_probe": "_not run_", "probe_summary": "_not run_"}
    curves = {}
    wall = {}
    for start, order, k, rn, rf, rr, err, tot, w in res["rows"]:
        curves.setdefault((start, order), {})[k] = (rn, rf, rr, err, tot)
        wall[(start, order)] = w
    ks = [1, 5, 10, 25, 50, 100, 200]
    rows = []
    for (start, order), c in curves.items():
        rows.append(["%s, %s" % (start, order)] +
                    ["%.3g (%.3g)" % (c[k][4], c[k][3]) if k in c else "" for k in ks] +
                    ["%.3g / %.3g" % (c[1][1] + c[1][2], c[max(c)][1] + c[max(c)][2])])
    t = table(["start, order"] + ["after %d" % k for k in ks] +
              ["friction + rolling residual, first / last sweep"], rows)
    summ = []
    w, c = curves.get(("warm", "forward")), curves.get(("cold", "forward"))
    if w and c:
        for k in (1, 10, 50, 100):
            if k in w and k in c and w[k][4] > 0:
                summ.append("after %d sweep%s cold/warm = %.1f (eq. 13 literally: %.1f)" % (
                    k, "s" if k > 1 else "", c[k][4] / w[k][4],
                    c[k][3] / w[k][3] if w[k][3] > 0 else float("nan")))
    # sweeps to reach 1% multiplier error, per curve: the orders' comparison
    orows = []
    for (start, order), cv in curves.items():
        need = next((k for k in sorted(cv) if 0 <= cv[k][4] <= 0.01), None)
        us = 1e6 * wall[(start, order)]
        orows.append(["%s, %s" % (start, order), "%.3g" % cv[10][4] if 10 in cv else "",
                      need if need else "> %d" % max(cv), "%.3g" % us,
                      "%.3g" % (need * us / 1e3) if need else ""])
    ot = table(["start, order", "weighted error after 10", "sweeps to weighted error <= 1%",
                "us/sweep", "ms to 1%"], orows)
    return {"probe_table": t, "probe_summary": "; ".join(summ) + "." if summ else "",
            "orders_probe": ot}


def creep_blocks(res):
    if not res or not res["rows"]:
        return {"creep_table": "_not run_"}
    rows = [[name, it, "%.4g" % slope, "%.3g" % drop, "%.2g" % v2, "%.1f" % wall]
            for name, it, slope, drop, v2, wall in res["rows"]]
    return {"creep_table": table(["variant", "iterations", "centre of mass, mm/s",
                                  "top drop (mm)", "mean v^2/2 (J/kg)", "wall s"], rows)}


def drum_blocks(res, cfg):
    if not res or not res["rows"]:
        return {"drum_table": "_not run_", "drum_findings": "Drum: not run.", "drum_beta": "",
                "drum_pass_note": "no drum", "drum_count": str(cfg["drum_count"]) if cfg else ""}
    by = {(r[0], r[1]): r for r in res["rows"]}
    its = sorted({r[1] for r in res["rows"]})
    hi, lo = its[-1], its[0]

    def plug(v, it):
        r = by.get((v, it))
        return "%.0f%%" % (100 * r[2]) if r else "not run"

    def ang(v, it):
        r = by.get((v, it))
        return "%.0f" % r[4] if r else "not run"
    find = ("Drum (Figs. 12, 13; %d spheres): with %d iterations the plug zone is %s warm and %s "
            "cold (the paper: 58%% +- 5%% at 500) and the angle %s degrees warm, %s cold (the "
            "paper: 50 warm, 48 cold); with few iterations both fall, less with warm starting "
            "(%d iterations: %s warm, %s cold; angle %s and %s)." % (
                cfg["drum_count"], hi, plug("warm", hi), plug("cold", hi), ang("warm", hi),
                ang("cold", hi), lo, plug("warm", lo), plug("cold", lo), ang("warm", lo),
                ang("cold", lo)))
    b, w = by.get(("warm-beta1", hi)), by.get(("warm", hi))
    verdict = ""
    if b and w:
        verdict = (": more of the drum co-rotates rigidly, the full-strength history keeping "
                   "contacts stuck" if b[2] > w[2] + 0.05 else
                   ": about the same" if abs(b[2] - w[2]) <= 0.05 else ": less co-rotates")
    beta = ("in the drum it gives a plug zone of %s at %d iterations and %s at %d, against %s "
            "(beta = 0.85) and %s (cold) at %d%s." % (
                plug("warm-beta1", lo), lo, plug("warm-beta1", hi), hi, plug("warm", hi),
                plug("cold", hi), hi, verdict))
    note = "drum of %d spheres%s" % (cfg["drum_count"], " (QUICK)" if cfg["drum_count"] < 4864
                                     else "")
    def mean_flow(rest):  # older passes did not measure it
        return "%.1f%%" % (100 * rest[0]) if rest and rest[0] is not None else "-"
    rows = [[it, start, "%.1f%% +- %.1f" % (100 * p, 100 * psd), mean_flow(rest),
             "%.1f +- %.1f" % (a, asd), n]
            for start, it, p, psd, a, asd, n, wall, *rest in sorted(res["rows"],
                                                                   key=lambda r: (r[1], r[0]))]
    return {"drum_table": table(["iterations", "start", "plug fraction",
                                 "plug fraction, 2 s mean flow", "angle (deg)", "snapshots"], rows),
            "drum_findings": find, "drum_beta": beta, "drum_pass_note": note,
            "drum_count": str(cfg["drum_count"])}


STUDIES = ("column", "probe", "creep", "drum", "pile", "triaxial", "shapepile")  # page order


# study -> its blocks' writer (res, cfg); res None: not run
BLOCKS = {
    "column": column_blocks,
    "probe": lambda res, cfg: probe_blocks(res),
    "creep": lambda res, cfg: creep_blocks(res),
    "drum": drum_blocks,
    "pile": pile_blocks,
    "triaxial": lambda res, cfg: triaxial.blocks(res, cfg, table),
    "shapepile": lambda res, cfg: shapepile.blocks(res, cfg, table),
}


def study_blocks(k, res, cfg, label):
    """The generated blocks of study k's section (res None: not run)."""
    return dict(BLOCKS[k](res, cfg), **{"source_" + k: "(%s pass)" % label})


def block_owners():
    """block name -> study, from the blocks each study writes when not run."""
    return {name: k for k in STUDIES for name in study_blocks(k, None, None, "")}


def provenance_line(k, res, cfg, meta):
    """The line of "What produced this page" for study k run now."""
    expected = {
        "column": 3 * len(cfg["column_counts"]) * len(cfg["column_iterations"]),
        "pile": 1 + 4 * len(cfg["pile_iterations"]) +
        meta.get("pile_orders", 2) * len(cfg["orders_iterations"]) +
        meta.get("pile_lever_runs", 0),
        "drum": 3 * len(cfg["drum_iterations"]),
        "probe": meta.get("probe_variants", 7),
        "creep": meta["creep_variants"],
        "triaxial": 2 * len(cfg["triaxial_iterations"]) + len(cfg["triaxial_masses"]) - 1,
        "shapepile": len(shapepile.PILES),
    }[k]
    r = res or {}
    got = {
        "column": len(r.get("runs", [])),
        "pile": len(r.get("rows", [])) + (1 if r.get("ref") else 0),
        "drum": len(r.get("rows", [])),
        "probe": len(r.get("res", {})),
        "creep": len(r.get("rows", [])),
        "triaxial": len(r.get("rows", [])),
        "shapepile": len(r.get("rows", [])),
    }[k]
    label, work = meta["sources"][k]
    wall, _, first, last = meta["times"][k]
    return ("- %s: %s pass, %d of %d runs done%s, %s to %s UTC, %.0f s of wall time "
            "in all (preparations included); runs in `%s/runs/`" % (
                k, label, got, expected,
                "" if got == expected else " (**the rest has not run yet**)", first,
                last, wall, work))


def provenance(sections, meta):
    lines = ["- page written %s UTC on %s (this invocation: %.0f s, regenerated: %s; the others' "
             "sections are kept from their last generation, docs/data/validation/)" % (
                 datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
                 meta["machine"], meta["elapsed"], ", ".join(meta["regenerated"]) or "none"),
             "- every run: release build, one OpenMP thread, `nice`, on a machine shared with "
             "other work (wall times are indicative only)"]
    for k in STUDIES:
        sec = sections.get(k)
        lines.append(sec["provenance"] if sec else "- %s: not run" % k)
    return "\n".join(lines)


def settings(sections):
    """One list per pass and set of settings, naming the studies that used it."""
    groups = []  # (label, settings, [studies])
    for k in STUDIES:
        sec = sections.get(k)
        if not sec or sec.get("settings") is None:
            continue
        for label, cfg, names in groups:
            if label == sec["pass"] and cfg == sec["settings"]:
                names.append(k)
                break
        else:
            groups.append((sec["pass"], sec["settings"], [k]))
    return "\n\n".join("%s pass (%s):\n\n" % (label, ", ".join(names)) +
                       "\n".join("- `%s`: %s" % (key, v) for key, v in cfg.items())
                       for label, cfg, names in groups)


def write(template, out, sections, meta):
    """sections: study -> {"pass", "settings", "provenance", "blocks"}, the
    studies run now and those kept from before alike."""
    blocks = {"provenance": provenance(sections, meta), "settings": settings(sections)}
    for k in STUDIES:
        sec = sections.get(k)
        blocks.update(sec["blocks"] if sec else study_blocks(k, None, None, "not run"))
    with open(template, encoding="utf-8") as f:
        text = f.read()
    missing = set(re.findall(r"\{\{(\w+)\}\}", text)) - set(blocks)
    if missing:
        raise SystemExit("validation.md.in: no block named %s" % ", ".join(sorted(missing)))
    text = re.sub(r"\{\{(\w+)\}\}", lambda m: blocks[m.group(1)], text)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
