"""ndem_client against a ndemd with authentication on (tests/cli_python.sh starts it).

Needs NDEM_AUTH_URL (the daemon's base URL, listening beyond loopback so that
--auth is on by default) and NDEM_TOKEN_ALICE, NDEM_TOKEN_BOB (tokens of
`ndemd token create alice` and `bob`).
"""

from __future__ import annotations

import os
import sys
import unittest

import ndem_client
from ndem_client import Client, ProblemError

URL = os.environ.get("NDEM_AUTH_URL", "")
ALICE = os.environ.get("NDEM_TOKEN_ALICE", "")
BOB = os.environ.get("NDEM_TOKEN_BOB", "")

# One sphere resting on a plane for 20 steps.
JOB = {
    "name": "owned",
    "scene": {
        "materials": [{"name": "ore", "density": 2500, "young_modulus": 1e7}],
        "geometry": [{"type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]}],
        "particles": [{"type": "list", "material": "ore", "spheres": [[0, 0, 0.0099, 0.01]]}],
    },
    "solver": {"time_step": 0.001, "duration": 0.02},
    "output": {"frame_interval": 0.01},
}


@unittest.skipUnless(URL and ALICE and BOB, "NDEM_AUTH_URL and the tokens are not set "
                     "(tests/cli_python.sh sets them)")
class TestAuth(unittest.TestCase):
    def test_without_a_token_is_401(self) -> None:
        with self.assertRaises(ProblemError) as cm:
            Client(URL).jobs()
        self.assertEqual(cm.exception.status, 401)
        with self.assertRaises(ProblemError) as cm:
            Client(URL, token="ndem_not-a-token").jobs()
        self.assertEqual(cm.exception.status, 401)
        self.assertEqual(Client(URL).health()["status"], "ok")  # /health needs none

    def test_owner_sees_and_streams_others_do_not(self) -> None:
        alice, bob = Client(URL, token=ALICE), Client(URL, token=BOB)
        job = alice.submit(JOB).wait(progress=False, timeout=120)
        self.assertEqual(job.status, "succeeded")
        self.assertEqual(job.resource["owner"], "alice")
        self.assertIn(job.id, [j.id for j in alice.jobs()])
        self.assertNotIn(job.id, [j.id for j in bob.jobs()])
        with self.assertRaises(ProblemError) as cm:
            bob.job(job.id)
        self.assertEqual(cm.exception.status, 404)
        # the stream with the token (as ?token=): hello, the last frame, the status
        messages = [m for m in alice.job(job.id).stream(timeout=60) if isinstance(m, dict)]
        self.assertEqual(messages[0]["type"], "hello")
        self.assertEqual(messages[0]["job"]["id"], job.id)
        self.assertEqual(messages[-1]["status"], "succeeded")
        self.assertEqual(len(alice.job(job.id).frames()), 3)


if __name__ == "__main__":
    print(f"ndem_client {ndem_client.__version__} from {ndem_client.__file__}", file=sys.stderr)
    unittest.main(verbosity=2)
