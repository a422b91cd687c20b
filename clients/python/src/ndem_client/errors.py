"""Exceptions raised by the client.

Every error of the daemon is an RFC 9457 problem+json document; it becomes a
:class:`ProblemError` carrying its members, JSON Pointers included.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional


class NdemError(Exception):
    """Base class of every exception of ``ndem_client``."""


class ProblemError(NdemError):
    """The daemon answered an error (``application/problem+json``).

    ``errors`` holds one ``{"pointer", "message"}`` per problem of an invalid
    job document (422), the pointers being JSON Pointers into the document as
    sent; ``pointers`` lists just the pointers.
    """

    def __init__(
        self,
        status: int,
        title: str,
        detail: str,
        errors: Optional[List[Dict[str, str]]] = None,
        type: str = "about:blank",
        method: str = "",
        url: str = "",
        body: Optional[Dict[str, Any]] = None,
    ) -> None:
        self.status = status
        self.title = title
        self.detail = detail
        self.errors: List[Dict[str, str]] = list(errors or [])
        self.type = type
        self.method = method
        self.url = url
        self.body: Dict[str, Any] = dict(body or {})
        where = f"{method} {url}: " if method else ""
        text = f"{where}{status} {title}: {detail}" if detail else f"{where}{status} {title}"
        # every pointer on its own line: the first one is not always the one wanted
        for e in self.errors[1:]:
            text += f"\n  {e.get('pointer', '')}: {e.get('message', '')}"
        super().__init__(text)

    @property
    def pointers(self) -> List[str]:
        """The JSON Pointers of ``errors``, in document order."""
        return [str(e.get("pointer", "")) for e in self.errors]

    @classmethod
    def from_response(
        cls, status: int, reason: str, content_type: str, body: bytes, method: str, url: str
    ) -> "ProblemError":
        """Builds the error from an HTTP answer, problem+json or not."""
        import json

        doc: Dict[str, Any] = {}
        if "json" in content_type:
            try:
                parsed = json.loads(body.decode("utf-8", "replace"))
                if isinstance(parsed, dict):
                    doc = parsed
            except ValueError:
                pass
        if not doc:
            # libmicrohttpd answers a few malformed requests with a short HTML page
            text = body.decode("utf-8", "replace").strip()
            doc = {"title": reason or "Error", "detail": text[:500]}
        errors = doc.get("errors")
        return cls(
            status=int(doc.get("status", status)),
            title=str(doc.get("title", reason)),
            detail=str(doc.get("detail", "")),
            errors=errors if isinstance(errors, list) else None,
            type=str(doc.get("type", "about:blank")),
            method=method,
            url=url,
            body=doc,
        )


class NdemConnectionError(NdemError, ConnectionError):
    """The daemon could not be reached, or the connection broke."""


class NdemTimeoutError(NdemError, TimeoutError):
    """A wait ran past its ``timeout``."""


class JobFailedError(NdemError):
    """``Job.wait(check=True)`` found the job ``failed`` or ``cancelled``."""

    def __init__(self, job_id: str, status: str, error: Optional[str]) -> None:
        self.job_id = job_id
        self.status = status
        self.error = error
        super().__init__(f"job {job_id} {status}" + (f": {error}" if error else ""))


class FrameError(NdemError):
    """A binary frame (NDF1) is malformed or fails its CRC-32C."""


class NotSupportedByDaemonError(NdemError, NotImplementedError):
    """The daemon has no route for this feature (an older ndemd)."""
