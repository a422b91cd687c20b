#!/usr/bin/env python3
"""tools/make_bucket.py - writes an excavator-bucket-like open mesh as binary STL.

usage: python3 tools/make_bucket.py OUT.stl [--width W] [--radius R] [--depth D]
                                            [--segments N]

The bucket (docs/excavation.md), in its own coordinates (metres): a curved
shell, two flat side plates, a plain lip (no teeth), open at the front.

- The shell's cross-section in the x-z plane is a half circle of radius R
  about the origin, from the bottom (0, -R) round the back (-R, 0) to the top
  (0, R), then a flat floor from the bottom forward to the lip at
  x = D - R, z = -R: D is the depth from the back to the lip (D >= R).
- The shell spans y = -W/2 .. W/2; each end is closed by a side plate, a
  fan from the lip over the half circle's points.
- The mouth (the straight line from the lip to the top of the shell, across
  the width) is open: the mesh is an open shell, not a closed solid. Faces
  are two-sided in ndem (docs/meshes.md), so an open shell holds particles.

The origin (the half circle's centre) is the reference point a job's
`position` and keyframes move. The half circle has N segments (default 24).
Output is deterministic: the same parameters give the same bytes.
Standard library only.
"""
import argparse
import math
import struct
import sys

WIDTH = 0.16       # m, across the mouth (y)
RADIUS = 0.05      # m, the shell's curvature
DEPTH = 0.11       # m, back to lip (x)
SEGMENTS = 24


def bucket_triangles(width=WIDTH, radius=RADIUS, depth=DEPTH, segments=SEGMENTS):
    """Triangles (three (x, y, z) corners each) of the bucket."""
    if not (width > 0 and radius > 0 and depth >= radius and segments >= 2):
        raise ValueError("need width > 0, radius > 0, depth >= radius, segments >= 2")
    hw = width / 2
    # the profile from the bottom round the back to the top (angle from -90
    # to +90 degrees through 180)
    arc = []
    for k in range(segments + 1):
        a = -math.pi / 2 - math.pi * k / segments
        arc.append((radius * math.cos(a), radius * math.sin(a)))
    arc = [(round(x, 12) + 0.0, round(z, 12) + 0.0) for x, z in arc]
    lip = (round(depth - radius, 12), -radius)
    tris = []

    def quad(p, q):  # the strip between profile points p and q across the width
        a, b = (p[0], -hw, p[1]), (q[0], -hw, q[1])
        c, d = (q[0], hw, q[1]), (p[0], hw, p[1])
        tris.append((a, b, c))
        tris.append((a, c, d))

    if depth > radius:
        quad(lip, arc[0])                       # the floor, lip to bottom
    for k in range(segments):
        quad(arc[k], arc[k + 1])                # the curved shell
    for y, flip in ((-hw, False), (hw, True)):  # side plates
        for k in range(segments):
            p = (lip[0], y, lip[1])
            q = (arc[k][0], y, arc[k][1])
            r = (arc[k + 1][0], y, arc[k + 1][1])
            tris.append((p, r, q) if flip else (p, q, r))
    return tris


def binary_stl(tris, name="bucket"):
    """Binary STL bytes: 80-byte header, count, 50 bytes per triangle."""
    out = bytearray(name.encode("ascii")[:80].ljust(80, b" "))
    out += struct.pack("<I", len(tris))
    for a, b, c in tris:
        u = [b[i] - a[i] for i in range(3)]
        v = [c[i] - a[i] for i in range(3)]
        n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
        s = math.sqrt(sum(x * x for x in n)) or 1.0
        out += struct.pack("<3f", *(x / s for x in n))
        for p in (a, b, c):
            out += struct.pack("<3f", *p)
        out += b"\0\0"
    return bytes(out)


def main():
    ap = argparse.ArgumentParser(description="Writes an excavator-bucket-like open mesh (binary STL).")
    ap.add_argument("out")
    ap.add_argument("--width", type=float, default=WIDTH)
    ap.add_argument("--radius", type=float, default=RADIUS)
    ap.add_argument("--depth", type=float, default=DEPTH)
    ap.add_argument("--segments", type=int, default=SEGMENTS)
    args = ap.parse_args()
    try:
        tris = bucket_triangles(args.width, args.radius, args.depth, args.segments)
    except ValueError as e:
        print("make_bucket: %s" % e, file=sys.stderr)
        return 2
    with open(args.out, "wb") as f:
        f.write(binary_stl(tris))
    return 0


if __name__ == "__main__":
    sys.exit(main())
