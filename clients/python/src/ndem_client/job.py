"""A job of the daemon: its status, frames, series and live stream."""

from __future__ import annotations

import json
import os
import shutil
import tarfile
import tempfile
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Union

from ._http import Transport
from .contacts import Contacts
from .errors import JobFailedError, NdemTimeoutError, ProblemError
from .frames import Frame, frame_info, parse_frame
from .progress import ProgressBar
from .stream import open_stream

if TYPE_CHECKING:  # pragma: no cover
    import pandas

TERMINAL = ("succeeded", "failed", "cancelled")
"""Statuses a job never leaves."""


def _poll_sleep(started: float, poll: float) -> float:
    # answer quickly for short jobs, then settle at `poll` seconds
    return min(poll, 0.05 + 0.5 * (time.monotonic() - started) / 10)


class Job:
    """One job (``/api/v1/jobs/{id}``). Built by :class:`~ndem_client.Client`.

    ``resource`` is the job resource as last fetched (docs/api.md); ``status``
    fetches it again.
    """

    def __init__(self, transport: Transport, resource: Dict[str, Any]) -> None:
        self._t = transport
        self.resource: Dict[str, Any] = resource

    def __repr__(self) -> str:
        return f"<Job {self.id} {self.resource.get('name', '')!r} {self.resource.get('status', '?')}>"

    @property
    def id(self) -> str:
        """The job's id."""
        return str(self.resource["id"])

    @property
    def name(self) -> str:
        """The job document's ``name``."""
        return str(self.resource.get("name", ""))

    @property
    def path(self) -> str:
        return f"/api/v1/jobs/{self.id}"

    def refresh(self) -> Dict[str, Any]:
        """Fetches the job resource again and returns it."""
        self.resource = self._t.get_json(self.path)
        return self.resource

    @property
    def status(self) -> str:
        """The current status (fetched): queued, running, succeeded, failed or cancelled."""
        return str(self.refresh()["status"])

    @property
    def progress(self) -> Dict[str, Any]:
        """``progress`` of the last fetched resource (step, steps_total, time, fraction)."""
        return dict(self.resource.get("progress") or {})

    @property
    def error(self) -> Optional[str]:
        """The failure's message of the last fetched resource, else ``None``."""
        e = self.resource.get("error")
        return None if e is None else str(e)

    @property
    def document(self) -> Dict[str, Any]:
        """The job document with every default filled in (fetched once if needed)."""
        if "job" not in self.resource:
            self.refresh()
        return dict(self.resource["job"])

    def wait(self, progress: bool = True, timeout: Optional[float] = None, poll: float = 1.0,
             check: bool = False) -> "Job":
        """Waits until the job succeeds, fails or is cancelled; returns ``self``.

        ``progress`` draws a bar on stderr when it is a terminal (nothing
        otherwise). ``timeout`` (s) raises :class:`NdemTimeoutError` past it;
        ``check`` raises :class:`JobFailedError` unless the job succeeded.
        """
        bar = ProgressBar(f"job {self.id}", enabled=None if progress else False)
        started = time.monotonic()
        try:
            while True:
                r = self.refresh()
                bar.update_job(r)
                if r["status"] in TERMINAL:
                    break
                if timeout is not None and time.monotonic() - started > timeout:
                    raise NdemTimeoutError(f"job {self.id} still {r['status']} after {timeout} s")
                time.sleep(_poll_sleep(started, poll))
        finally:
            bar.close()
        if check and self.resource["status"] != "succeeded":
            raise JobFailedError(self.id, self.resource["status"], self.error)
        return self

    def frames(self) -> List[Dict[str, Any]]:
        """The stored frames: ``[{"index", "step", "time", "particles"}, ...]``."""
        doc = self._t.get_json(f"{self.path}/frames")
        return [frame_info(f) for f in doc.get("frames", [])]

    def frame(self, n: Union[int, str] = "latest", binary: bool = False, verify: bool = True) -> Frame:
        """Frame ``n`` (an index, or ``"latest"``).

        ``binary`` fetches the stored NDF1 record (float32, every field, CRC-32C
        checked when ``verify``) instead of the JSON frame.
        """
        accept = "application/octet-stream" if binary else "application/json"
        r = self._t.request("GET", f"{self.path}/frames/{n}", accept=accept)
        return parse_frame(r.body, r.content_type, verify=verify)

    def contacts(self, n: Union[int, str] = "latest", verify: bool = True) -> Contacts:
        """The contact network stored with frame ``n`` (an index, or ``"latest"``)
        of a job whose document sets ``output.contacts``: the NDC1 record,
        CRC-32C checked when ``verify`` (docs/frames.md)."""
        r = self._t.request("GET", f"{self.path}/frames/{n}/contacts",
                            accept="application/octet-stream")
        return Contacts.from_ndc(r.body, verify=verify)

    def series(self, every: Optional[int] = None,
               as_dataframe: bool = False) -> Union[Dict[str, List[Any]], "pandas.DataFrame"]:
        """The time series, one column per name (docs/cli.md lists them).

        Returns a dict of lists, or a pandas DataFrame with ``as_dataframe``
        (``ImportError`` when pandas is missing). ``every=N`` keeps every Nth
        row and the last.
        """
        doc = self._t.get_json(f"{self.path}/series", query={"every": every})
        if "damaged_row" in doc:
            warnings.warn(f"job {self.id}: series row {doc['damaged_row']} is damaged; "
                          "rows from it on are not served", RuntimeWarning, stacklevel=2)
        names = doc.get("columns") or list(doc.get("series", {}))
        cols = {name: list(doc["series"].get(name, [])) for name in names}
        if not as_dataframe:
            return cols
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Job.series(as_dataframe=True) needs pandas (pip install pandas)") from e
        return pd.DataFrame(cols, columns=names)

    def series_csv(self) -> str:
        """The series as CSV text (``series.csv``, up to its last verified row)."""
        return self._t.request("GET", f"{self.path}/series", accept="text/csv").body.decode("utf-8")

    def stream(self, frames: bool = False, timeout: Optional[float] = None,
               until_done: bool = True) -> Iterator[Union[Dict[str, Any], Frame]]:
        """Yields the live stream's messages (docs/protocol.md) as they come.

        Text messages are yielded as dicts (``hello``, ``status``,
        ``progress``); binary frames as :class:`Frame` objects only with
        ``frames=True``. With ``until_done`` the iteration ends after a
        ``status`` of succeeded, failed or cancelled. ``timeout`` (s) bounds
        the wait for each message (:class:`NdemTimeoutError`). Uses the
        ``websockets`` package when installed, else a built-in client.
        """
        url = self.resource.get("links", {}).get("stream") or self.refresh()["links"]["stream"]
        with open_stream(url, self._t.token, self._t.headers(), timeout) as conn:
            for msg in conn:
                if isinstance(msg, bytes):
                    if frames:
                        yield Frame.from_ndf(msg)
                    continue
                doc = json.loads(msg)
                yield doc
                if doc.get("type") == "hello" and isinstance(doc.get("job"), dict):
                    self.resource = doc["job"]
                if until_done and doc.get("type") == "status" and doc.get("status") in TERMINAL:
                    return

    def cancel(self) -> str:
        """Cancels the job: ``cancelled`` when it was queued, ``running`` while it stops.

        A finished job raises :class:`ProblemError` (409).
        """
        r = self._t.post_json(f"{self.path}/cancel")
        if r.body:
            doc = r.json()
            if isinstance(doc, dict) and "status" in doc:
                self.resource = doc
        return str(self.resource.get("status", ""))

    def delete(self) -> None:
        """Deletes a finished job and its files (409 for a queued or running one)."""
        self._t.request("DELETE", self.path)

    def download(self, directory: Union[str, "os.PathLike[str]"], archive: bool = True) -> Path:
        """Writes the job's outputs under ``directory`` in the layout of ``ndem run``.

        ``job.json`` (the document with its defaults), ``series.csv``,
        ``frames/NNNNNN.ndf`` (NDF1, as stored) and ``frames/index.csv``; with
        ``archive`` (the default) from the job archive
        (``GET .../archive``, one tar.gz), which adds ``summary.json`` (the job
        resource) and ``paraview/`` (``frames.pvd``: open it in ParaView for
        particles and geometry of every frame). A daemon without the archive
        route, or a job without frames yet (409), gets the files one by one.
        Returns the directory. Meant for a finished job; on a running one it
        takes what exists now.
        """
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        if archive:
            try:
                self._unpack_archive(out)
                return out
            except ProblemError as e:
                if e.status not in (404, 409):
                    raise
                self.refresh()  # an unknown job raises its 404 here
        (out / "frames").mkdir(parents=True, exist_ok=True)
        (out / "job.json").write_text(json.dumps(self.refresh()["job"], indent=2) + "\n")
        (out / "series.csv").write_bytes(
            self._t.request("GET", f"{self.path}/series", accept="text/csv").body)
        rows = ["index,step,time,particles,file"]
        for f in self.frames():
            name = f"{int(f['index']):06d}.ndf"
            r = self._t.request("GET", f"{self.path}/frames/{f['index']}",
                                accept="application/octet-stream")
            (out / "frames" / name).write_bytes(r.body)
            rows.append(f"{f['index']},{f['step']},{f['time']!r},{f['particles']},{name}")
        (out / "frames" / "index.csv").write_text("\n".join(rows) + "\n")
        return out

    def _unpack_archive(self, out: Path) -> None:
        """The job archive into out: fetched into a temporary file there (its
        size is the job's), then unpacked; only plain files under out."""
        with tempfile.TemporaryFile(dir=out) as tmp:
            self._t.download(f"{self.path}/archive", tmp, accept="application/gzip", timeout=600)
            tmp.seek(0)
            with tarfile.open(fileobj=tmp, mode="r:gz") as tar:
                for m in tar:
                    parts = Path(m.name).parts
                    if not m.isfile() or Path(m.name).is_absolute() or ".." in parts:
                        continue  # the daemon writes none; a file never lands outside out
                    target = out.joinpath(*parts)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    src = tar.extractfile(m)
                    if src is not None:
                        with src, open(target, "wb") as dst:
                            shutil.copyfileobj(src, dst)
