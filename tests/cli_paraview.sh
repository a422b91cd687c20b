#!/usr/bin/env bash
# ParaView output of `ndem run` (docs/cli.md, docs/frames.md "ParaView"): a
# run with a static plane and box, a keyframed mesh and a turning cylinder,
# particles of two materials; tests/paraview_check.py checks paraview/
# (frames.pvd, the particles' and each geometry's .vtp at every frame's
# pose) and the NDF1 frames' materials and poses against the document; a
# stress-controlled box's faces in its frames, series, final.json and paraview/.
# VTK's own reader (Debian's python3-vtk9, installed by scripts/deps.sh) reads
# every file too, as ParaView would. NDEM_BIN is the binary under test.
set -u
cd "$(dirname "$0")/.."
bin=${NDEM_BIN:?NDEM_BIN must point at the ndem binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() { # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

cat > "$tmp/job.json" <<'JSON'
{"name": "paraview",
 "scene": {"gravity": [0, 0, 0],
  "materials": [{"name": "a", "density": 2500, "young_modulus": 1e7},
                {"name": "b", "density": 7800, "young_modulus": 1e7}],
  "geometry": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1], "material": "a"},
               {"type": "box", "min": [0, 0, 0], "max": [1, 1, 1], "inside": true, "material": "a"},
               {"type": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]],
                "triangles": [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], "scale": 0.1,
                "motion": {"keyframes": [
                  {"time": 0, "position": [0.5, 0.5, 0.1], "orientation": [1, 0, 0, 0]},
                  {"time": 0.02, "position": [0.6, 0.5, 0.2],
                   "orientation": [0.70710678118654757, 0, 0, 0.70710678118654757]}]}},
               {"type": "cylinder", "center": [0.2, 0.8, 0.5], "axis": [0, 0, 1], "radius": 0.05,
                "length": 0.2, "angular_velocity": [0, 0, 3]}],
  "particles": [{"type": "list", "material": "b", "spheres": [[0.2, 0.2, 0.5, 0.02], [0.3, 0.2, 0.5, 0.02]]},
                {"type": "lattice", "material": "a", "min": [0.7, 0.7, 0.5], "max": [0.8, 0.8, 0.5],
                 "spacing": 0.1, "radius": 0.02}]},
 "solver": {"time_step": 0.001, "duration": 0.02},
 "output": {"frame_interval": 0.005}}
JSON
"$bin" run "$tmp/job.json" --out "$tmp/out" --quiet > /dev/null 2> "$tmp/stderr"
check "run exits 0" test $? -eq 0
check "paraview/frames.pvd written" test -s "$tmp/out/paraview/frames.pvd"
/usr/bin/python3 tests/paraview_check.py "$tmp/out" "$tmp/job.json" 1,1,0,0,0,0 --vtk > "$tmp/check.log" 2>&1
check "paraview_check.py passes, VTK's vtkXMLPolyDataReader reading every file ($(grep -c '^ok   VTK reads' "$tmp/check.log"))" test $? -eq 0
grep -v "^ok   VTK reads" "$tmp/check.log"
# a stress-controlled box (issue 13): every frame carries its faces (NDF1 bit 9) equal to the
# series' cell_size_* at the frame's step, final.json has them, and paraview/ draws the box
# between them in a file per frame once the walls have moved
cat > "$tmp/walls.json" <<'JSON'
{"name": "walls", "scene": {"gravity": [0, 0, 0],
  "materials": [{"name": "a", "density": 2500, "young_modulus": 1e7}],
  "geometry": [{"type": "box", "name": "cell", "inside": true, "min": [0, 0, 0], "max": [1, 1, 1],
                "material": "a", "walls": {"mass": 50, "stress": [10, 20, 0]}}],
  "particles": [{"type": "list", "material": "a", "spheres": [[0.5, 0.5, 0.5, 0.02]]}]},
 "solver": {"time_step": 0.001, "duration": 0.05}, "output": {"frame_interval": 0.01}}
JSON
"$bin" run "$tmp/walls.json" --out "$tmp/walls" --quiet > /dev/null 2>&1
check "walls run exits 0" test $? -eq 0
python3 - "$tmp/walls" <<'PY' || fails=$((fails + 1))
import csv, json, os, struct, sys
import xml.etree.ElementTree as ET
out, bad = sys.argv[1], []
rows = {int(r["step"]): r for r in csv.DictReader(open(os.path.join(out, "series.csv")))}
names = sorted(f for f in os.listdir(os.path.join(out, "frames")) if f.endswith(".ndf"))
pvd = ET.parse(os.path.join(out, "paraview", "frames.pvd")).getroot()
files = {(float(d.get("timestep")), d.get("part")): d.get("file") for d in pvd.iter("DataSet")}
last = None
for name in names:
    b = open(os.path.join(out, "frames", name), "rb").read()
    hs, index, n = struct.unpack_from("<III", b, 4)
    step, t, fields = struct.unpack_from("<qdI", b, 16)
    at = hs + 4 * n * 12                            # bits 0-5
    g, = struct.unpack_from("<I", b, at)
    at += 8 + 64 * g                                # bit 6
    w, size = struct.unpack_from("<II", b, at)      # bit 9: no shapes
    k, _, *ext = struct.unpack_from("<II6d", b, at + 8)
    # the series starts at step 1: frame 0 is the box as defined
    want = [float(rows[step]["cell_size_" + a]) for a in "xyz"] if step else [1, 1, 1]
    sizes = [ext[3 + c] - ext[c] for c in range(3)]
    ok = fields == 127 | 512 and (w, size, k) == (1, 56, 0) and len(b) == at + 8 + 56
    ok = ok and all(abs(sizes[c] - want[c]) < 1e-9 for c in range(3))
    vtp = ET.parse(os.path.join(out, "paraview", files[(t, "1")])).getroot()
    pts = [float(x) for x in vtp.find("PolyData/Piece/Points/DataArray").text.split()]
    lo = [min(pts[c::3]) for c in range(3)]; hi = [max(pts[c::3]) for c in range(3)]
    ok = ok and all(abs(lo[c] - ext[c]) < 1e-8 and abs(hi[c] - ext[3 + c]) < 1e-8 for c in range(3))
    moved = ext != [0, 0, 0, 1, 1, 1]
    ok = ok and (files[(t, "1")] == (f"geometry_0_{index:06d}.vtp" if moved else "geometry_0.vtp"))
    if not ok: bad.append(f"{name}: fields {fields}, extents {ext}, sizes {sizes}, file {files[(t, '1')]}")
    last = ext
fin = json.load(open(os.path.join(out, "final.json")))["geometry"][0]
if fin["min"] + fin["max"] != last or not last[0] > 0 or last[1] <= last[0]:
    bad.append(f"final.json {fin}, last frame {last}")  # x closes slower than y (10 vs 20 Pa)
print("ok   walls: each frame's faces are the series' size, paraview's box, final.json's" if not bad
      else "FAIL walls: " + "; ".join(bad))
sys.exit(1 if bad else 0)
PY
# --no-vtk writes no paraview/
"$bin" run "$tmp/job.json" --out "$tmp/novtk" --quiet --no-vtk > /dev/null 2>&1
check "--no-vtk writes no paraview/" test ! -e "$tmp/novtk/paraview"
[ "$fails" -eq 0 ] && echo "cli_paraview: all ok" || echo "cli_paraview: $fails failed"
[ "$fails" -eq 0 ]
