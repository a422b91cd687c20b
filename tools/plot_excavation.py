#!/usr/bin/env python3
"""tools/plot_excavation.py - the bucket's force trace of an excavation run.

usage: python3 tools/plot_excavation.py OUT_DIR/series.csv PNG

Plots |F| and Fx of the geometry named "bucket" (series.csv's bucket_fx ..
bucket_fz, docs/cli.md) against time, with the keyframe times of
tools/make_excavation.py as dashed lines, as a PNG with gnuplot (Debian's
gnuplot-nox, scripts/deps.sh validate). Each point is the mean over
AVERAGE steps: one step's force is noisy (docs/cli.md: impacts show as
p / h in their step). Standard library only.
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_excavation  # noqa: E402

AVERAGE = 8   # steps per point: 0.02 s at h = 2.5 ms


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8")))
    pts = []
    for i in range(0, len(rows) - AVERAGE + 1, AVERAGE):
        chunk = rows[i:i + AVERAGE]
        t = sum(float(r["time"]) for r in chunk) / len(chunk)
        fx = sum(float(r["bucket_fx"]) for r in chunk) / len(chunk)
        fmag = sum(math.sqrt(sum(float(r["bucket_f" + c]) ** 2 for c in "xyz"))
                   for r in chunk) / len(chunk)
        pts.append((t, fmag, fx))
    lines = "".join("set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb 'gray'\n"
                    % (k[0], k[0]) for k in make_excavation.KEYFRAMES[1:])
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        for p in pts:
            f.write("%g %g %g\n" % p)
        data = f.name
    script = ('set terminal pngcairo size 900,420 font "sans,10"\n'
              'set output "%s"\n'
              'set xlabel "time (s)"\nset ylabel "force on the bucket (N)"\n'
              'set key top left\nset grid\n%s'
              'plot "%s" using 1:2 with lines lw 2 title "|F|", '
              '"%s" using 1:3 with lines lw 2 title "F_x"\n') % (sys.argv[2], lines, data, data)
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    finally:
        os.unlink(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
