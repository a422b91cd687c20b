#!/usr/bin/env bash
# The `ndem` command line as a user runs it: validate every shipped scene,
# reject a broken job with pointers and exit code 3, run a short job and
# check the files docs/cli.md promises. NDEM_BIN is the binary under test.
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

# The standard scenes are bench/make_scenes.py's output, byte for byte.
check "bench/*.json equal bench/make_scenes.py's output" python3 bench/make_scenes.py --check
for f in bench/*.json; do
  check "bench/$(basename "$f") comes from make_scenes.py" \
    grep -q "\"$(basename "$f")\"" bench/make_scenes.py
done
for f in bench/*.json examples/*.json; do
  check "validate $f" "$bin" validate "$f"
done

cat > "$tmp/bad.json" <<'JSON'
{"scene": {"materials": [{"name": "ore", "densty": 2500}],
 "particles": [{"type": "list", "material": "rock", "spheres": [[0, 0, 0, -1]]}]},
 "solver": {"time_step": -1}}
JSON
"$bin" validate "$tmp/bad.json" 2> "$tmp/bad.err"
check "invalid job exits 3" test $? -eq 3
for p in /scene/materials/0/densty /scene/particles/0/material /scene/particles/0/spheres/0/3 \
         /solver/time_step; do
  check "error names $p" grep -q "$p" "$tmp/bad.err"
done
# errors in document order (docs/job.md): the same mistakes, solver first
# and the materials last, come out in that order
cat > "$tmp/order.json" <<'JSON'
{"solver": {"time_step": -1},
 "scene": {"particles": [{"type": "list", "material": "rock", "spheres": [[0, 0, 0, -1]]}],
  "materials": [{"name": "ore", "densty": 2500}]}}
JSON
"$bin" validate "$tmp/order.json" 2> "$tmp/order.err"
check "validate lists errors in document order" test "$(grep -o '^  /[^:]*' "$tmp/order.err" | tr -d ' ' | tr '\n' ' ')" = \
  "/solver/time_step /scene/particles/0/material /scene/particles/0/spheres/0/3 /scene/materials/0/densty "
printf '{"scene": ' > "$tmp/trunc.json"
"$bin" validate "$tmp/trunc.json" 2> /dev/null
check "malformed job exits 3" test $? -eq 3
"$bin" validate "$tmp/missing.json" 2> /dev/null
check "missing file exits 4" test $? -eq 4
"$bin" frobnicate 2> /dev/null
check "unknown command exits 2" test $? -eq 2

# A short run: one sphere dropped on a plane, 0.2 s, frames every 0.05 s.
cat > "$tmp/drop.json" <<'JSON'
{"name": "drop",
 "scene": {"materials": [{"name": "ore", "density": 2500, "young_modulus": 1e7}],
  "geometry": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1], "material": "ore"}],
  "particles": [{"type": "lattice", "min": [0, 0, 0.02], "max": [0.04, 0.04, 0.02],
                 "spacing": 0.02, "radius": 0.008, "material": "ore"}]},
 "solver": {"time_step": 0.001, "duration": 0.2},
 "output": {"frame_interval": 0.05}}
JSON
"$bin" run "$tmp/drop.json" --out "$tmp/out" --threads 2 > "$tmp/stdout" 2> "$tmp/stderr"
check "run exits 0" test $? -eq 0
for f in series.csv final.json summary.json job.json frames/index.csv frames/000000.ndf \
         paraview/frames.pvd paraview/particles_000000.vtp; do
  check "run wrote $f" test -s "$tmp/out/$f"
done
check "series has the contract's columns" grep -q \
  "^step,time,.*kinetic_energy.*,iterations,.*wall_seconds" "$tmp/out/series.csv"
check "series has one row per step" test "$(($(wc -l < "$tmp/out/series.csv") - 1))" -eq 200
check "five frames: t = 0, 0.05, ..., 0.2" test "$(($(wc -l < "$tmp/out/frames/index.csv") - 1))" -eq 5
check "summary counts 200 steps" grep -q '"steps":[[:space:]]*200' "$tmp/out/summary.json"
check "summary has 9 particles" grep -q '"particles":[[:space:]]*9' "$tmp/out/summary.json"
check "summary printed on stdout" grep -q '"wall_seconds"' "$tmp/stdout"
check "final frame holds 9 radii" grep -q '"particles":[[:space:]]*9' "$tmp/out/final.json"
check "plain progress lines off a terminal" grep -q "^progress 100.0% step=200/200" "$tmp/stderr"
# frame header: magic NDF1, 9 particles, all seven fields (12 words a particle, the plane's pose)
check "frame magic" test "$(head -c 4 "$tmp/out/frames/000004.ndf")" = NDF1
size=$(stat -c %s "$tmp/out/frames/000004.ndf")
check "frame size 48 + 4*12*9 + 8 + 64 bytes" test "$size" -eq $((48 + 4 * 12 * 9 + 8 + 64))
# checksums (docs/frames.md, docs/cli.md): the CRC flag of every stored frame, a CRC column
check "frame carries its CRC flag" test "$(od -An -tu4 -j44 -N4 "$tmp/out/frames/000004.ndf" | tr -d ' ')" -eq 1
check "frame CRC is set" test "$(od -An -tu4 -j40 -N4 "$tmp/out/frames/000004.ndf" | tr -d ' ')" -ne 0
check "series header ends with crc32c" grep -q ',crc32c$' "$tmp/out/series.csv"
check "a series row ends with 8 hex digits" grep -qE '^200,.*,[0-9a-f]{8}$' "$tmp/out/series.csv"

# Named geometry (docs/cli.md): its force and torque columns, and a moving
# one's position. Nine spheres at rest on the named floor weigh 9 m g on it
# (the force is the particles' on the floor: downward); the lid rises at
# 0.1 m/s from its centre at z = 1.05 and touches nothing.
cat > "$tmp/named.json" <<'JSON'
{"scene": {"materials": [{"name": "ore", "density": 2500, "young_modulus": 1e7}],
  "geometry": [{"type": "plane", "name": "floor", "point": [0, 0, 0], "normal": [0, 0, 1], "material": "ore"},
               {"type": "plane", "point": [0, 0, -1], "normal": [0, 0, 1], "material": "ore"},
               {"type": "box", "name": "lid", "min": [-0.1, -0.1, 1], "max": [0.1, 0.1, 1.1],
                "velocity": [0, 0, 0.1], "material": "ore"}],
  "particles": [{"type": "lattice", "min": [0, 0, 0.008], "max": [0.04, 0.04, 0.008],
                 "spacing": 0.02, "radius": 0.008, "material": "ore"}]},
 "solver": {"time_step": 0.001, "duration": 0.3},
 "output": {"frame_interval": 0.3}}
JSON
"$bin" run "$tmp/named.json" --out "$tmp/named" --quiet > /dev/null 2>&1
check "named run exits 0" test $? -eq 0
check "series has the named geometry's columns before crc32c" grep -q \
  ',wall_seconds,floor_fx,floor_fy,floor_fz,floor_tx,floor_ty,floor_tz,lid_fx,lid_fy,lid_fz,lid_tx,lid_ty,lid_tz,lid_x,lid_y,lid_z,crc32c$' \
  "$tmp/named/series.csv"
check "floor carries the weight of 9 spheres, lid rose 0.03 m" python3 - "$tmp/named/series.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = rows[-1]
w = 9 * 2500 * 4 / 3 * math.pi * 0.008 ** 3 * 9.81
fz = float(last["floor_fz"])
ok = abs(-fz - w) < 0.005 * w and abs(float(last["floor_fx"])) < 1e-6 * w
ok = ok and abs(float(last["lid_z"]) - (1.05 + 0.1 * 0.3)) < 1e-9 and float(last["lid_fz"]) == 0
# the torque about the floor's point (0, 0, 0): the load's centre is (0.02, 0.02)
ok = ok and abs(float(last["floor_tx"]) - -0.02 * w) < 0.01 * 0.02 * w
ok = ok and abs(float(last["floor_ty"]) - 0.02 * w) < 0.01 * 0.02 * w
print(f"floor_fz {fz} (weight {w}), lid_z {last['lid_z']}, torque {last['floor_tx']} {last['floor_ty']}")
sys.exit(0 if ok else 1)
PY

# A frame interval below the time step is refused with its pointer (issue 12:
# 1e-300 used to spin the frame schedule forever); bounded by timeout.
sed 's/"frame_interval": 0.05/"frame_interval": 1e-300/' "$tmp/drop.json" > "$tmp/tiny.json"
timeout 60 "$bin" run "$tmp/tiny.json" --out "$tmp/tiny" > /dev/null 2> "$tmp/tiny.err"
check "frame_interval 1e-300 exits 3" test $? -eq 3
check "frame_interval error names its pointer" grep -q "/output/frame_interval: .*time step" \
  "$tmp/tiny.err"

# A mesh read from a file next to the job (docs/meshes.md): `ndem run` passes
# the job file's directory, writes the placed mesh to meshes/<index>.stl
# (binary STL: 84 + 50 n bytes) and warns about dropped triangles.
mkdir -p "$tmp/mesh/parts"
cp tests/stl/cube_ascii.stl "$tmp/mesh/parts/cube.stl"
cat > "$tmp/mesh/job.json" <<'JSON'
{"name": "mesh-drop",
 "scene": {"materials": [{"name": "ore", "density": 2500, "young_modulus": 1e7}],
  "geometry": [{"type": "mesh", "file": "parts/cube.stl", "scale": 0.1, "position": [-0.05, -0.05, -0.1],
                "material": "ore"},
               {"type": "mesh", "material": "ore", "vertices": [[0, 0, -1], [1, 0, -1], [0, 1, -1]],
                "triangles": [[0, 1, 2], [2, 1, 0]]}],
  "particles": [{"type": "list", "spheres": [[0, 0, 0.02, 0.01]]}]},
 "solver": {"time_step": 1e-3, "duration": 0.2}, "output": {"frame_interval": 0.1}}
JSON
(cd / && "$bin" run "$tmp/mesh/job.json" --out "$tmp/mesh/out" --quiet > /dev/null 2> "$tmp/mesh.err")
check "mesh file relative to the job runs" test $? -eq 0
check "mesh warning names its geometry" grep -q \
  "job.json: warning: /scene/geometry/1: mesh: dropped 0 degenerate and 1 duplicate of 2 triangles" "$tmp/mesh.err"
check "meshes/0.stl is binary STL of 12 triangles" test "$(stat -c %s "$tmp/mesh/out/meshes/0.stl")" -eq $((84 + 50 * 12))
check "meshes/1.stl holds the kept triangle" test "$(stat -c %s "$tmp/mesh/out/meshes/1.stl")" -eq $((84 + 50))
# the sphere rests on the cube's top face (z = 0) at its radius, less the Hertz overlap
check "sphere rests on the mesh" python3 -c "import json,sys; z=json.load(open(sys.argv[1]))['positions'][2]; sys.exit(not 0.0099 < z < 0.01)" "$tmp/mesh/out/final.json"
"$bin" validate "$tmp/mesh/job.json" > /dev/null 2>&1
check "validate reads mesh files too" test $? -eq 0
sed 's#parts/cube.stl#parts/none.stl#' "$tmp/mesh/job.json" > "$tmp/mesh/bad.json"
"$bin" validate "$tmp/mesh/bad.json" 2> "$tmp/mesh-bad.err"
check "a missing mesh file exits 3" test $? -eq 3
check "a missing mesh file names its pointer" grep -q "/scene/geometry/0/file: cannot read" "$tmp/mesh-bad.err"

# The excavation example (docs/excavation.md): examples/excavation.json and
# examples/bucket.stl are tools/make_excavation.py's output; its small
# variant (648 resting spheres, 0.2 s) runs here. The bucket's series
# columns are there, its reported centre at each keyframe time is the
# keyframe's, its force is exactly 0 while its floor is above the resting bed
# (before it goes in) and nonzero all the time it drags through the bed.
# After it comes out it carries and flings what it scooped, so its force is
# not 0 then (the full example dumps it, docs/excavation.md).
check "examples/excavation.json and bucket.stl equal make_excavation.py's output" \
  python3 tools/make_excavation.py --check
python3 tools/make_excavation.py --small --out "$tmp/excav"
(cd "$tmp/excav" && "$bin" run excavation-small.json --out out --threads 2 --quiet > /dev/null 2>&1)
check "excavation-small runs" test $? -eq 0
check "series has bucket_fx .. bucket_z" grep -q \
  ',bucket_fx,bucket_fy,bucket_fz,bucket_tx,bucket_ty,bucket_tz,bucket_x,bucket_y,bucket_z,crc32c$' \
  "$tmp/excav/out/series.csv"
check "bucket at its keyframes, force 0 above the bed, nonzero in it" python3 - \
  "$tmp/excav/out/series.csv" "$tmp/excav/excavation-small.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
job = json.load(open(sys.argv[2]))
keys = job["scene"]["geometry"][1]["motion"]["keyframes"]
h = job["solver"]["time_step"]
by_step = {int(r["step"]): r for r in rows}
ok = len(rows) == round(job["solver"]["duration"] / h)
for k in keys[1:]:  # keyframe 0 is time 0, before the first row
    r = by_step[round(k["time"] / h)]
    got = [float(r["bucket_" + c]) for c in "xyz"]
    if max(abs(a - b) for a, b in zip(got, k["position"])) > 1e-9:
        print("at t = %g the bucket is at %s, keyframe %s" % (k["time"], got, k["position"]))
        ok = False
radius, bed_top = 0.05, 0.026   # make_bucket.RADIUS; two layers of 13 mm spheres
above = inside = 0
for r in rows:
    f = [float(r["bucket_f" + c]) for c in "xyz"]
    if float(r["time"]) <= keys[2]["time"] and float(r["bucket_z"]) - radius > bed_top + 0.001:
        above += 1
        if f != [0.0, 0.0, 0.0]:
            print("step %s: bucket above the bed, force %s" % (r["step"], f))
            ok = False
    if keys[2]["time"] <= float(r["time"]) <= keys[3]["time"]:
        inside += 1
        if max(abs(x) for x in f) == 0:
            print("step %s: bucket in the bed, force 0" % r["step"])
            ok = False
# 40 rows held + 25 going down at 0.9 mm a step before the floor is 1 mm
# over the bed; steps 80 to 140 drag through it
print("%d rows above the bed (force 0), %d dragging through it (force nonzero)" % (above, inside))
sys.exit(0 if ok and above == 65 and inside == 61 else 1)
PY

# Ctrl-C (docs/cli.md): a long run stops at the next step with whole outputs,
# a summary line and exit code 130 (SIGTERM: 143). 1000 spheres for an hour
# of simulated time: it runs until the signal. A watchdog bounds the wait.
cat > "$tmp/long.json" <<'JSON'
{"name": "long",
 "scene": {"materials": [{"name": "ore", "density": 2500, "young_modulus": 1e7}],
  "geometry": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1], "material": "ore"}],
  "particles": [{"type": "lattice", "min": [0, 0, 0.02], "max": [0.18, 0.18, 0.2],
                 "spacing": 0.02, "radius": 0.008, "material": "ore"}]},
 "solver": {"time_step": 0.0001, "duration": 3600},
 "output": {"frame_interval": 0.01}}
JSON
stop_run() { # stop_run SIGNAL DIR: exit code of a run sent SIGNAL once 50 rows are out
  local sig=$1 dir=$2 i
  "$bin" run "$tmp/long.json" --out "$dir" --threads 1 > "$dir.stdout" 2> "$dir.stderr" &
  local pid=$!
  for ((i = 0; i < 600; i++)); do
    [ -f "$dir/series.csv" ] && [ "$(wc -l < "$dir/series.csv")" -gt 50 ] && break
    sleep 0.1
  done
  kill -"$sig" "$pid"
  for ((i = 0; i < 600; i++)); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2> /dev/null # the watchdog: never left running
  wait "$pid"
}
stop_run INT "$tmp/int"
check "SIGINT exits 130" test $? -eq 130
check "SIGINT prints where it stopped" grep -qE \
  "^ndem: stopped by SIGINT at step [0-9]+, t = [0-9.e+-]+ s; outputs in $tmp/int\$" "$tmp/int.stderr"
steps=$(sed -nE 's/^ndem: stopped by SIGINT at step ([0-9]+),.*/\1/p' "$tmp/int.stderr")
check "stopped after some steps" test "${steps:-0}" -gt 50
check "summary says stopped" grep -q '"status":[[:space:]]*"stopped"' "$tmp/int/summary.json"
check "summary counts the steps taken" grep -q "\"steps\":[[:space:]]*${steps:-x}," "$tmp/int/summary.json"
# whole rows only: one per step, each with the header's column count and its CRC
cols=$(head -1 "$tmp/int/series.csv" | awk -F, '{print NF}')
check "series has one row per step taken" test "$(($(wc -l < "$tmp/int/series.csv") - 1))" -eq "${steps:-0}"
check "every series row is whole" test "$(awk -F, -v n="$cols" 'NR > 1 && (NF != n || length($NF) != 8 || $NF ~ /[^0-9a-f]/)' \
  "$tmp/int/series.csv" | wc -l)" -eq 0
check "series ends with a newline" test "$(tail -c 1 "$tmp/int/series.csv" | od -An -c | tr -d ' ')" = '\n'
check "last series row is the last step" grep -q "^${steps:-x}," "$tmp/int/series.csv"
frames=$(($(wc -l < "$tmp/int/frames/index.csv") - 1))
check "summary counts the frames listed" grep -q "\"frames\":[[:space:]]*$frames," "$tmp/int/summary.json"
check "every listed frame is whole" test "$(stat -c %s "$tmp/int/frames/$(printf %06d $((frames - 1))).ndf")" \
  -eq $((48 + 4 * 12 * 1000 + 8 + 64))
check "final.json is JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/int/final.json"
stop_run TERM "$tmp/term"
check "SIGTERM exits 143" test $? -eq 143
check "SIGTERM prints where it stopped" grep -q "^ndem: stopped by SIGTERM at step " "$tmp/term.stderr"

# Contact networks (docs/frames.md, "Contact network (NDC1)"): three spheres
# stacked on a plane write contacts/NNNNNN.ndc with every frame; frame 0 has
# none (no step yet), the last three: the floor carries 3 m g, the spheres
# above it 2 m g and m g. A run without output.contacts writes no contacts/.
cat > "$tmp/stack.json" <<'JSON'
{"scene": {"materials": [{"name": "ore", "density": 2500, "young_modulus": 1e7}],
  "geometry": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1], "material": "ore"}],
  "particles": [{"type": "list", "material": "ore",
                 "spheres": [[0, 0, 0.0099999, 0.01], [0, 0, 0.0299997, 0.01], [0, 0, 0.0499995, 0.01]]}]},
 "solver": {"time_step": 0.001, "duration": 0.2},
 "output": {"frame_interval": 0.1, "contacts": true}}
JSON
"$bin" run "$tmp/stack.json" --out "$tmp/stack" --quiet --no-vtk > /dev/null 2>&1
check "contacts run exits 0" test $? -eq 0
check "one contact record per frame" test "$(ls "$tmp/stack/contacts" | tr '\n' ' ')" = "000000.ndc 000001.ndc 000002.ndc "
check "frame 0 has no contacts" test "$(stat -c %s "$tmp/stack/contacts/000000.ndc")" -eq 48
check "contact record magic" test "$(head -c 4 "$tmp/stack/contacts/000002.ndc")" = NDC1
check "contacts carry the weights above them" python3 - "$tmp/stack/contacts/000002.ndc" <<'PY'
import math, struct, sys
b = open(sys.argv[1], "rb").read()
hs, idx, n = struct.unpack_from("<III", b, 4)
assert idx == 2 and n == 3 and len(b) == hs + 64 * n, (idx, n, len(b))
crc, flags = struct.unpack_from("<II", b, 40)
assert flags & 1 and crc != 0
a = struct.unpack_from("<3i", b, hs); other = struct.unpack_from("<3i", b, hs + 12)
fn = struct.unpack_from("<3f", b, hs + 4 * 9 * n)
mg = 2500 * 4 / 3 * math.pi * 0.01 ** 3 * 9.81
for k in range(n):
    above = 3 if other[k] < 0 else 3 - max(a[k], other[k])
    assert abs(fn[k] - above * mg) < 0.005 * above * mg, (k, fn[k], above * mg)
PY
check "no contacts without output.contacts" test ! -e "$tmp/out/contacts"

echo "cli: $fails failed"
[ "$fails" -eq 0 ]
