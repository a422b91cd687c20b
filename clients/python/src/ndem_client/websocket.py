"""A minimal WebSocket client (RFC 6455), standard library only.

Enough for the job stream (docs/protocol.md): the opening handshake with its
``Sec-WebSocket-Accept`` check, masked client frames, text and binary
messages (fragmented ones reassembled), ping answered by pong, and the
closing handshake. No extensions, no subprotocol. ``Job.stream()`` uses the
``websockets`` package instead when it is installed.
"""

from __future__ import annotations

import base64
import hashlib
import os
import socket
import ssl
import struct
from typing import Dict, Optional, Tuple, Union
from urllib.parse import urlsplit

from .errors import NdemConnectionError, NdemError

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
MAX_MESSAGE = 1 << 30  # a frame of 10^7 particles is 200 MB; refuse what no frame can be


class WebSocketError(NdemError):
    """The peer broke the WebSocket protocol, or refused the handshake."""


class WebSocketClosed(NdemError):
    """The connection was closed (``code`` and ``reason`` of the close frame)."""

    def __init__(self, code: Optional[int], reason: str = "") -> None:
        self.code = code
        self.reason = reason
        super().__init__(f"WebSocket closed ({code}{': ' + reason if reason else ''})")


def accept_key(key: str) -> str:
    """The ``Sec-WebSocket-Accept`` value a server must answer for ``key``."""
    return base64.b64encode(hashlib.sha1((key + GUID).encode("ascii")).digest()).decode("ascii")


def encode_frame(opcode: int, payload: bytes, mask: bool = True, fin: bool = True) -> bytes:
    """One frame; client frames are masked with a fresh random key (RFC 6455 5.3)."""
    head = bytearray([(0x80 if fin else 0) | opcode])
    n = len(payload)
    bit = 0x80 if mask else 0
    if n < 126:
        head.append(bit | n)
    elif n < 1 << 16:
        head.append(bit | 126)
        head += struct.pack("!H", n)
    else:
        head.append(bit | 127)
        head += struct.pack("!Q", n)
    if not mask:
        return bytes(head) + payload
    key = os.urandom(4)
    return bytes(head) + key + apply_mask(payload, key)


def apply_mask(payload: bytes, key: bytes) -> bytes:
    """XORs ``payload`` with the 4-byte ``key`` (masking and unmasking alike)."""
    if not payload:
        return b""
    n = len(payload)
    k = int.from_bytes((key * (n // 4 + 1))[:n], "little")
    return (int.from_bytes(payload, "little") ^ k).to_bytes(n, "little")


class WebSocket:
    """A connected client. ``recv()`` returns ``str`` (text) or ``bytes`` (binary)."""

    def __init__(self, sock: socket.socket, leftover: bytes = b"") -> None:
        self._sock = sock
        self._buf = bytearray(leftover)
        self._closed = False

    @classmethod
    def connect(
        cls, url: str, timeout: Optional[float] = 10.0, headers: Optional[Dict[str, str]] = None
    ) -> "WebSocket":
        """Opens ``ws://`` or ``wss://`` ``url`` and completes the handshake."""
        parts = urlsplit(url)
        if parts.scheme not in ("ws", "wss"):
            raise WebSocketError(f"not a WebSocket URL: {url}")
        host = parts.hostname or "127.0.0.1"
        port = parts.port or (443 if parts.scheme == "wss" else 80)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
            if parts.scheme == "wss":
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        except OSError as e:
            raise NdemConnectionError(f"cannot connect to {url}: {e}") from e
        key = base64.b64encode(os.urandom(16)).decode("ascii")
        netloc = f"[{host}]" if ":" in host else host
        if parts.port:
            netloc += f":{parts.port}"
        lines = [f"GET {path} HTTP/1.1", f"Host: {netloc}", "Upgrade: websocket",
                 "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        try:
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            raw = b""
            while b"\r\n\r\n" not in raw:
                chunk = sock.recv(4096)
                if not chunk:
                    raise WebSocketError(f"{url}: the server closed the connection during the handshake")
                raw += chunk
                if len(raw) > 65536:
                    raise WebSocketError(f"{url}: handshake answer too long")
        except OSError as e:
            sock.close()
            raise NdemConnectionError(f"{url}: handshake failed: {e}") from e
        except WebSocketError:
            sock.close()
            raise
        head, _, rest = raw.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        got = {}
        for line in header_lines:
            k, _, v = line.partition(":")
            got[k.strip().lower()] = v.strip()
        fields = status_line.split(" ", 2)
        if len(fields) < 2 or fields[1] != "101":
            sock.close()
            raise WebSocketError(f"{url}: handshake refused: {status_line}")
        if got.get("sec-websocket-accept") != accept_key(key):
            sock.close()
            raise WebSocketError(f"{url}: wrong Sec-WebSocket-Accept in the handshake")
        sock.settimeout(None)
        return cls(sock, rest)

    def settimeout(self, timeout: Optional[float]) -> None:
        """Seconds ``recv()`` may wait for data (``None``: for ever)."""
        self._sock.settimeout(timeout)

    def _read(self, n: int) -> bytes:
        while len(self._buf) < n:
            try:
                chunk = self._sock.recv(max(65536, n - len(self._buf)))
            except socket.timeout:
                raise
            except OSError as e:
                raise NdemConnectionError(f"WebSocket read failed: {e}") from e
            if not chunk:
                self._closed = True
                raise WebSocketClosed(1006, "connection lost")
            self._buf += chunk
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def _frame(self) -> Tuple[bool, int, bytes]:
        b0, b1 = self._read(2)
        if b0 & 0x70:
            raise WebSocketError("reserved bits set (no extension was negotiated)")
        n = b1 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", self._read(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", self._read(8))
        if n > MAX_MESSAGE:
            raise WebSocketError(f"frame of {n} bytes is too large")
        if b1 & 0x80:
            raise WebSocketError("the server masked a frame (RFC 6455 5.1)")
        return bool(b0 & 0x80), b0 & 0x0F, self._read(n)

    def send(self, opcode: int, payload: bytes = b"") -> None:
        """Sends one masked frame."""
        try:
            self._sock.sendall(encode_frame(opcode, payload))
        except OSError as e:
            raise NdemConnectionError(f"WebSocket write failed: {e}") from e

    def send_text(self, text: str) -> None:
        """Sends a text message."""
        self.send(OP_TEXT, text.encode("utf-8"))

    def recv(self) -> Union[str, bytes]:
        """The next message; pings are answered on the way.

        Raises :class:`WebSocketClosed` when the server closes (after answering
        its close frame) or the connection drops, and :class:`WebSocketError`
        (the connection closed) when the server breaks the protocol.
        """
        if self._closed:
            raise WebSocketClosed(None, "already closed")
        try:
            return self._message()
        except WebSocketError:
            self._shutdown()  # RFC 6455 7.1.7: fail the connection
            raise

    def _message(self) -> Union[str, bytes]:
        parts = []
        kind = None
        size = 0
        while True:
            fin, op, payload = self._frame()
            if op == OP_PING:
                self.send(OP_PONG, payload)
                continue
            if op == OP_PONG:
                continue
            if op == OP_CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                reason = payload[2:].decode("utf-8", "replace")
                try:
                    self.send(OP_CLOSE, payload[:2])
                except NdemConnectionError:
                    pass
                self._shutdown()
                raise WebSocketClosed(code, reason)
            if op in (OP_TEXT, OP_BINARY):
                if kind is not None:
                    raise WebSocketError("a new message began inside a fragmented one")
                kind = op
            elif op != OP_CONT or kind is None:
                raise WebSocketError(f"unexpected opcode {op}")
            parts.append(payload)
            size += len(payload)
            if size > MAX_MESSAGE:
                raise WebSocketError("message too large")
            if fin:
                data = b"".join(parts)
                return data.decode("utf-8") if kind == OP_TEXT else data

    def close(self, code: int = 1000) -> None:
        """Sends a close frame, waits briefly for the server's, and closes the socket."""
        if self._closed:
            return
        try:
            self.send(OP_CLOSE, struct.pack("!H", code))
            self._sock.settimeout(2.0)
            while True:
                _, op, _ = self._frame()
                if op == OP_CLOSE:
                    break
        except (NdemError, OSError):
            pass
        self._shutdown()

    def _shutdown(self) -> None:
        self._closed = True
        try:
            self._sock.close()
        except OSError:
            pass

    def __enter__(self) -> "WebSocket":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
