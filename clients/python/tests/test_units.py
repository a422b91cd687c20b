"""ndem_client's pieces without a daemon: the WebSocket client against a
scripted server, NDF1 decoding, CRC-32C, the progress bar, the headers sent."""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import json
import socket
import struct
import threading
import unittest
from typing import Any, Callable, Dict, List

from ndem_client import (Client, FrameError, NdemConnectionError, NotSupportedByDaemonError,
                         ProblemError)
from ndem_client.contacts import Contacts
from ndem_client.frames import Frame, crc32c
from ndem_client.progress import ProgressBar
from ndem_client.websocket import (OP_BINARY, OP_CLOSE, OP_CONT, OP_PING, OP_PONG, OP_TEXT,
                                   WebSocket, WebSocketClosed, WebSocketError, apply_mask,
                                   encode_frame)

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def read_exact(conn: socket.socket, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = conn.recv(n - len(out))
        if not chunk:
            raise EOFError
        out += chunk
    return out


def read_client_frame(conn: socket.socket) -> tuple:
    """(fin, opcode, masked, payload) of one frame a client sent, unmasked per RFC 6455."""
    b0, b1 = read_exact(conn, 2)
    n = b1 & 0x7F
    if n == 126:
        (n,) = struct.unpack("!H", read_exact(conn, 2))
    elif n == 127:
        (n,) = struct.unpack("!Q", read_exact(conn, 8))
    masked = bool(b1 & 0x80)
    key = read_exact(conn, 4) if masked else b""
    data = read_exact(conn, n)
    if masked:
        data = bytes(c ^ key[i % 4] for i, c in enumerate(data))
    return bool(b0 & 0x80), b0 & 0x0F, masked, data


class ScriptedServer:
    """Accepts one connection, answers the handshake, then runs `script(conn)`."""

    def __init__(self, script: Callable[[socket.socket], None], accept: bytes | None = None) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.script = script
        self.accept = accept
        self.request = b""
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        conn, _ = self.sock.accept()
        try:
            conn.settimeout(10)
            while b"\r\n\r\n" not in self.request:
                self.request += conn.recv(4096)
            key = [ln.split(b":", 1)[1].strip() for ln in self.request.split(b"\r\n")
                   if ln.lower().startswith(b"sec-websocket-key:")][0]
            accept = self.accept or base64.b64encode(hashlib.sha1(key + GUID).digest())
            conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                         b"Connection: Upgrade\r\nSec-WebSocket-Accept: " + accept + b"\r\n\r\n")
            self.script(conn)
        except BaseException as e:  # reported by join()
            self.error = e
        finally:
            conn.close()
            self.sock.close()

    def join(self) -> None:
        self.thread.join(10)
        if self.error:
            raise self.error


class TestWebSocket(unittest.TestCase):
    def test_mask_round_trip(self) -> None:
        data = bytes(range(256)) * 3 + b"x"
        key = b"\x01\x80\xff\x10"
        self.assertEqual(apply_mask(apply_mask(data, key), key), data)
        self.assertEqual(apply_mask(b"\x00\x00\x00\x00\x00", key), key + key[:1])

    def test_frame_lengths(self) -> None:
        for n, head in ((125, 2), (126, 4), (65535, 4), (65536, 10)):
            f = encode_frame(OP_BINARY, b"a" * n, mask=False)
            self.assertEqual(len(f), head + n, n)
            self.assertEqual(len(encode_frame(OP_BINARY, b"a" * n)), head + 4 + n, n)

    def test_conversation(self) -> None:
        seen: Dict[str, Any] = {}
        big = bytes(range(256)) * 300  # 76800 bytes: a 64-bit length
        mid = b"m" * 300  # a 16-bit length

        def script(conn: socket.socket) -> None:
            # a text message in two fragments with a ping between them
            conn.sendall(encode_frame(OP_TEXT, b'{"type": "hel', mask=False, fin=False))
            conn.sendall(encode_frame(OP_PING, b"p1", mask=False))
            conn.sendall(encode_frame(OP_CONT, b'lo"}', mask=False))
            seen["pong"] = read_client_frame(conn)
            conn.sendall(encode_frame(OP_BINARY, big, mask=False) + encode_frame(OP_BINARY, mid, mask=False))
            seen["text"] = read_client_frame(conn)
            conn.sendall(encode_frame(OP_CLOSE, struct.pack("!H", 1001) + b"bye", mask=False))
            seen["close"] = read_client_frame(conn)

        srv = ScriptedServer(script)
        ws = WebSocket.connect(f"ws://127.0.0.1:{srv.port}/api/v1/jobs/abc/stream?token=t",
                               headers={"Authorization": "Bearer t"})
        ws.settimeout(10)
        self.assertEqual(json.loads(ws.recv()), {"type": "hello"})
        self.assertEqual(ws.recv(), big)
        self.assertEqual(ws.recv(), mid)
        ws.send_text("ignored")
        with self.assertRaises(WebSocketClosed) as cm:
            ws.recv()
        self.assertEqual((cm.exception.code, cm.exception.reason), (1001, "bye"))
        srv.join()
        req = srv.request.decode()
        self.assertTrue(req.startswith("GET /api/v1/jobs/abc/stream?token=t HTTP/1.1\r\n"))
        self.assertIn("\r\nUpgrade: websocket\r\n", req)
        self.assertIn("\r\nSec-WebSocket-Version: 13\r\n", req)
        self.assertIn("\r\nAuthorization: Bearer t\r\n", req)
        # every client frame is masked (RFC 6455 5.3); the pong echoes the ping
        self.assertEqual(seen["pong"], (True, OP_PONG, True, b"p1"))
        self.assertEqual(seen["text"], (True, OP_TEXT, True, b"ignored"))
        self.assertEqual(seen["close"], (True, OP_CLOSE, True, struct.pack("!H", 1001)))

    def test_wrong_accept_is_refused(self) -> None:
        srv = ScriptedServer(lambda conn: None, accept=b"d3Jvbmc=")
        with self.assertRaises(WebSocketError) as cm:
            WebSocket.connect(f"ws://127.0.0.1:{srv.port}/x")
        self.assertIn("Sec-WebSocket-Accept", str(cm.exception))
        srv.join()

    def test_masked_server_frame_is_an_error(self) -> None:
        srv = ScriptedServer(lambda conn: conn.sendall(encode_frame(OP_TEXT, b"x", mask=True)))
        ws = WebSocket.connect(f"ws://127.0.0.1:{srv.port}/x")
        with self.assertRaises(WebSocketError):
            ws.recv()
        srv.join()


def ndf(index: int, step: int, t: float, pos: List[float], radii: List[float], crc: bool) -> bytes:
    n = len(radii)
    body = struct.pack(f"<{3 * n}f", *pos) + struct.pack(f"<{n}f", *radii)
    head = struct.pack("<4sIIIqdIIII", b"NDF1", 48, index, n, step, t, 3, 1, 0, 1 if crc else 0)
    rec = head + body
    if crc:
        rec = rec[:40] + struct.pack("<I", crc32c(rec)) + rec[44:]
    return rec


class TestFrames(unittest.TestCase):
    def test_crc32c_check_value(self) -> None:
        # the CRC-32C check value of RFC 3720 (iSCSI), B.4
        self.assertEqual(crc32c(b"123456789"), 0xE3069283)
        self.assertEqual(crc32c(bytes(32)), 0x8A9136AA)

    def test_decode(self) -> None:
        rec = ndf(7, 700, 0.35, [1, 2, 3, 4, 5, 6], [0.5, 0.25], crc=True)
        f = Frame.from_ndf(rec)
        self.assertEqual((f.index, f.step, f.time, f.particles), (7, 700, 0.35, 2))
        self.assertEqual(f.positions, [1, 2, 3, 4, 5, 6])
        self.assertEqual(f.radii, [0.5, 0.25])
        self.assertEqual(f.velocities, [])
        self.assertEqual(f.xyz(1), [4, 5, 6])

    def test_damaged(self) -> None:
        rec = ndf(1, 1, 0.0, [1, 2, 3], [0.5], crc=True)
        bad = rec[:50] + bytes([rec[50] ^ 1]) + rec[51:]
        with self.assertRaisesRegex(FrameError, "CRC-32C"):
            Frame.from_ndf(bad)
        Frame.from_ndf(bad, verify=False)  # the length still matches
        with self.assertRaisesRegex(FrameError, "header says"):
            Frame.from_ndf(rec[:-4])
        with self.assertRaisesRegex(FrameError, "magic"):
            Frame.from_ndf(b"XDF1" + rec[4:])
        # no CRC flag (stream messages, older writers): nothing to check
        Frame.from_ndf(ndf(1, 1, 0.0, [1, 2, 3], [0.5], crc=False))

    def test_shapes_walls_and_a_later_section(self) -> None:
        # bits 7-9 (docs/frames.md): 2 particles, 1 pose, orientations, shapes, a box's faces,
        # then bit 12, a section this version does not know, skipped by its length
        n, quat, ext = 2, [1, 0, 0, 0, 0.5, 0.5, 0.5, 0.5], [0.01, 0.02, 0.03, 0.09, 0.08, 0.07]
        fields = 1 | 2 | 64 | 128 | 256 | 512 | 4096
        rec = struct.pack("<4sIIIqdIIII", b"NDF1", 48, 3, n, 30, 0.3, fields, 1, 0, 0)
        rec += struct.pack("<6f", 0, 0, 0, 1, 1, 1) + struct.pack("<2f", 0.1, 0.2)
        rec += struct.pack("<II", 1, 0) + struct.pack("<II7d", 0, 0, 0.05, 0.05, 0.05, 1, 0, 0, 0)
        rec += struct.pack("<8f", *quat) + struct.pack("<2i", -1, 0)
        rec += struct.pack("<II", 1, 56) + struct.pack("<II6d", 0, 0, *ext)
        rec += struct.pack("<II", 2, 12) + bytes(24)
        rec = rec[:44] + struct.pack("<I", 1) + rec[48:]  # the flag, then the CRC over all of it
        rec = rec[:40] + struct.pack("<I", crc32c(rec)) + rec[44:]
        f = Frame.from_ndf(rec)
        self.assertEqual(f.orientations, quat)
        self.assertEqual(f.shapes, [-1, 0])
        self.assertEqual(f.geometry[0]["min"], ext[:3])
        self.assertEqual(f.geometry[0]["max"], ext[3:])
        with self.assertRaisesRegex(FrameError, "header says"):
            Frame.from_ndf(rec[:-4], verify=False)
        j = Frame.from_json({"index": 0, "step": 0, "time": 0, "particles": 1, "positions": [0, 0, 0],
                             "radii": [1], "orientations": [1, 0, 0, 0], "shapes": [2]})
        self.assertEqual((j.orientations, j.shapes, j.extra), ([1, 0, 0, 0], [2], {}))

    def test_json_nulls(self) -> None:
        f = Frame.from_json({"index": 0, "step": 0, "time": 0, "particles": 1,
                             "positions": [0, None, 1], "radii": [1], "materials": [0]})
        self.assertNotEqual(f.positions[1], f.positions[1])  # NaN
        self.assertEqual(f.materials, [0])
        self.assertEqual(f.extra, {})

    def test_materials_and_poses(self) -> None:
        # this version's record: materials (u32) after the floats, then the
        # geometry section: count, 0, and 64 bytes a geometry (doubles)
        n = 2
        head = struct.pack("<4sIIIqdIIII", b"NDF1", 48, 3, n, 30, 0.15, 1 | 2 | 32 | 64, 1, 0, 1)
        body = struct.pack("<6f", 1, 2, 3, 4, 5, 6) + struct.pack("<2f", 0.5, 0.25)
        body += struct.pack("<2I", 1, 0) + struct.pack("<II", 1, 0)
        body += struct.pack("<II7d", 0, 0, 0.1, 0.2, 1 / 3, 0.5, 0.5, 0.5, 0.5)
        rec = head + body
        rec = rec[:40] + struct.pack("<I", crc32c(rec)) + rec[44:]
        f = Frame.from_ndf(rec)
        self.assertEqual(f.materials, [1, 0])
        self.assertEqual(f.geometry, [{"index": 0, "position": [0.1, 0.2, 1 / 3],
                                       "orientation": [0.5, 0.5, 0.5, 0.5]}])
        with self.assertRaisesRegex(FrameError, "header says"):
            Frame.from_ndf(rec[:-8], verify=False)


def ndc(index: int, a: List[int], b: List[int], fn: List[float]) -> bytes:
    """An NDC1 record (docs/frames.md) with every field and its CRC: the
    contacts (a[k], b[k]) with normal forces fn, other floats 0.5 k."""
    n = len(a)
    feature = [-1 if x >= 0 else 0 for x in b]
    floats = [0.5 * k for k in range(13 * n)]
    floats[6 * n:7 * n] = fn  # after points and normals
    body = struct.pack(f"<{3 * n}i", *(a + b + feature)) + struct.pack(f"<{13 * n}f", *floats)
    rec = struct.pack("<4sIIIqdIIII", b"NDC1", 48, index, n, 10 * index, 0.25, 127, 0, 0, 1) + body
    return rec[:40] + struct.pack("<I", crc32c(rec)) + rec[44:]


class TestContacts(unittest.TestCase):
    def test_decode(self) -> None:
        c = Contacts.from_ndc(ndc(3, [0, 1], [1, -1], [2.0, 6.0]))
        self.assertEqual((c.index, c.step, c.time, c.count), (3, 30, 0.25, 2))
        self.assertEqual((c.a, c.b, c.feature), ([0, 1], [1, -1], [-1, 0]))
        self.assertEqual(c.points, [0, 0.5, 1, 1.5, 2, 2.5])
        self.assertEqual(c.normal_forces, [2.0, 6.0])
        self.assertEqual(c.rolling_torques[-1], 0.5 * 25)
        self.assertEqual(c.particle_pairs(), [0])
        self.assertEqual(Contacts.from_ndc(ndc(0, [], [], [])).count, 0)

    def test_damaged(self) -> None:
        rec = ndc(1, [0], [1], [1.0])
        bad = rec[:60] + bytes([rec[60] ^ 1]) + rec[61:]
        with self.assertRaisesRegex(FrameError, "CRC-32C"):
            Contacts.from_ndc(bad)
        Contacts.from_ndc(bad, verify=False)
        with self.assertRaisesRegex(FrameError, "header says"):
            Contacts.from_ndc(rec[:-4])
        with self.assertRaisesRegex(FrameError, "magic"):
            Contacts.from_ndc(b"NDF1" + rec[4:])


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


class TestProgressBar(unittest.TestCase):
    def test_terminal(self) -> None:
        out = FakeTTY()
        bar = ProgressBar("job x", stream=out, width=10)
        bar.update_job({"status": "running", "progress": {"step": 250, "steps_total": 1000,
                                                          "time": 0.25, "duration": 1, "fraction": 0.25}})
        bar.close()
        self.assertIn("job x [##........]  25.0% running  step 250/1000  t 0.25/1 s", out.getvalue())
        self.assertTrue(out.getvalue().endswith("\n"))

    def test_not_a_terminal(self) -> None:
        out = io.StringIO()
        bar = ProgressBar("job x", stream=out)
        bar.update(0.5, "running")
        bar.close()
        self.assertEqual(out.getvalue(), "")


class Recorder(http.server.BaseHTTPRequestHandler):
    """Records each request; answers 404 problem+json for sweeps, else a job."""

    seen: List[Dict[str, Any]] = []

    def _answer(self) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        Recorder.seen.append({"method": self.command, "path": self.path,
                              "headers": dict(self.headers), "body": body})
        if self.path.startswith("/api/v1/sweeps"):
            status, doc = 404, {"type": "about:blank", "title": "Not Found", "status": 404,
                                "detail": f"no resource at {self.path}"}
            ctype = "application/problem+json"
        elif self.path == "/health":
            status, doc, ctype = 200, {"status": "ok", "version": "9.9.9"}, "application/json"
        else:
            status, doc, ctype = 201, {"id": "abc", "status": "queued"}, "application/json"
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass


class TestRequests(unittest.TestCase):
    def setUp(self) -> None:
        Recorder.seen = []
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def tearDown(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def test_token_and_content_type(self) -> None:
        job = Client(self.url, token="s3cret").submit({"name": "x"})
        self.assertEqual(job.id, "abc")
        r = Recorder.seen[0]
        self.assertEqual((r["method"], r["path"]), ("POST", "/api/v1/jobs"))
        self.assertEqual(r["headers"]["Authorization"], "Bearer s3cret")
        self.assertEqual(r["headers"]["Content-Type"], "application/json")
        self.assertEqual(json.loads(r["body"]), {"name": "x"})
        job.cancel()  # a POST without a body still says application/json (415 otherwise)
        self.assertEqual(Recorder.seen[1]["path"], "/api/v1/jobs/abc/cancel")
        self.assertEqual(Recorder.seen[1]["headers"]["Content-Type"], "application/json")
        Client(self.url).health()
        self.assertNotIn("Authorization", Recorder.seen[2]["headers"])

    def test_sweep_body_and_missing_route(self) -> None:
        c = Client(self.url)
        with self.assertRaises(NotSupportedByDaemonError) as cm:
            c.sweep({"name": "base"}, {"/solver/iterations": [25, 50]}, mode="zip")
        self.assertIn("ndemd 9.9.9", str(cm.exception))
        self.assertIsInstance(cm.exception.__cause__, ProblemError)
        self.assertEqual(json.loads(Recorder.seen[0]["body"]), {
            "base": {"name": "base"}, "parameters": [{"pointer": "/solver/iterations", "values": [25, 50]}],
            "mode": "zip"})
        with self.assertRaises(ValueError):
            c.sweep({}, {"solver/iterations": [1]})
        with self.assertRaises(ValueError):
            c.sweep({}, {"/solver/iterations": [1]}, mode="grid")


class TestCutShort(unittest.TestCase):
    def test_answer_cut_short_is_a_connection_error(self) -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)

        def serve() -> None:
            conn, _ = sock.accept()
            conn.recv(4096)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100\r\n\r\n{")
            conn.close()
            sock.close()

        t = threading.Thread(target=serve, daemon=True)
        t.start()
        with self.assertRaises(NdemConnectionError) as cm:
            Client(f"http://127.0.0.1:{sock.getsockname()[1]}").health()
        self.assertIn("GET", str(cm.exception))
        t.join(10)


if __name__ == "__main__":
    unittest.main(verbosity=2)
