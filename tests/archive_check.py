"""The job archive against the daemon's own routes (tests/cli_archive.sh):
python3 tests/archive_check.py URL JOB.json MATERIALS TMPDIR. VTK's own
reader (tests/vtk_read.py, Debian's python3-vtk9) reads every frame export
(GET .../frames/{n}?format=vtp) and every piece of the archive's .pvd."""

import io
import json
import os
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request

from vtk_read import vtk_read

url, job_path, materials, tmp = sys.argv[1:5]
doc = json.load(open(job_path))
fails = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + (f": {detail}" if detail and not ok else ""))
    if not ok:
        fails.append(name)


def get(path):
    try:
        with urllib.request.urlopen(url + path, timeout=60) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read()


def post(d):
    req = urllib.request.Request(url + "/api/v1/jobs", json.dumps(d).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)["id"]


def wait(jid, statuses, seconds=120):
    end = time.time() + seconds
    while time.time() < end:
        j = json.loads(get(f"/api/v1/jobs/{jid}")[2])
        if j["status"] in statuses:
            return j
        time.sleep(0.1)
    raise SystemExit(f"job {jid} not {statuses} in {seconds} s")


jid = post(doc)
wait(jid, {"succeeded"})
status, ctype, body = get(f"/api/v1/jobs/{jid}/archive")
check("archive: 200 application/gzip", status == 200 and ctype == "application/gzip", f"{status} {ctype}")
tar = tarfile.open(fileobj=io.BytesIO(body), mode="r:gz")
names = tar.getnames()
out = os.path.join(tmp, "unpacked")
tar.extractall(out)
frames = json.loads(get(f"/api/v1/jobs/{jid}/frames")[2])["frames"]
check("archive holds job.json, summary.json, series.csv, frames/index.csv, paraview/frames.pvd",
      all(n in names for n in ("job.json", "summary.json", "series.csv", "frames/index.csv",
                               "paraview/frames.pvd")), str(names))
check("job.json is the job's document", json.load(open(os.path.join(out, "job.json"))) ==
      json.loads(get(f"/api/v1/jobs/{jid}")[2])["job"])
summary = json.load(open(os.path.join(out, "summary.json")))
check("summary.json is the job resource", summary["id"] == jid and summary["status"] == "succeeded")
series = json.loads(get(f"/api/v1/jobs/{jid}/series")[2])
rows = open(os.path.join(out, "series.csv")).read().splitlines()
check("series.csv has the series' rows", len(rows) - 1 == series["count"] == 20, f"{len(rows)} {series['count']}")
same = True
for f in frames:
    stored = get(f"/api/v1/jobs/{jid}/frames/{f['index']}?format=ndf")[2]
    same = same and open(os.path.join(out, "frames", f"{f['index']:06d}.ndf"), "rb").read() == stored
check(f"frames/ holds the {len(frames)} stored records byte for byte", same and len(frames) == 5)
index = open(os.path.join(out, "frames", "index.csv")).read().splitlines()
check("frames/index.csv lists them", len(index) == 1 + len(frames) and index[0] == "index,step,time,particles,file")
rc = subprocess.call([sys.executable, os.path.join(os.path.dirname(__file__), "paraview_check.py"), out,
                      job_path, materials, "--vtk"])
check("paraview/ of the archive passes paraview_check.py, VTK's reader on every piece", rc == 0)

# each frame as ParaView gets it (?format=vtp), read by VTK: the JSON frame's
# particles, positions (float32 both), time and materials
want_mat = [int(m) for m in materials.split(",")]
for f in frames:
    i = f["index"]
    status, ctype, body = get(f"/api/v1/jobs/{jid}/frames/{i}?format=vtp")
    path = os.path.join(tmp, f"frame{i}.vtp")
    open(path, "wb").write(body)
    js = json.loads(get(f"/api/v1/jobs/{jid}/frames/{i}?format=json")[2])
    pd, raised = vtk_read(path)
    n = js["particles"]
    pts = [c for k in range(pd.GetNumberOfPoints()) for c in pd.GetPoint(k)]
    pdata = pd.GetPointData()
    comps = {pdata.GetArrayName(k): pdata.GetArray(k).GetNumberOfComponents()
             for k in range(pdata.GetNumberOfArrays())}
    mat = pdata.GetArray("material")
    mats = [int(mat.GetValue(k)) for k in range(mat.GetNumberOfTuples())] if mat else None
    tv = pd.GetFieldData().GetArray("TimeValue")
    check(f"frame {i} as VTP: 200, VTK reads it with no error or warning",
          status == 200 and "xml" in (ctype or "") and not raised, f"{status} {ctype} {raised}")
    check(f"frame {i} as VTP: {n} points and vertices at the JSON frame's positions",
          pd.GetNumberOfPoints() == n == pd.GetNumberOfVerts() and len(pts) == len(js["positions"])
          and all(abs(a - b) <= 1e-6 * max(1.0, abs(b)) for a, b in zip(pts, js["positions"])))
    check(f"frame {i} as VTP: radius, velocity, speed, angular_velocity, material, id",
          comps == {"radius": 1, "velocity": 3, "speed": 1, "angular_velocity": 3, "material": 1, "id": 1}
          and mats == want_mat, f"{comps} {mats}")
    check(f"frame {i} as VTP: TimeValue is the frame's time",
          tv is not None and abs(tv.GetValue(0) - js["time"]) <= 1e-12, str(tv and tv.GetValue(0)))

# a running job: the frames so far; a queued one (one worker, busy): 409; unknown: 404
long_doc = dict(doc, name="long")
long_doc["solver"] = dict(doc["solver"], duration=600)
long_doc["output"] = {"frame_interval": 0.001}
running = post(long_doc)
queued = post(long_doc)
wait(running, {"running"})
for _ in range(600):
    if len(json.loads(get(f"/api/v1/jobs/{running}/frames")[2])["frames"]) >= 3:
        break
    time.sleep(0.1)
status, _, body = get(f"/api/v1/jobs/{running}/archive")
names = tarfile.open(fileobj=io.BytesIO(body), mode="r:gz").getnames() if status == 200 else []
ndf = [n for n in names if n.endswith(".ndf")]
check("a running job's archive has its frames so far", status == 200 and len(ndf) >= 3, f"{status} {len(ndf)}")
status, ctype, body = get(f"/api/v1/jobs/{queued}/archive")
check("a queued job's archive is 409 problem+json", status == 409 and ctype == "application/problem+json"
      and "no frames yet" in json.loads(body)["detail"], f"{status} {body[:200]}")
status, ctype, _ = get("/api/v1/jobs/0123456789abcdef/archive")
check("an unknown job's archive is 404", status == 404)
for j in (running, queued):
    urllib.request.urlopen(urllib.request.Request(url + f"/api/v1/jobs/{j}/cancel", b"",
                                                  {"Content-Type": "application/json"}, method="POST"))
print(f"archive_check: {len(fails)} failed")
sys.exit(1 if fails else 0)
