"""tools/validate/plots.py - the figures of docs/validation.md, drawn by
gnuplot (Debian's gnuplot-nox, scripts/deps.sh validate) from the CSVs of
validate.py. Each figure is the counterpart of one of Wang et al.'s."""
import os
import subprocess

import triaxial

HEAD = """set terminal pngcairo size {w},{h} font "sans,10"
set output "{out}"
set datafile separator ","
set key top right
set grid
"""
# row filters on the CSVs' string columns
SEL = '(strcol({c}) eq "{v}" ? ${y} : 1/0)'


# one colour per variant in every figure
COLOUR = {"warm": "#9400d3", "cold": "#009e73", "warm-beta1": "#e69f00", "warm-normal": "#56b4e9"}


def lc(variant):
    return "lc rgb '%s'" % COLOUR.get(variant, "black")


def sel(col, val, y):
    return SEL.format(c=col, v=val, y=y)


def column_plot(work, out, label):
    f = os.path.join(work, "column_required.csv")
    s = HEAD.format(w=1200, h=420, out=out)
    s += 'set multiplot layout 1,3 title "Column: iterations for a height error (Wang et al. Fig. 3), %s"\n' % label
    s += "set xlabel 'particles'\nset ylabel 'iterations'\nset logscale y\nset yrange [1:1000]\n"
    for tol, name in ((0.001, "0.1%"), (0.01, "1%"), (0.05, "5%")):
        s += 'set title "eps_l = %s"\n' % name
        s += "plot "
        s += ", ".join(
            "'%s' using 1:((strcol(2) eq \"%s\" && abs($3 - %g) < 1e-9) ? $4 : 1/0) "
            "with linespoints %s title '%s'" % (f, v, tol, lc(v), v)
            for v in ("warm", "cold", "warm-beta1"))
        s += "\n"
    s += "unset multiplot\n"
    return s


def pile_plot(work, out, label):
    """Fig. 6's counterpart: the pile's height against the iterations, per
    warm start, with the small-step references (pile_reference.csv: the
    study's first) and the paper's figure (h = 0.2 ms, "about 15 d") as lines."""
    f = os.path.join(work, "pile_height.csv")
    refs = []
    with open(os.path.join(work, "pile_reference.csv"), encoding="utf-8") as g:
        g.readline()
        for line in g:
            step, _, _, height_d, _ = line.split(",")[:5]
            refs.append((float(step), float(height_d)))
    s = HEAD.format(w=800, h=520, out=out)
    s += 'set title "Pile height vs iterations, h = 5 ms (Wang et al. Fig. 6), %s"\n' % label
    s += "set xlabel 'iterations'\nset ylabel 'H / d'\nset logscale x\nset key bottom right\n"
    s += "set xrange [8:600]\nset yrange [0:17]\n"
    with open(f, encoding="utf-8") as g:
        g.readline()
        have = {tuple(line.split(",")[:2]) for line in g}  # the curves with points
    parts = ["15 with lines dt 4 lw 2 lc rgb 'gray50' title 'the paper (h = 0.2 ms): about 15 d'"]
    for i, ref in enumerate(refs):  # the first is the study's (the paper's step when carried)
        parts.append("%g with lines dt %d lc rgb '%s' title '%s, h = %g ms, 500 iterations: "
                     "%.2f d'" % (ref[1], 2 if i == 0 else 3, "black" if i == 0 else "gray30",
                                  "reference" if i == 0 else "also", 1e3 * ref[0], ref[1]))
    for v in ("warm", "warm-normal", "cold", "warm-beta1"):
        if (v, "forward") in have:
            parts.append("'%s' using 3:((strcol(1) eq \"%s\" && strcol(2) eq \"forward\") ? $5 : "
                         "1/0) with linespoints %s title '%s'" % (f, v, lc(v), v))
    for o in ("symmetric", "reverse", "walls-first", "walls-last"):
        if ("warm", o) in have:
            parts.append("'%s' using 3:(strcol(2) eq \"%s\" ? $5 : 1/0) with points ps 2 "
                         "title 'warm, %s order'" % (f, o, o))
    s += "plot " + ", ".join(parts) + "\n"
    return s


def probe_plot(work, out, label):
    f = os.path.join(work, "pile_probe.csv")
    s = HEAD.format(w=1200, h=480, out=out)
    s += 'set multiplot layout 1,2 title "Resting pile, one solve of many sweeps (Wang et al. Figs. 7, 8), %s"\n' % label
    s += "set xlabel 'sweep k'\nset logscale y\nset logscale x\n"
    curves = [("warm", "forward"), ("cold", "forward"), ("warm", "reverse"), ("cold", "reverse"),
              ("warm", "symmetric"), ("cold", "symmetric"), ("warm", "serial"),
              ("warm", "walls-first"), ("warm", "walls-last"), ("warm", "box"),
              ("warm", "disc-previous")]  # the last two: validate.py PROBE_LEVERS
    for title, y in (("multiplier error, eq. 13 weighted by load", "$8"),
                     ("mean residual, friction + rolling rows", "($5 + $6)")):
        s += 'set title "%s"\n' % title
        s += "set ylabel '%s'\n" % ("sum|l_K - l_k| / sum|l_K|" if y == "$8" else "residual")
        parts = []
        for st, o in curves:
            expr = y
            parts.append("'%s' using 3:((strcol(1) eq \"%s\" && strcol(2) eq \"%s\") ? %s : 1/0) "
                         "with lines lw 2 title '%s, %s'" % (f, st, o, expr, st, o))
        s += "plot " + ", ".join(parts) + "\n"
    s += "unset multiplot\n"
    return s


def drum_plot(work, out, label):
    f = os.path.join(work, "drum.csv")
    s = HEAD.format(w=1200, h=480, out=out)
    s += 'set multiplot layout 1,2 title "Rotating drum (Wang et al. Figs. 12, 13), %s"\n' % label
    s += "set xlabel 'iterations'\nset logscale x\nset xrange [5:1000]\n"
    s += 'set title "plug-zone fraction (v_r <= 0.15)"\nset ylabel "N_{plug} / N_p"\n'
    s += "set yrange [0:1]\n"
    s += ("plot 0.58 with lines dt 2 lc rgb 'gray' title 'paper at 500: 58%', "
          + ", ".join("'%s' using 2:%s:4 with yerrorlines %s title '%s'" % (f, sel(1, v, 3), lc(v), v)
                      for v in ("warm", "cold", "warm-beta1")) + "\n")
    s += 'set title "dynamic angle of repose"\nset ylabel "degrees"\nset yrange [20:70]\n'
    s += ("plot 48 with lines dt 2 lc rgb 'gray' title 'paper at 500: 48 (cold), 50 (warm)', "
          "50 with lines dt 2 lc rgb 'gray' notitle, "
          + ", ".join("'%s' using 2:%s:6 with yerrorlines %s title '%s'" % (f, sel(1, v, 5), lc(v), v)
                      for v in ("warm", "cold", "warm-beta1")) + "\n")
    s += "unset multiplot\n"
    return s


FIGURES = [("validation-column.png", "column", "column_required.csv", column_plot),
           ("validation-pile.png", "pile", "pile_height.csv", pile_plot),
           ("validation-probe.png", "probe", "pile_probe.csv", probe_plot),
           ("validation-drum.png", "drum", "drum.csv", drum_plot),
           ("validation-triaxial.png", "triaxial", "triaxial.csv",
            lambda w, o, lab: triaxial.plot_deviator(HEAD, lc, w, o, lab)),
           ("validation-triaxial-curve.png", "triaxial", "triaxial_curve.csv",
            lambda w, o, lab: triaxial.plot_curve(HEAD, lc, w, o, lab))]


def plot_all(sources, images):
    """sources: study -> (work folder, label of the pass). Draws every figure
    whose CSV has rows; returns the names drawn."""
    os.makedirs(images, exist_ok=True)
    drawn = []
    for name, study, csv, make in FIGURES:
        if study not in sources:
            continue
        work, label = sources[study]
        path = os.path.join(work, csv)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            if len(f.readlines()) < 2:
                continue
        script = make(work, os.path.join(images, name), label + " pass")
        with open(os.path.join(work, name + ".gp"), "w", encoding="utf-8") as f:
            f.write(script)
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        drawn.append(name)
    return drawn
