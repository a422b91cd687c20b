#!/usr/bin/env python3
"""bench/mesh_floor.py - the mesh broad-phase benchmark of docs/performance.md.

Writes two variants of a bed scene (default bench/bed-10k.json) into DIR:
  planes.json  the box container replaced by five analytic planes (floor and
               four walls, the open top never reached)
  mesh.json    the same, with the floor a triangle mesh of 2 n^2 triangles
               (n = 224: 100,352) covering the box's footprint
so that `bash bench/run.sh --quick DIR/planes.json DIR/mesh.json` compares
ms per step of a 10^5-triangle floor with the analytic plane.

usage: python3 bench/mesh_floor.py DIR [SCENE.json] [--cells N]
Standard library only."""
import json
import os
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = 224
    if "--cells" in sys.argv:
        n = int(sys.argv[sys.argv.index("--cells") + 1])
        args = [a for a in args if a != str(n)]
    if not args:
        sys.exit(__doc__)
    out = args[0]
    src = args[1] if len(args) > 1 else os.path.join(os.path.dirname(__file__), "bed-10k.json")
    job = json.load(open(src))
    box = job["scene"]["geometry"][0]
    assert box["type"] == "box" and box["inside"], "the scene's first geometry must be a box container"
    lo, hi, mat = box["min"], box["max"], box["material"]

    def plane(p, nrm):
        return {"type": "plane", "point": p, "normal": nrm, "material": mat}

    walls = [plane([lo[0], 0, 0], [1, 0, 0]), plane([hi[0], 0, 0], [-1, 0, 0]),
             plane([0, lo[1], 0], [0, 1, 0]), plane([0, hi[1], 0], [0, -1, 0])]
    floor = plane([0, 0, lo[2]], [0, 0, 1])
    os.makedirs(out, exist_ok=True)
    job["scene"]["geometry"] = [floor] + walls
    job["name"] = job.get("name", "bed") + "-planes"
    json.dump(job, open(os.path.join(out, "planes.json"), "w"))
    dx, dy = (hi[0] - lo[0]) / n, (hi[1] - lo[1]) / n
    verts = [[lo[0] + i * dx, lo[1] + j * dy, lo[2]] for j in range(n + 1) for i in range(n + 1)]
    tris = []
    for j in range(n):
        for i in range(n):
            a = j * (n + 1) + i
            tris += [[a, a + 1, a + n + 2], [a, a + n + 2, a + n + 1]]
    mesh = {"type": "mesh", "material": mat, "vertices": verts, "triangles": tris}
    job["scene"]["geometry"] = [mesh] + walls
    job["name"] = job["name"][:-len("-planes")] + "-mesh"
    json.dump(job, open(os.path.join(out, "mesh.json"), "w"))
    print("%s: %d triangles" % (os.path.join(out, "mesh.json"), len(tris)))


main()
