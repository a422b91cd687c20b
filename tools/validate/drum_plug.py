#!/usr/bin/env python3
"""drum_plug.py - the drum's plug zone under each reading of Wang et al.'s
definition, from one run's snapshots (docs/validation.md, "The drum's plug
zone"; issue 14).

usage: drum_plug.py SNAPSHOTS.csv T_FROM [T_TO]

SNAPSHOTS.csv is what `ndem-probe --snapshots FILE --every K` writes (time, x,
y, z, vx, vy, vz, radius; every particle at every K-th step, in the same order
each time). The paper (section 4.3): "v_r = |v - r x Omega| / (R Omega)",
"v_r <= 0.15", "measured ... on a flow averaged over 2 s". Printed for the
snapshots from T_FROM to T_TO:

  A  instantaneous v_r, R the drum's radius (validate.py's measure)
  B  instantaneous, R the particle's own distance from the axis
  C  instantaneous, only particles more than 1 d from the end caps
  D  each particle's velocity relative to the drum averaged over the window
     (turned into the drum's frame before averaging)
  E  each particle's |v_r| averaged over the window
  F  each particle's displacement in the drum's frame over the window
  G  the flow field averaged over the window in cells of 1 d (x, z),
     a particle counting when its cell's mean flow is slow
and the share of particles below other thresholds (instantaneous, as A)."""
import collections
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import make_scenes as ms  # noqa: E402

OMEGA, RADIUS, WIDTH, D = ms.DRUM_OMEGA, ms.DRUM_RADIUS, ms.DRUM_WIDTH, ms.D
THRESHOLD = 0.15


def read(path, t_from, t_to):
    snaps = collections.OrderedDict()
    with open(path, encoding="utf-8") as f:
        f.readline()
        for line in f:
            t, x, y, z, vx, vy, vz, r = (float(v) for v in line.split(","))
            if t_from - 1e-9 <= t <= t_to + 1e-9:
                snaps.setdefault(round(t, 6), []).append((x, y, z, vx, vy, vz, r))
    return snaps


def rel(p):
    """v - Omega x r for the drum turning about +y: Omega x r = (omega z, 0, -omega x)."""
    x, _, z, vx, vy, vz, _ = p
    return (vx - OMEGA * z, vy, vz + OMEGA * x)


def to_drum(t, v):
    """A vector turned back by the drum's turn since t = 0 (about +y)."""
    c, s = math.cos(OMEGA * t), math.sin(OMEGA * t)
    return (c * v[0] - s * v[2], v[1], s * v[0] + c * v[2])


def norm(v):
    return math.sqrt(sum(a * a for a in v))


def mean_sd(v):
    m = sum(v) / len(v)
    return m, math.sqrt(sum((a - m) ** 2 for a in v) / len(v))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    t_from = float(sys.argv[2])
    t_to = float(sys.argv[3]) if len(sys.argv) > 3 else math.inf
    snaps = read(sys.argv[1], t_from, t_to)
    ts = list(snaps)
    if len(ts) < 2:
        sys.exit("drum_plug: fewer than two snapshots in the window")
    n, ref = len(snaps[ts[0]]), RADIUS * OMEGA
    print("%d snapshots from %.2f to %.2f s, %d particles" % (len(ts), ts[0], ts[-1], n))
    a, b, c, ang = [], [], [], []
    for t in ts:
        ka = kb = kc = nc = 0
        mx = mz = m = 0.0
        for p in snaps[t]:
            u = norm(rel(p))
            ka += u / ref <= THRESHOLD
            kb += u / (max(math.hypot(p[0], p[2]), 1e-9) * OMEGA) <= THRESHOLD
            if abs(p[1]) < WIDTH / 2 - D:
                nc += 1
                kc += u / ref <= THRESHOLD
            w = p[6] ** 3
            mx, mz, m = mx + w * p[0], mz + w * p[2], m + w
        a.append(ka / n)
        b.append(kb / n)
        c.append(kc / max(nc, 1))
        ang.append(math.degrees(math.atan2(abs(mx / m), -mz / m)))
    acc = [[0.0, 0.0, 0.0, 0.0] for _ in range(n)]
    for t in ts:
        for i, p in enumerate(snaps[t]):
            u = to_drum(t, rel(p))
            for q in range(3):
                acc[i][q] += u[q]
            acc[i][3] += norm(u)
    k = len(ts)
    d = sum(norm(s[:3]) / k / ref <= THRESHOLD for s in acc) / n
    e = sum(s[3] / k / ref <= THRESHOLD for s in acc) / n
    p0 = [to_drum(ts[0], x[:3]) for x in snaps[ts[0]]]
    p1 = [to_drum(ts[-1], x[:3]) for x in snaps[ts[-1]]]
    span = ts[-1] - ts[0]
    f = sum(math.dist(u, v) / span / ref <= THRESHOLD for u, v in zip(p0, p1)) / n
    cells = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    key = lambda p: (math.floor(p[0] / D), math.floor(p[2] / D))  # noqa: E731
    for t in ts:
        for p in snaps[t]:
            u, s = rel(p), cells[key(p)]
            for q in range(3):
                s[q] += u[q]
            s[3] += 1
    g = [sum(norm(cells[key(p)][:3]) / cells[key(p)][3] / ref <= THRESHOLD for p in snaps[t]) / n
         for t in ts]
    rows = [("A instantaneous, R the drum's radius", mean_sd(a)),
            ("B instantaneous, R the particle's distance", mean_sd(b)),
            ("C instantaneous, more than 1 d from the caps", mean_sd(c)),
            ("D mean velocity over the window (drum frame)", (d, 0.0)),
            ("E mean |v_r| over the window", (e, 0.0)),
            ("F displacement in the drum frame / window", (f, 0.0)),
            ("G flow field of 1 d cells over the window", mean_sd(g))]
    for name, (mu, sd) in rows:
        print("%-48s %5.1f%% +- %.1f" % (name, 100 * mu, 100 * sd))
    print("%-48s %5.1f +- %.1f" % ("dynamic angle of repose (deg)", *mean_sd(ang)))
    for th in (0.05, 0.1, 0.15, 0.3, 0.5):
        share = sum(sum(norm(rel(p)) / ref <= th for p in snaps[t]) for t in ts) / (n * k)
        print("share with instantaneous v_r <= %.2f: %.1f%%" % (th, 100 * share))


if __name__ == "__main__":
    main()
