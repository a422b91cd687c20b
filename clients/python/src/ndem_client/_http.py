"""HTTP transport: urllib.request with the daemon's rules applied.

State-changing requests always carry ``Content-Type: application/json`` (the
daemon answers 415 otherwise, body or not); a token goes in
``Authorization: Bearer``; any error status becomes a :class:`ProblemError`
and a failed connection an :class:`NdemConnectionError`.
"""

from __future__ import annotations

import http.client
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional

from .errors import NdemConnectionError, ProblemError

USER_AGENT = "ndem-client-python"


@dataclass
class Response:
    """An answer of the daemon."""

    status: int
    headers: Dict[str, str]
    body: bytes

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


class Transport:
    """Sends requests to one daemon (base URL without a trailing slash)."""

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 30.0) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"the daemon's URL must be http://HOST:PORT or https://..., not {url!r}")
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        # no proxies: a daemon on loopback must not be sent to an http_proxy
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def headers(self) -> Dict[str, str]:
        """Headers sent with every request (and the WebSocket handshake)."""
        h = {"User-Agent": USER_AGENT}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        return h

    def request(
        self,
        method: str,
        path: str,
        body: Optional[bytes] = None,
        query: Optional[Mapping[str, Any]] = None,
        accept: str = "application/json",
        timeout: Optional[float] = None,
    ) -> Response:
        """Sends one request; raises on any status of 400 or above."""
        url = path if path.startswith(("http://", "https://")) else self.url + path
        if query:
            q = {k: v for k, v in query.items() if v is not None}
            if q:
                url += ("&" if "?" in url else "?") + urllib.parse.urlencode(q)
        headers = self.headers()
        headers["Accept"] = accept
        if method not in ("GET", "HEAD"):
            headers["Content-Type"] = "application/json"
            if body is None:
                body = b""
        req = urllib.request.Request(url, data=body, headers=headers, method=method)
        try:
            with self._opener.open(req, timeout=timeout or self.timeout) as r:
                return Response(r.status, {k.lower(): v for k, v in r.headers.items()}, r.read())
        except urllib.error.HTTPError as e:
            data = e.read() if e.fp is not None else b""
            ctype = e.headers.get("Content-Type", "") if e.headers else ""
            raise ProblemError.from_response(e.code, e.reason, ctype, data, method, url) from None
        except urllib.error.URLError as e:
            raise NdemConnectionError(f"cannot reach ndemd at {self.url} ({method} {url}): {e.reason}") from e
        except (socket.timeout, TimeoutError) as e:
            raise NdemConnectionError(f"ndemd at {self.url} did not answer {method} {url} within "
                                      f"{timeout or self.timeout} s") from e
        except (ConnectionError, OSError, http.client.HTTPException) as e:
            # a reset, or an answer cut short (IncompleteRead, BadStatusLine)
            raise NdemConnectionError(f"connection to ndemd at {self.url} failed ({method} {url}): {e}") from e

    def download(self, path: str, sink: Any, accept: str = "*/*", timeout: Optional[float] = None) -> None:
        """GETs path into the binary file object ``sink`` in 1 MiB pieces (a body
        of any size, held piece by piece); raises as :meth:`request`."""
        url = self.url + path
        headers = self.headers()
        headers["Accept"] = accept
        req = urllib.request.Request(url, headers=headers, method="GET")
        try:
            with self._opener.open(req, timeout=timeout or self.timeout) as r:
                while True:
                    piece = r.read(1 << 20)
                    if not piece:
                        break
                    sink.write(piece)
        except urllib.error.HTTPError as e:
            data = e.read() if e.fp is not None else b""
            ctype = e.headers.get("Content-Type", "") if e.headers else ""
            raise ProblemError.from_response(e.code, e.reason, ctype, data, "GET", url) from None
        except urllib.error.URLError as e:
            raise NdemConnectionError(f"cannot reach ndemd at {self.url} (GET {url}): {e.reason}") from e
        except (socket.timeout, TimeoutError) as e:
            raise NdemConnectionError(f"ndemd at {self.url} did not answer GET {url} within "
                                      f"{timeout or self.timeout} s") from e
        except (ConnectionError, OSError, http.client.HTTPException) as e:
            raise NdemConnectionError(f"connection to ndemd at {self.url} failed (GET {url}): {e}") from e

    def get_json(self, path: str, query: Optional[Mapping[str, Any]] = None) -> Any:
        return self.request("GET", path, query=query).json()

    def post_json(self, path: str, doc: Any = None, raw: Optional[bytes] = None) -> Response:
        body = raw if raw is not None else (json.dumps(doc).encode("utf-8") if doc is not None else b"")
        return self.request("POST", path, body=body)
