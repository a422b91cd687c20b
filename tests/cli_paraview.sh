#!/usr/bin/env bash
# ParaView output of `ndem run` (docs/cli.md, docs/frames.md "ParaView"): a
# run with a static plane and box, a keyframed mesh and a turning cylinder,
# particles of two materials; tests/paraview_check.py checks paraview/
# (frames.pvd, the particles' and each geometry's .vtp at every frame's
# pose) and the NDF1 frames' materials and poses against the document.
# VTK's own reader (Debian's python3-vtk9) reads every file too when
# /usr/bin/python3 has it; it is not a dependency of the build (large), and
# the XML checks run without it. NDEM_BIN is the binary under test.
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
python3 tests/paraview_check.py "$tmp/out" "$tmp/job.json" 1,1,0,0,0,0 || fails=$((fails + 1))
if /usr/bin/python3 -c "import vtk" 2> /dev/null; then
  /usr/bin/python3 tests/paraview_check.py "$tmp/out" "$tmp/job.json" 1,1,0,0,0,0 --vtk > "$tmp/vtk.log"
  check "VTK's vtkXMLPolyDataReader reads every file ($(grep -c '^ok   VTK reads' "$tmp/vtk.log"))" test $? -eq 0
  grep FAIL "$tmp/vtk.log"
else
  echo "note VTK's reader not checked: /usr/bin/python3 has no vtk (apt-get install python3-vtk9)"
fi
# --no-vtk writes no paraview/
"$bin" run "$tmp/job.json" --out "$tmp/novtk" --quiet --no-vtk > /dev/null 2>&1
check "--no-vtk writes no paraview/" test ! -e "$tmp/novtk/paraview"
[ "$fails" -eq 0 ] && echo "cli_paraview: all ok" || echo "cli_paraview: $fails failed"
[ "$fails" -eq 0 ]
