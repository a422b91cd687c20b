#!/usr/bin/env python3
"""Renders an ndem binary frame (docs/frames.md) to a PNG: an orthographic
view along -y, spheres shaded by depth and lighting, coloured by speed.
Standard library only, so it runs on a bare machine.

usage: tools/render_frame.py FRAME.ndf OUT.png [--width 800]
"""
import math
import struct
import sys
import zlib


def read_frame(path):
    b = open(path, "rb").read()
    if b[:4] != b"NDF1":
        raise SystemExit(f"{path}: not an NDF1 frame")
    hs, index, n = struct.unpack_from("<III", b, 4)
    fields, = struct.unpack_from("<I", b, 32)
    off = hs
    pos = rad = speed = None
    if fields & 1:
        pos = struct.unpack_from(f"<{3 * n}f", b, off)
        off += 12 * n
    if fields & 2:
        rad = struct.unpack_from(f"<{n}f", b, off)
        off += 4 * n
    if fields & 4:
        speed = struct.unpack_from(f"<{n}f", b, off)
    return n, pos, rad, speed


def colour(t):
    # blue -> cyan -> yellow -> red
    stops = [(0.15, 0.3, 0.8), (0.1, 0.8, 0.9), (0.95, 0.85, 0.2), (0.9, 0.2, 0.1)]
    t = min(max(t, 0.0), 1.0) * (len(stops) - 1)
    i = min(int(t), len(stops) - 2)
    f = t - i
    return tuple(stops[i][k] * (1 - f) + stops[i + 1][k] * f for k in range(3))


def write_png(path, w, h, rgb):
    raw = b"".join(b"\x00" + bytes(rgb[y * w * 3:(y + 1) * w * 3]) for y in range(h))
    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    open(path, "wb").write(png)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    width = int(sys.argv[sys.argv.index("--width") + 1]) if "--width" in sys.argv else 800
    n, pos, rad, speed = read_frame(sys.argv[1])
    xs = [pos[3 * i] for i in range(n)]
    zs = [pos[3 * i + 2] for i in range(n)]
    rmax = max(rad)
    x0, x1 = min(xs) - 2 * rmax, max(xs) + 2 * rmax
    z0, z1 = min(zs) - 2 * rmax, max(zs) + 2 * rmax
    scale = width / (x1 - x0)
    height = max(int((z1 - z0) * scale), 16)
    depth = [float("inf")] * (width * height)
    rgb = bytearray([250, 250, 252] * (width * height))
    vmax = max(max(speed), 1e-9) if speed else 1.0
    light = (-0.4, -0.6, 0.7)
    ln = math.sqrt(sum(c * c for c in light))
    light = tuple(c / ln for c in light)
    for i in range(n):
        cx, cy, cz, r = pos[3 * i], pos[3 * i + 1], pos[3 * i + 2], rad[i]
        base = colour(speed[i] / vmax if speed else 0.3)
        px, pz, pr = (cx - x0) * scale, (z1 - cz) * scale, r * scale
        for y in range(max(int(pz - pr), 0), min(int(pz + pr) + 1, height)):
            for x in range(max(int(px - pr), 0), min(int(px + pr) + 1, width)):
                dx, dz = (x + 0.5 - px) / pr, (pz - y - 0.5) / pr
                d2 = dx * dx + dz * dz
                if d2 > 1:
                    continue
                ny = -math.sqrt(1 - d2)  # facing the viewer (looking along +y)
                d = cy + ny * r
                k = y * width + x
                if d >= depth[k]:
                    continue
                depth[k] = d
                lam = max(0.0, dx * light[0] + ny * light[1] + dz * light[2])
                shade = 0.35 + 0.65 * lam
                rgb[3 * k:3 * k + 3] = bytes(int(255 * min(1, c * shade)) for c in base)
    write_png(sys.argv[2], width, height, rgb)


if __name__ == "__main__":
    main()
