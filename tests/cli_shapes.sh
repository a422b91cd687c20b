#!/usr/bin/env bash
# Shaped particles end to end through `ndem run` (docs/shapes.md "Output"):
# a bin of cubes, two-sphere clumps and spheres under smooth DEM; the NDF1
# frames carry orientations and shape indices (bits 7 and 8) whose indices
# are the job resource's template order (cubes 0, clumps 1, spheres -1, in
# creation order; the engine keeps one template per radius, so the cubes'
# two radii are two engine templates but one listed shape) at the radius the
# document gives; paraview/ writes every
# frame's shapes file with the templates' faces (a cube's 6, a clump's 32
# facets a member). NDEM_BIN is the binary under test.
set -u
cd "$(dirname "$0")/.."
bin=${NDEM_BIN:?NDEM_BIN must point at the ndem binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/job.json" <<'JSON'
{"name": "shapes",
 "scene": {"gravity": [0, 0, -9.81],
  "materials": [{"name": "g", "density": 2700, "young_modulus": 1e7}],
  "contact_materials": [{"materials": ["g", "g"], "friction": 0.5, "restitution": 0.3}],
  "geometry": [{"type": "box", "min": [-0.06, -0.06, 0], "max": [0.06, 0.06, 0.3],
                "inside": true, "material": "g"}],
  "particles": [
   {"type": "lattice", "min": [-0.03, -0.03, 0.02], "max": [0.03, 0.03, 0.02], "spacing": 0.035,
    "radius": {"values": [0.015, 0.014], "weights": [0.5, 0.5]}, "material": "g",
    "shape": {"type": "polyhedron", "vertices": [[-1, -1, -1], [1, -1, -1], [1, 1, -1], [-1, 1, -1],
                                                  [-1, -1, 1], [1, -1, 1], [1, 1, 1], [-1, 1, 1]]}},
   {"type": "lattice", "min": [-0.03, -0.03, 0.07], "max": [0.03, 0.03, 0.07], "spacing": 0.035,
    "radius": 0.015, "material": "g",
    "shape": {"type": "clump", "spheres": [[-0.5, 0, 0, 0.5], [0.5, 0, 0, 0.5]]}},
   {"type": "lattice", "min": [-0.03, -0.03, 0.12], "max": [0.03, 0.03, 0.12], "spacing": 0.035,
    "radius": 0.012, "material": "g"}]},
 "solver": {"method": "dem", "contact_model": "hertz", "time_step": "auto", "duration": 0.01},
 "output": {"frame_interval": 0.005}}
JSON
if ! "$bin" run "$tmp/job.json" --out "$tmp/out" > "$tmp/run.log" 2>&1; then
  echo "FAIL ndem run"; cat "$tmp/run.log"; exit 1
fi
python3 - "$tmp/out" <<'PY'
import glob, os, re, struct, sys
sys.path.insert(0, "clients/python/src")
from ndem_client.frames import Frame
out = sys.argv[1]
fails = 0
def check(name, ok, why=""):
    global fails
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {why}"))
    fails += not ok
frames = sorted(glob.glob(os.path.join(out, "frames", "*.ndf")))
check("a frame every 5 ms and the last", len(frames) >= 3, len(frames))
for path in frames:
    data = open(path, "rb").read()
    bits = struct.unpack_from("<I", data, 32)[0]
    f = Frame.from_ndf(data)
    n = os.path.basename(path)
    check(f"{n}: bits 7 and 8 set", bits & 0x180 == 0x180, bits)
    check(f"{n}: shapes in creation order", f.shapes == [0] * 4 + [1] * 4 + [-1] * 4, f.shapes)
    check(f"{n}: shaped radii as given", all(min(abs(r - 0.015), abs(r - 0.014)) < 1e-7 for r in f.radii[:4])
          and all(abs(r - 0.015) < 1e-7 for r in f.radii[4:8]) and len(set(f.radii[:4])) == 2, f.radii)
    q = f.orientations
    check(f"{n}: unit orientations", len(q) == 48 and all(
        abs(sum(v * v for v in q[4 * i:4 * i + 4]) - 1) < 1e-5 for i in range(12)))
    k = int(n[:-4])
    vtp = open(os.path.join(out, "paraview", f"shapes_{k:06d}.vtp")).read()
    polys = int(re.search(r'NumberOfPolys="(\d+)"', vtp).group(1))
    check(f"{n}: paraview shapes file, 6 faces a cube and 64 facets a clump", polys == 4 * 6 + 4 * 64, polys)
print(f"cli_shapes: {fails} failed")
sys.exit(1 if fails else 0)
PY
