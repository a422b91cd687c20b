"""The entry point: :class:`Client`, one daemon."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

from ._http import Transport
from .errors import NdemError, NotSupportedByDaemonError, ProblemError
from .job import Job
from .sweep import Parameters, Sweep, parameter_list

Document = Union[Mapping[str, Any], str, "os.PathLike[str]", bytes]


class Client:
    """A client of one ``ndemd``.

    ``url`` is the daemon's base URL (``http://127.0.0.1:8080``); ``token``,
    when given, is sent as ``Authorization: Bearer TOKEN`` with every request
    (and as ``?token=`` on streams). ``timeout`` bounds each HTTP request (s).
    """

    def __init__(self, url: str = "http://127.0.0.1:8080", token: Optional[str] = None,
                 timeout: float = 30.0) -> None:
        self._t = Transport(url, token, timeout)

    def __repr__(self) -> str:
        return f"<Client {self._t.url}>"

    @property
    def url(self) -> str:
        return self._t.url

    def health(self) -> Dict[str, Any]:
        """``GET /health``: its document, ``status`` "ok" or the reason it is not (also on 503)."""
        try:
            return dict(self._t.get_json("/health"))
        except ProblemError as e:
            if e.status == 503 and "status" in e.body:
                return e.body
            raise

    def submit(self, doc_or_path: Document) -> Job:
        """Submits a job: a document (dict), the path of a JSON file, or JSON bytes.

        A file is sent as it is, so the JSON Pointers of a 422
        :class:`ProblemError` point into that file.
        """
        if isinstance(doc_or_path, Mapping):
            body = json.dumps(doc_or_path).encode("utf-8")
        elif isinstance(doc_or_path, bytes):
            body = doc_or_path
        elif isinstance(doc_or_path, (str, os.PathLike)):
            path = Path(doc_or_path)
            if not path.is_file():
                raise FileNotFoundError(f"no job file at {path} (pass a dict to submit a document)")
            body = path.read_bytes()
        else:
            raise TypeError(f"submit() takes a dict, a path or bytes, not {type(doc_or_path).__name__}")
        return Job(self._t, self._t.post_json("/api/v1/jobs", raw=body).json())

    def job(self, job_id: str) -> Job:
        """The job with this id (404 :class:`ProblemError` when there is none)."""
        if not job_id or "/" in job_id:
            raise ValueError(f"not a job id: {job_id!r}")
        return Job(self._t, self._t.get_json(f"/api/v1/jobs/{job_id}"))

    def jobs(self, status: Optional[str] = None, limit: Optional[int] = None,
             full: bool = False) -> List[Job]:
        """Jobs, newest first, following the pages: all of them, or the first ``limit``.

        ``status`` keeps one status; ``full`` includes each job's document.
        """
        out: List[Job] = []
        cursor: Optional[str] = None
        while limit is None or len(out) < limit:
            page = 1000 if limit is None else min(1000, limit - len(out))
            doc = self._t.get_json("/api/v1/jobs", query={
                "status": status, "limit": page, "cursor": cursor,
                "view": "full" if full else None})
            out += [Job(self._t, j) for j in doc.get("jobs", [])]
            cursor = doc.get("next_cursor")
            if not cursor:
                break
        return out

    def _sweep_route(self, e: ProblemError) -> NdemError:
        try:
            version = str(self.health().get("version", "unknown"))
        except NdemError:
            version = "unknown"
        return NotSupportedByDaemonError(
            f"ndemd {version} at {self._t.url} has no sweeps ({e.method} {e.url} answered 404): "
            "parameter sweeps need a daemon with /api/v1/sweeps")

    def sweep(self, base: Union[Mapping[str, Any], str, "os.PathLike[str]"], parameters: Parameters,
              mode: str = "product") -> Sweep:
        """Submits a sweep: ``base`` expanded over ``parameters``.

        ``parameters`` is ``{"/solver/iterations": [25, 50, 100], ...}`` or
        ``[{"pointer": ..., "values": [...]}, ...]``; ``mode`` "product" (every
        combination) or "zip" (the i-th value of each together). Raises
        :class:`NotSupportedByDaemonError` when the daemon has no sweeps.
        """
        if mode not in ("product", "zip"):
            raise ValueError(f"mode must be 'product' or 'zip', not {mode!r}")
        if not isinstance(base, Mapping):
            base = json.loads(Path(base).read_text())
        body = {"base": base, "parameters": parameter_list(parameters), "mode": mode}
        try:
            return Sweep(self._t, self._t.post_json("/api/v1/sweeps", body).json())
        except ProblemError as e:
            if e.status == 404:
                raise self._sweep_route(e) from e
            raise

    def get_sweep(self, sweep_id: str) -> Sweep:
        """The sweep with this id."""
        return Sweep(self._t, self._t.get_json(f"/api/v1/sweeps/{sweep_id}"))

    def sweeps(self) -> List[Sweep]:
        """Every sweep (:class:`NotSupportedByDaemonError` on a daemon without them)."""
        try:
            doc = self._t.get_json("/api/v1/sweeps")
        except ProblemError as e:
            if e.status == 404:
                raise self._sweep_route(e) from e
            raise
        items = doc.get("sweeps", []) if isinstance(doc, Mapping) else doc
        return [Sweep(self._t, s) for s in items]
