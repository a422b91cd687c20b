"""ndem_client against a real ndemd (tests/cli_python.sh starts it).

Needs NDEM_URL (the daemon's base URL); the daemon should run with one
worker and a short --progress-interval (cli_python.sh: 0.05 s).
"""

from __future__ import annotations

import copy
import io
import json
import math
import os
import socket
import sys
import tempfile
import time
import unittest
import urllib.request
from contextlib import redirect_stderr
from pathlib import Path

import ndem_client
from ndem_client import Client, Frame, NdemConnectionError, NotSupportedByDaemonError, ProblemError

URL = os.environ.get("NDEM_URL", "")
G = 9.81
DT = 1e-4
R = 0.01
FALL = 0.05  # the sphere's bottom starts this high above the plane
RHO = 2500.0

# One sphere dropped on a plane: it touches after sqrt(2 h / g) with the
# kinetic energy m g h (restitution 0: it stays).
DROP = {
    "name": "drop",
    "scene": {
        "gravity": [0, 0, -G],
        "materials": [{"name": "ore", "density": RHO, "young_modulus": 1e7, "poisson_ratio": 0.3},
                      {"name": "steel", "density": 7800, "young_modulus": 2e11, "poisson_ratio": 0.3}],
        "contact_materials": [{"materials": ["ore", "steel"], "friction": 0.5, "restitution": 0.0}],
        "geometry": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1], "material": "steel"}],
        "particles": [{"type": "list", "material": "ore", "spheres": [[0, 0, R + FALL, R]]}],
    },
    "solver": {"time_step": DT, "duration": 0.15},
    "output": {"frame_interval": 0.05},
}


def drop(name: str, duration: float, frame_interval: float = 0.05) -> dict:
    doc = copy.deepcopy(DROP)
    doc["name"] = name
    doc["solver"]["duration"] = duration
    doc["output"]["frame_interval"] = frame_interval
    return doc


def lattice(name: str, duration: float) -> dict:
    """A small lattice of 27 spheres falling on the plane: steps cost more than one sphere's."""
    doc = drop(name, duration, frame_interval=0.5)
    doc["scene"]["particles"] = [{"type": "lattice", "material": "ore", "min": [-0.03, -0.03, 0.01],
                                  "max": [0.03, 0.03, 0.07], "spacing": 0.025, "radius": 0.01}]
    return doc


@unittest.skipUnless(URL, "NDEM_URL is not set (tests/cli_python.sh sets it)")
class TestClient(unittest.TestCase):
    client: Client
    dropped: ndem_client.Job
    tmp: tempfile.TemporaryDirectory

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = Client(URL)
        cls.tmp = tempfile.TemporaryDirectory()
        # submitted once, read by several tests
        cls.dropped = cls.client.submit(DROP).wait(progress=False, timeout=120)

    @classmethod
    def tearDownClass(cls) -> None:
        cls.tmp.cleanup()

    def test_submit_dict_matches_free_fall(self) -> None:
        job = self.dropped
        self.assertEqual(job.status, "succeeded", job.error)
        self.assertEqual(job.name, "drop")
        s = job.series()
        self.assertEqual(len(s["step"]), 1500)
        self.assertEqual(set(s["particles"]), {1})
        ke, t = s["kinetic_energy"], s["time"]
        peak = max(range(len(ke)), key=lambda k: ke[k])
        # the sphere lands after sqrt(2 h / g) = 0.10096 s, to within a few steps
        self.assertAlmostEqual(t[peak], math.sqrt(2 * FALL / G), delta=3 * DT)
        # with the kinetic energy m g h (semi-implicit Euler is within 0.5 %)
        m = RHO * 4 / 3 * math.pi * R**3
        self.assertAlmostEqual(ke[peak] / (m * G * FALL), 1.0, delta=0.005)
        self.assertEqual(s["geometry_contacts"][-1], 1)

    def test_submit_path_and_frames(self) -> None:
        path = Path(self.tmp.name) / "drop.json"
        path.write_text(json.dumps(drop("from-file", 0.1)))
        job = self.client.submit(str(path))
        self.assertIn(job.resource["status"], ("queued", "running", "succeeded"))
        job.wait(progress=False, timeout=120, check=True)
        self.assertEqual(job.name, "from-file")
        listed = job.frames()
        self.assertEqual([f["index"] for f in listed], [0, 1, 2])
        self.assertEqual([f["step"] for f in listed], [0, 500, 1000])
        f = job.frame(1)
        self.assertIsInstance(f, Frame)
        self.assertEqual(f.particles, 1)
        self.assertEqual(len(f.positions), 3 * f.particles)
        self.assertEqual(len(f.radii), f.particles)
        self.assertEqual(len(f.velocities), 3 * f.particles)
        # free fall to t = 0.05 s: v = -g t, z = z0 - g t^2 / 2 (symplectic Euler: within g dt t)
        self.assertAlmostEqual(f.time, 0.05)
        self.assertAlmostEqual(f.velocities[2], -G * 0.05, places=5)
        self.assertAlmostEqual(f.positions[2], R + FALL - G * 0.05**2 / 2, delta=G * DT * 0.05)
        self.assertAlmostEqual(f.radii[0], R, places=7)
        # the stored NDF1 record holds the same float32 values (CRC-32C checked)
        b = job.frame(1, binary=True)
        self.assertEqual((b.index, b.step, b.particles), (1, 500, 1))
        for x, y in zip(b.positions + b.velocities, f.positions + f.velocities):
            self.assertAlmostEqual(x, y, delta=1e-8 + 1e-6 * abs(y))
        self.assertAlmostEqual(b.scalar[0], G * 0.05, places=5)  # speed
        latest = job.frame("latest")
        self.assertEqual(latest.index, 2)
        try:
            import numpy  # noqa: F401
        except ImportError:
            return
        a = f.as_numpy()
        self.assertEqual(a["positions"].shape, (1, 3))

    def test_contacts(self) -> None:
        # three spheres stacked on the floor: the floor carries 3 m g, the
        # spheres above it 2 m g and m g (docs/frames.md)
        doc = drop("stack", 0.2, frame_interval=0.1)
        doc["scene"]["particles"] = [{"type": "list", "material": "ore", "spheres": [
            [0, 0, R * 0.99999, R], [0, 0, 3 * R * 0.99999, R], [0, 0, 5 * R * 0.99999, R]]}]
        doc["output"]["contacts"] = True
        doc["solver"]["time_step"] = 0.001
        job = self.client.submit(doc).wait(progress=False, timeout=120)
        c = job.contacts()
        self.assertEqual((c.index, c.count), (2, 3))
        m = RHO * 4 / 3 * math.pi * R**3
        for k in range(c.count):
            above = 3 if c.b[k] < 0 else 3 - max(c.a[k], c.b[k])
            self.assertAlmostEqual(c.normal_forces[k] / (above * m * G), 1.0, delta=0.005)
        self.assertEqual(job.contacts(0).count, 0)
        with self.assertRaises(ProblemError) as e:
            self.dropped.contacts(0)
        self.assertEqual(e.exception.status, 404)

    def test_invalid_document_raises_problem_with_pointers(self) -> None:
        doc = copy.deepcopy(DROP)
        doc["scene"]["materials"][0]["densty"] = 2500
        doc["solver"]["iterations"] = 0
        with self.assertRaises(ProblemError) as cm:
            self.client.submit(doc)
        e = cm.exception
        self.assertEqual(e.status, 422)
        self.assertEqual(e.title, "Unprocessable Content")
        self.assertIn("/scene/materials/0/densty", e.pointers)
        self.assertIn("/solver/iterations", e.pointers)
        # document order: the material before the solver
        self.assertLess(e.pointers.index("/scene/materials/0/densty"), e.pointers.index("/solver/iterations"))
        self.assertIn("unknown field 'densty'", [x["message"] for x in e.errors])
        self.assertIn("/scene/materials/0/densty", str(e))

    def test_malformed_file_is_400_at_the_root(self) -> None:
        path = Path(self.tmp.name) / "bad.json"
        path.write_text('{"name": "x",\n "scene": {')
        with self.assertRaises(ProblemError) as cm:
            self.client.submit(path)
        self.assertEqual(cm.exception.status, 400)
        self.assertEqual(cm.exception.pointers[:1], [""])

    def test_unknown_job_is_404(self) -> None:
        with self.assertRaises(ProblemError) as cm:
            self.client.job("0123456789abcdef")
        self.assertEqual(cm.exception.status, 404)
        self.assertIn("0123456789abcdef", cm.exception.detail)

    def test_list_and_fetch(self) -> None:
        ids = [j.id for j in self.client.jobs(status="succeeded")]
        self.assertIn(self.dropped.id, ids)
        self.assertEqual(len(self.client.jobs(limit=1)), 1)
        self.assertEqual(self.client.job(self.dropped.id).document["solver"]["time_step"], DT)
        with self.assertRaises(ProblemError) as cm:
            self.client.jobs(status="done")
        self.assertEqual(cm.exception.status, 400)

    def test_cancel_running_and_queued(self) -> None:
        # 10^6 steps: minutes; cancelled after its first steps
        running = self.client.submit(lattice("long", 100.0))
        queued = self.client.submit(lattice("queued", 100.0))  # one worker: waits behind it
        for job in (queued, running):  # a failure here must not leave them to block the rest
            self.addCleanup(self._cancel_quietly, job)
        deadline = time.monotonic() + 60
        while True:
            r = running.refresh()
            if r["status"] == "running" and r["progress"]["step"] > 0:
                break
            self.assertLess(time.monotonic(), deadline, f"job never ran: {r['status']}")
            time.sleep(0.05)
        self.assertEqual(queued.status, "queued")
        self.assertEqual(queued.cancel(), "cancelled")  # 200: at once
        self.assertEqual(running.cancel(), "running")  # 202: stops after its current step
        running.wait(progress=False, timeout=60)
        self.assertEqual(running.resource["status"], "cancelled")
        self.assertLess(running.resource["progress"]["step"], 1_000_000)
        with self.assertRaises(ProblemError) as cm:
            running.cancel()
        self.assertEqual(cm.exception.status, 409)

    @staticmethod
    def _cancel_quietly(job: ndem_client.Job) -> None:
        try:
            job.cancel()
        except ProblemError:
            pass  # 409: finished already

    def test_stream_progress(self) -> None:
        # 10^4 steps of 27 spheres: 0.3 s of wall time in the release build, 6 or more
        # progress messages at --progress-interval 0.05 (and a last one before the end)
        job = self.client.submit(lattice("streamed", 1.0))
        messages = list(job.stream(frames=True, timeout=120))
        texts = [m for m in messages if isinstance(m, dict)]
        self.assertEqual(texts[0]["type"], "hello")
        self.assertEqual(texts[0]["job"]["id"], job.id)
        progress = [m for m in texts if m["type"] == "progress"]
        self.assertGreaterEqual(len(progress), 1, [m["type"] for m in texts])
        steps = [m["progress"]["step"] for m in progress]
        self.assertEqual(steps, sorted(steps))
        self.assertTrue(all(0 <= m["progress"]["fraction"] <= 1 for m in progress))
        self.assertEqual(texts[-1], {"type": "status", "job": job.id, "status": "succeeded"})
        frames = [m for m in messages if isinstance(m, Frame)]
        self.assertGreaterEqual(len(frames), 1)
        for f in frames:
            self.assertEqual(len(f.positions), 3 * f.particles)
            self.assertEqual(f.particles, 27)
        self.assertEqual(job.status, "succeeded")

    def test_wait_is_quiet_without_a_terminal(self) -> None:
        err = io.StringIO()
        with redirect_stderr(err):
            self.client.submit(drop("quiet", 0.01)).wait(progress=True, timeout=60)
        self.assertEqual(err.getvalue(), "")

    def test_download(self) -> None:
        out = self.dropped.download(Path(self.tmp.name) / "out")
        doc = json.loads((out / "job.json").read_text())
        self.assertEqual(doc.keys(), self.dropped.document.keys())
        # the stored document, numbers exact (the resource's copy is printed by
        # cJSON with 15 digits: 0.06 for R + FALL = 0.060000000000000005)
        self.assertEqual(doc["scene"]["particles"][0]["spheres"], DROP["scene"]["particles"][0]["spheres"])
        lines = (out / "series.csv").read_text().splitlines()
        self.assertTrue(lines[0].startswith("step,time,particles,"))
        self.assertEqual(len(lines), 1 + 1500)
        files = sorted(p.name for p in (out / "frames").glob("*.ndf"))
        self.assertEqual(files, ["000000.ndf", "000001.ndf", "000002.ndf", "000003.ndf"])
        last = Frame.from_ndf((out / "frames" / "000003.ndf").read_bytes(), verify=True)
        self.assertEqual((last.index, last.step, last.particles), (3, 1500, 1))
        # resting on the plane: the centre one radius up (NDEM: no visible overlap)
        self.assertAlmostEqual(last.positions[2], R, delta=1e-4)
        index = (out / "frames" / "index.csv").read_text().splitlines()
        self.assertEqual(index[0], "index,step,time,particles,file")
        self.assertEqual(len(index), 5)
        # from the archive: the job resource and the ParaView series too
        self.assertEqual(json.loads((out / "summary.json").read_text())["id"], self.dropped.id)
        pvd = (out / "paraview" / "frames.pvd").read_text()
        self.assertEqual(pvd.count('part="0"'), 4)
        self.assertTrue((out / "paraview" / "particles_000003.vtp").is_file())
        # file by file (archive=False): the same frames, byte for byte
        plain = self.dropped.download(Path(self.tmp.name) / "plain", archive=False)
        for name in files:
            self.assertEqual((plain / "frames" / name).read_bytes(), (out / "frames" / name).read_bytes())
        self.assertFalse((plain / "paraview").exists())
        self.assertEqual(last.materials, [0])

    def test_sweep(self) -> None:
        with urllib.request.urlopen(URL + "/openapi.json", timeout=30) as r:
            routes = json.load(r)["paths"]
        params = {"/solver/iterations": [10, 20]}
        if "/api/v1/sweeps" not in routes:
            # this daemon has no sweeps yet: a clear error naming its version
            version = self.client.health()["version"]
            with self.assertRaises(NotSupportedByDaemonError) as cm:
                self.client.sweep(drop("sweep", 0.01), params)
            self.assertIn(f"ndemd {version}", str(cm.exception))
            self.assertIsInstance(cm.exception, NotImplementedError)
            return
        # 2 x 2 tiny jobs: a sphere falling freely for 0.01 s (100 steps), so its
        # kinetic energy is (1/2) m (g t)^2 exactly and goes with the density
        params = {"/solver/iterations": [10, 20], "/scene/materials/0/density": [RHO, 2 * RHO]}
        sweep = self.client.sweep(drop("sweep", 0.01), params, mode="product")
        self.assertEqual(len(sweep.jobs), 4)
        self.assertEqual([j["parameters"] for j in sweep.resource["jobs"]],
                         [{"/solver/iterations": i, "/scene/materials/0/density": d}
                          for i in (10, 20) for d in (RHO, 2 * RHO)])
        self.assertIn(sweep.id, [s.id for s in self.client.sweeps()])
        rows = sweep.wait(progress=False, timeout=120).results()
        self.assertEqual(sweep.resource["status"], "done")
        self.assertEqual(sweep.resource["counts"]["succeeded"], 4)
        self.assertEqual(len(rows), 4)
        for row, job in zip(rows, sweep.jobs):
            res = job.refresh()
            self.assertEqual(row["job"], job.id)
            self.assertEqual(res["sweep"]["id"], sweep.id)
            self.assertEqual(row["status"], "succeeded")
            self.assertEqual(row["kinetic_energy"], res["stats"]["kinetic_energy"])
            self.assertEqual(row["step"], 100)
            m = row["/scene/materials/0/density"] * 4 / 3 * math.pi * R ** 3
            self.assertAlmostEqual(row["kinetic_energy"], 0.5 * m * (G * 0.01) ** 2,
                                   delta=1e-9 * m)
        csv_lines = sweep.results_csv().splitlines()
        self.assertEqual(len(csv_lines), 5)
        header = csv_lines[0].split(",")
        self.assertEqual(header[:5], ["index", "job", "status", "/solver/iterations",
                                      "/scene/materials/0/density"])
        for line, row in zip(csv_lines[1:], rows):
            cells = dict(zip(header, line.split(",")))
            self.assertEqual(cells["job"], row["job"])
            self.assertAlmostEqual(float(cells["kinetic_energy"]), row["kinetic_energy"],
                                   delta=1e-15 * row["kinetic_energy"])
        sweep.cancel()  # every job has finished: nothing to cancel, still 200
        sweep.delete()
        with self.assertRaises(ProblemError) as cm:
            sweep.refresh()
        self.assertEqual(cm.exception.status, 404)


class TestConnection(unittest.TestCase):
    def test_refused(self) -> None:
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()  # nothing listens there now
        with self.assertRaises(NdemConnectionError) as cm:
            Client(f"http://127.0.0.1:{port}").health()
        self.assertIn(f"127.0.0.1:{port}", str(cm.exception))
        self.assertIsInstance(cm.exception, ConnectionError)

    def test_bad_url(self) -> None:
        with self.assertRaises(ValueError):
            Client("127.0.0.1:8080")


if __name__ == "__main__":
    print(f"ndem_client {ndem_client.__version__} from {ndem_client.__file__}", file=sys.stderr)
    unittest.main(verbosity=2)
