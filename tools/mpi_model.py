#!/usr/bin/env python3
"""Communication against computation per step of `ndem run --mpi` for 10^6..10^9
particles on 1..1024 ranks (docs/scale-out.md, "A model past two ranks").

Measured on this machine (docs/scale-out.md gives the runs), as options:
  --us-per-particle  compute per particle and step on one core (bed-10k, 1 process)
  --sweeps           velocity exchanges per step (summary.json: sweeps / steps)
  --bytes-per-body   bytes a shared body costs a rank per exchange (24 out, 24 in)
Assumed network (not measurable here: one machine): --alpha (latency per
message, s), --beta (bytes per second per rank), --overhead (per extra message).

Geometry: a cube of N spheres of diameter d at packing fraction 0.6; the halo
is 1.55 d (2.1 r_max + the margin r_max, cli/mpi.c). The grid of blocks is the
one `--mpi` picks without gravity (core/decomp_grid.c: the factorisation of the
rank count with the least cut area; 2 ranks: slabs, 8: 2x2x2); a rank inside
the grid shares the halo around its block with up to 26 neighbours, so its
traffic per exchange grows as its block's surface, (N / P)^(2/3).
Weak scaling: 10^6 particles a rank.
"""
import argparse
import math

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--us-per-particle", type=float, required=True)
p.add_argument("--sweeps", type=float, required=True)
p.add_argument("--bytes-per-body", type=float, default=48.0)
p.add_argument("--alpha", type=float, default=2e-6)
p.add_argument("--beta", type=float, default=10e9)
p.add_argument("--overhead", type=float, default=0.3e-6)
a = p.parse_args()

nu = 0.6 / (math.pi / 6)  # spheres per d^3
halo = 1.55               # d


def grid(ranks):
    """The least cut area over a cube (ndem_grid_auto_dims without gravity)."""
    best = None
    for px in range(1, ranks + 1):
        for py in range(1, ranks // px + 1):
            if ranks % (px * py):
                continue
            d = (px, py, ranks // (px * py))
            area = sum(k - 1 for k in d)
            if best is None or area < best[0]:
                best = (area, d)
    return best[1]


def per_step(n_total, ranks):
    """(compute s, communication s, layout) per step for one rank inside the grid."""
    comp = a.us_per_particle * 1e-6 * n_total / ranks
    if ranks == 1:
        return comp, 0.0, "-"
    edge = (n_total / nu) ** (1 / 3)
    logp = math.log2(ranks)
    reductions = 3 * logp * a.alpha  # drift, statistics, impact decision
    d = grid(ranks)
    b = [edge / k for k in d]
    # the halo around the block along the cut axes (two sides inside the grid)
    grown = [b[q] + (2 * halo if d[q] > 2 else halo if d[q] == 2 else 0) for q in range(3)]
    shared = nu * (grown[0] * grown[1] * grown[2] - b[0] * b[1] * b[2])  # each way
    neighbours = (3 if d[0] > 2 else d[0]) * (3 if d[1] > 2 else d[1]) * (3 if d[2] > 2 else d[2]) - 1
    per_sweep = 2 * (a.alpha + (neighbours - 1) * a.overhead + shared * a.bytes_per_body / 2 / a.beta)
    return comp, a.sweeps * per_sweep + reductions, "%dx%dx%d" % d


print("| N | ranks | layout | compute ms/step | communication ms/step | efficiency |")
print("|---|---|---|---|---|---|")
for n in (1e6, 1e7, 1e8, 1e9):
    for ranks in (1, 2, 8, 64, 1024):
        comp, comm, layout = per_step(n, ranks)
        print("| %.0e | %d | %s | %.3g | %.3g | %.2f |" % (n, ranks, layout, 1e3 * comp, 1e3 * comm,
                                                          comp / (comp + comm)))
print()
print("Weak scaling, 10^6 particles a rank:")
print("| ranks | N | layout | communication ms/step | efficiency |")
print("|---|---|---|---|---|")
for ranks in (1, 2, 8, 64, 1024):
    comp, comm, layout = per_step(1e6 * ranks, ranks)
    print("| %d | %.0e | %s | %.3g | %.2f |" % (ranks, 1e6 * ranks, layout, 1e3 * comm, comp / (comp + comm)))
