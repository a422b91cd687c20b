"""Checks the ParaView time series of a run (tests/cli_paraview.sh) against
the job document, from theory only: python3 tests/paraview_check.py OUT JOB.json
MATERIALS [--vtk] (or --shapes FILE.vtp FRAME.json: a shaped particles' file,
tests/test_frames.c), MATERIALS each particle's material index ("1,1,0"), by generator. OUT holds paraview/frames.pvd and frames/ (ndem run's directory, or
an unpacked job archive with frames/ absent). The document is the test's
own: its mesh is an inline tetrahedron turned about z by its keyframes, every
other geometry static or turning about its own axis.

Checks: the .pvd is XML with one particles file and one file per geometry at
each frame's time; the particles' material and speed arrays; the keyframed
mesh's points where the keyframes put them (linear position, slerp about z)
at every frame's time; a static geometry named by one file throughout; the
NDF1 frames' pose sections (when frames/ is there) equal to the same
interpolation. With --vtk each .vtp is also read by VTK's
vtkXMLPolyDataReader (Debian's python3-vtk9): a file passes when the reader
reports no error or warning (XML, header or array) and gives the counts the
file must have (tests/vtk_read.py)."""

import json
import math
import os
import struct
import sys
import xml.etree.ElementTree as ET

from vtk_read import vtk_read

fails = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + (f": {detail}" if detail and not ok else ""))
    if not ok:
        fails.append(name)


def arrays(path):
    """Every DataArray of a .vtp by Name, as floats; the piece's attributes."""
    root = ET.parse(path).getroot()
    piece = root.find("PolyData/Piece")
    found = {}
    for a in root.iter("DataArray"):
        found[a.get("Name")] = [float(x) for x in (a.text or "").split()]
    return found, piece.attrib


def keyframe_pose(g, t):
    """Position and turn angle about z of a keyframed geometry at time t."""
    ks = g["motion"]["keyframes"]
    if t <= ks[0]["time"]:
        a = b = ks[0]
        s = 0.0
    elif t >= ks[-1]["time"]:
        a = b = ks[-1]
        s = 0.0
    else:
        i = max(k for k in range(len(ks)) if ks[k]["time"] <= t)
        a, b = ks[i], ks[i + 1]
        s = (t - a["time"]) / (b["time"] - a["time"])
    angle = lambda k: 2 * math.atan2(k["orientation"][3], k["orientation"][0])
    pos = [a["position"][c] + s * (b["position"][c] - a["position"][c]) for c in range(3)]
    return pos, angle(a) + s * (angle(b) - angle(a))


def rotate(q, v):
    """v turned by the unit quaternion q = [w, x, y, z]."""
    w, x, y, z = q
    r = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return [sum(r[i][k] * v[k] for k in range(3)) for i in range(3)]


def check_shapes(vtp, spec_path):
    """--shapes FILE.vtp FRAME.json: the shaped particles' file (shapes_NNNNNN.vtp)
    against a JSON frame with "templates" (the job resource's shapes): every
    polygon belongs to a shaped particle (cell data id, shape); a polyhedron's
    polygons are its template's faces, corner for corner at position + radius
    R(orientation) vertex; a clump's points lie on its members' spheres, 32
    facets a member; plain spheres have none."""
    f = json.load(open(spec_path))
    data, piece = arrays(vtp)
    pts = data["position"]
    conn, offs = [int(x) for x in data["connectivity"]], [int(x) for x in data["offsets"]]
    ids, kinds = [int(x) for x in data["id"]], [int(x) for x in data["shape"]]
    check("TimeValue is the frame's time", abs(data["TimeValue"][0] - f["time"]) < 1e-12)
    check("one id and one shape per polygon", len(ids) == len(offs) == len(kinds) == int(piece["NumberOfPolys"]))
    polys = [conn[(offs[i - 1] if i else 0):offs[i]] for i in range(len(offs))]
    point = lambda i: pts[3 * i:3 * i + 3]
    for i, s in enumerate(f["shapes"]):
        mine = [k for k in range(len(polys)) if ids[k] == i]
        if s < 0:
            check(f"particle {i}: a plain sphere has no polygons", not mine)
            continue
        t = f["templates"][s]
        x, r, q = f["positions"][3 * i:3 * i + 3], f["radii"][i], f["orientations"][4 * i:4 * i + 4]
        place = lambda v: [x[k] + r * rotate(q, v)[k] for k in range(3)]
        check(f"particle {i}: its polygons name template {s}", all(kinds[k] == s for k in mine))
        if t["type"] == "polyhedron":
            want = [[place(t["vertices"][v]) for v in face] for face in t["faces"]]
            got = [[point(c) for c in polys[k]] for k in mine]
            same = len(got) == len(want) and all(
                len(a) == len(b) and all(abs(u - w) < 1e-6 for p, o in zip(a, b) for u, w in zip(p, o))
                for a, b in zip(got, want))
            check(f"particle {i}: the hull's {len(want)} faces at its pose", same, f"{got} vs {want}")
        else:
            members = [(place(m[:3]), r * m[3]) for m in t["spheres"]]
            corners = {c for k in mine for c in polys[k]}
            on = all(any(abs(math.dist(point(c), m) - rm) < 1e-6 for m, rm in members) for c in corners)
            check(f"particle {i}: {len(mine)} facets, 32 a member", len(mine) == 32 * len(members))
            check(f"particle {i}: every corner on a member sphere at its pose", on)
    if use_vtk:
        pd, raised = vtk_read(vtp)
        check("VTK reads the shapes file", not raised and pd.GetNumberOfPolys() == len(polys), str(raised))
    print(f"paraview_check: {len(fails)} failed")
    sys.exit(1 if fails else 0)


use_vtk = "--vtk" in sys.argv
if sys.argv[1] == "--shapes":
    check_shapes(sys.argv[2], sys.argv[3])
out, job_path = sys.argv[1], sys.argv[2]
job = json.load(open(job_path))
scene = job["scene"]
geometry = scene["geometry"]
pvd = ET.parse(os.path.join(out, "paraview", "frames.pvd")).getroot()
check("frames.pvd is a VTK Collection", pvd.get("type") == "Collection")
sets = [d.attrib for d in pvd.iter("DataSet")]
times = sorted({float(d["timestep"]) for d in sets})
want_frames = round(job["solver"]["duration"] / job["output"]["frame_interval"]) + 1
check(f"frames.pvd has {want_frames} times", len(times) == want_frames, str(times))
by_time = {t: {int(d["part"]): d["file"] for d in sets if float(d["timestep"]) == t} for t in times}
check("every time names the particles and each geometry",
      all(sorted(p) == list(range(len(geometry) + 1)) for p in by_time.values()))
check("every named file exists",
      all(os.path.isfile(os.path.join(out, "paraview", d["file"])) for d in sets))

want_mat = [int(x) for x in sys.argv[3].split(",")]
mesh_k = next(k for k, g in enumerate(geometry) if g["type"] == "mesh")
mesh = geometry[mesh_k]
scale = mesh.get("scale", 1)
for t in times:
    files = by_time[t]
    data, piece = arrays(os.path.join(out, "paraview", files[0]))
    check(f"t={t:g}: particles' TimeValue", abs(data["TimeValue"][0] - t) < 1e-12)
    check(f"t={t:g}: material per particle", data.get("material") == want_mat, str(data.get("material")))
    v, sp = data["velocity"], data["speed"]
    check(f"t={t:g}: speed is |velocity|",
          len(sp) == len(want_mat) and all(abs(sp[i] - math.hypot(*v[3 * i:3 * i + 3])) <= 1e-6 * (1 + sp[i])
                                           for i in range(len(sp))))
    pos, th = keyframe_pose(mesh, t)
    gdata, gpiece = arrays(os.path.join(out, "paraview", files[mesh_k + 1]))
    pts = gdata["position"]
    want = []
    for x, y, z in mesh["vertices"]:
        x, y, z = scale * x, scale * y, scale * z
        want += [pos[0] + math.cos(th) * x - math.sin(th) * y, pos[1] + math.sin(th) * x + math.cos(th) * y,
                 pos[2] + z]
    # the parser may renumber vertices: each wanted corner must be one of the points
    got3 = [pts[i:i + 3] for i in range(0, len(pts), 3)]
    want3 = [want[i:i + 3] for i in range(0, len(want), 3)]
    match = all(any(all(abs(a - b) < 1e-7 for a, b in zip(g, w)) for g in got3) for w in want3)
    check(f"t={t:g}: the keyframed mesh's points at the keyframes' pose",
          len(got3) == len(want3) and match, f"{pts} vs {want}")
    check(f"t={t:g}: the mesh's triangles", int(gpiece["NumberOfPolys"]) == len(mesh["triangles"]))
for k, g in enumerate(geometry):
    names = {by_time[t][k + 1] for t in times}
    if "motion" in g or "angular_velocity" in g or "velocity" in g:
        check(f"moving geometry {k} has a file per frame", len(names) == len(times), str(names))
    else:
        check(f"static geometry {k} is one file", names == {f"geometry_{k}.vtp"}, str(names))

frames_dir = os.path.join(out, "frames")
if os.path.isdir(frames_dir):
    for name in sorted(f for f in os.listdir(frames_dir) if f.endswith(".ndf")):
        b = open(os.path.join(frames_dir, name), "rb").read()
        hs, index, n = struct.unpack_from("<III", b, 4)
        t, fields = struct.unpack_from("<dI", b, 24)
        words = sum(w for bit, w in ((1, 3), (2, 1), (4, 1), (8, 3), (16, 3), (32, 1)) if fields & bit)
        mats = list(struct.unpack_from(f"<{n}I", b, hs + 4 * n * (words - 1)))
        g_count, = struct.unpack_from("<I", b, hs + 4 * n * words)
        rec = struct.unpack_from("<II7d", b, hs + 4 * n * words + 8 + 64 * mesh_k)
        pos, th = keyframe_pose(mesh, t)
        q = [math.cos(th / 2), 0, 0, math.sin(th / 2)]
        check(f"{name}: fields 127, materials, {len(geometry)} poses",
              fields == 127 and mats == want_mat and g_count == len(geometry))
        check(f"{name}: the mesh's pose is the keyframes' at t={t:g}",
              rec[0] == mesh_k and all(abs(a - b) < 1e-12 for a, b in zip(rec[2:], pos + q)), str(rec))

if use_vtk:
    for d in sets:
        pd, raised = vtk_read(os.path.join(out, "paraview", d["file"]))
        ok = not raised and pd.GetNumberOfPoints() > 0
        if d["part"] == "0":
            ok = ok and pd.GetPointData().GetArray("material") is not None and \
                pd.GetPointData().GetArray("speed") is not None and pd.GetNumberOfVerts() == len(want_mat)
        else:
            ok = ok and pd.GetNumberOfPolys() > 0
        check(f"VTK reads {d['file']}", ok, str(raised))

print(f"paraview_check: {len(fails)} failed")
sys.exit(1 if fails else 0)
