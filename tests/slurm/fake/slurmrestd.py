#!/usr/bin/env python3
"""A stand-in for slurmrestd (tests/cli_slurm.sh): the three routes of
OpenAPI v0.0.38 that ndemd --slurm-rest uses, answered by the stand-in
commands beside it (sbatch, scontrol, scancel) so that a job runs on this
machine. Every request must carry X-SLURM-USER-NAME and the token in
$FAKE_SLURM_JWT as X-SLURM-USER-TOKEN (401 otherwise). Each submission's
JSON body is kept as submit-<n>.json in $FAKE_SLURM_DIR for the test to read.
  slurmrestd.py PORT"""
import json
import os
import re
import subprocess
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.environ["FAKE_SLURM_DIR"]
API = "/slurm/v0.0.38"


def run(cmd, env=None):
    p = subprocess.run([os.path.join(HERE, cmd[0])] + cmd[1:], capture_output=True, text=True,
                       env=env, check=False)
    return p.returncode, p.stdout + p.stderr


class Handler(BaseHTTPRequestHandler):
    def answer(self, code, body):
        data = json.dumps(dict({"meta": {}, "errors": []}, **body)).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def allowed(self):
        if (self.headers.get("X-SLURM-USER-NAME") and
                self.headers.get("X-SLURM-USER-TOKEN") == os.environ["FAKE_SLURM_JWT"]):
            return True
        self.answer(401, {"errors": [{"error": "Authentication failure"}]})
        return False

    def do_POST(self):
        if not self.allowed():
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        req = json.loads(body)
        n = len([f for f in os.listdir(DIR) if f.startswith("submit-")])
        with open(os.path.join(DIR, f"submit-{n}.json"), "wb") as f:
            f.write(body)
        job = req["job"]
        script = req["script"].split("\n", 1)[1]
        args = ["sbatch", "--parsable", "--output=" + job["standard_output"], "--wrap=" + script]
        if "array" in job:
            args.append("--array=" + job["array"])
        env = dict(job["environment"], FAKE_SLURM_DIR=DIR)
        rc, out = run(args, env)
        if rc:
            self.answer(500, {"errors": [{"error": "sbatch", "description": out}]})
        else:
            self.answer(200, {"job_id": int(out.strip()), "step_id": "BATCH"})

    def do_GET(self):
        if not self.allowed() or not self.path.startswith(API + "/job/"):
            return
        rc, out = run(["scontrol", "--oneliner", "show", "job", self.path[len(API) + 5:]])
        if rc:
            self.answer(500, {"errors": [{"error": "Invalid job id specified"}]})
            return
        f = dict(re.findall(r"(\w+)=(\S*)", out))
        code, sig = f["ExitCode"].split(":")
        rec = {"job_state": f["JobState"], "state_reason": f["Reason"],
               "exit_code": int(code) << 8 | int(sig)}
        if "ArrayJobId" in f:
            rec.update(job_id=100000 + int(f["ArrayTaskId"]), array_job_id=int(f["ArrayJobId"]),
                       array_task_id=int(f["ArrayTaskId"]))
        else:
            rec.update(job_id=int(f["JobId"]), array_job_id=0, array_task_id=None)
        self.answer(200, {"jobs": [rec]})

    def do_DELETE(self):
        if not self.allowed() or not self.path.startswith(API + "/job/"):
            return
        rc, out = run(["scancel", self.path[len(API) + 5:]])
        if rc:
            self.answer(500, {"errors": [{"error": "Invalid job id specified", "description": out}]})
        else:
            self.answer(200, {})

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
