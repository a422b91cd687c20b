"""Opens a job's live stream with ``websockets`` when installed, else the built-in client.

Both give the same thing: an iterator of messages (``str`` for text, ``bytes``
for binary frames) that ends when the server closes the connection.
"""

from __future__ import annotations

import socket
from contextlib import contextmanager
from typing import Any, Dict, Iterator, Optional, Union
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .errors import NdemConnectionError, NdemTimeoutError
from .websocket import MAX_MESSAGE, WebSocket, WebSocketClosed, WebSocketError

Message = Union[str, bytes]


def with_token(url: str, token: Optional[str]) -> str:
    """``url`` with ``?token=`` added (the stream's way to take a token, for browsers)."""
    if not token:
        return url
    p = urlsplit(url)
    q = [(k, v) for k, v in parse_qsl(p.query) if k != "token"] + [("token", token)]
    return urlunsplit((p.scheme, p.netloc, p.path, urlencode(q), p.fragment))


def _websockets_connect() -> Any:
    """``websockets.sync.client.connect`` (websockets >= 11), or None."""
    try:
        from websockets.sync.client import connect  # type: ignore[import-not-found]
    except ImportError:
        return None
    return connect


def _builtin(url: str, headers: Dict[str, str], timeout: Optional[float]) -> Iterator[Message]:
    try:
        ws = WebSocket.connect(url, timeout=timeout if timeout is not None else 10.0, headers=headers)
    except WebSocketError as e:
        raise NdemConnectionError(f"stream {url}: {e}") from e
    try:
        ws.settimeout(timeout)
        while True:
            try:
                yield ws.recv()
            except WebSocketClosed:
                return
            except socket.timeout as e:
                raise NdemTimeoutError(f"stream {url}: no message within {timeout} s") from e
    finally:
        ws.close()


def _with_websockets(connect: Any, url: str, headers: Dict[str, str],
                     timeout: Optional[float]) -> Iterator[Message]:
    from websockets.exceptions import ConnectionClosed, InvalidHandshake  # type: ignore

    # websockets sends its own User-Agent
    extra = {k: v for k, v in headers.items() if k.lower() != "user-agent"}
    try:
        conn = connect(url, additional_headers=extra, max_size=MAX_MESSAGE,
                       open_timeout=timeout if timeout is not None else 10.0)
    except (InvalidHandshake, OSError) as e:
        raise NdemConnectionError(f"stream {url}: {e}") from e
    try:
        while True:
            try:
                yield conn.recv(timeout)
            except ConnectionClosed:
                return
            except TimeoutError as e:
                raise NdemTimeoutError(f"stream {url}: no message within {timeout} s") from e
    finally:
        conn.close()


@contextmanager
def open_stream(url: str, token: Optional[str], headers: Dict[str, str],
                timeout: Optional[float] = None, use_websockets: Optional[bool] = None
                ) -> Iterator[Iterator[Message]]:
    """Yields an iterator of the stream's messages; closes the connection on exit.

    ``use_websockets``: None picks the ``websockets`` package when it is
    installed, False forces the built-in client.
    """
    url = with_token(url, token)
    connect = _websockets_connect() if use_websockets is not False else None
    if use_websockets and connect is None:
        raise ImportError("the websockets package (>= 11, with its sync client) is not installed")
    gen = _with_websockets(connect, url, headers, timeout) if connect else _builtin(url, headers, timeout)
    try:
        yield gen
    finally:
        gen.close()
