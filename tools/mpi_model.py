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
is 1.55 d (2.1 r_max + the margin r_max, cli/mpi.c). Slabs while they are at
least two halos and a margin thick (what cli/mpi.c demands), else the planned
3D grid of blocks (26 neighbours). Weak scaling: 10^6 particles a rank.
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
min_slab = 2 * halo + 0.5  # d


def per_step(n_total, ranks):
    """(compute s, communication s, layout) per step for one rank."""
    comp = a.us_per_particle * 1e-6 * n_total / ranks
    if ranks == 1:
        return comp, 0.0, "-"
    edge = (n_total / nu) ** (1 / 3)
    logp = math.log2(ranks)
    reductions = 3 * logp * a.alpha  # drift, statistics, impact decision
    if edge / ranks >= min_slab:  # slabs: two faces of edge^2
        shared = nu * edge * edge * halo  # per face, each way
        per_sweep = 2 * (a.alpha + a.overhead + shared * a.bytes_per_body / 2 / a.beta)
        layout = "slabs"
    else:  # blocks: 6 faces, 12 edges, 8 corners
        b = edge / ranks ** (1 / 3)
        shared = nu * (6 * b * b * halo + 12 * b * halo * halo + 8 * halo ** 3)
        per_sweep = 2 * (a.alpha + 26 * a.overhead + shared * a.bytes_per_body / 2 / a.beta)
        layout = "blocks"
    return comp, a.sweeps * per_sweep + reductions, layout


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
