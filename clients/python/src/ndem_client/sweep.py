"""Parameter sweeps (``/api/v1/sweeps``).

The sweep routes of docs/api.md (``POST /sweeps``, ``GET /sweeps/{id}``,
``GET /sweeps/{id}/results``, cancel, delete). An older daemon without them
answers 404, which :meth:`Client.sweep` turns into
:class:`NotSupportedByDaemonError`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Sequence, Union

from ._http import Transport
from .errors import NdemTimeoutError
from .job import TERMINAL, Job, _poll_sleep
from .progress import ProgressBar

if TYPE_CHECKING:  # pragma: no cover
    import pandas

SWEEP_TERMINAL = ("done", "failed", "cancelled")

Parameters = Union[Mapping[str, Sequence[Any]], Sequence[Mapping[str, Any]]]


def parameter_list(parameters: Parameters) -> List[Dict[str, Any]]:
    """``[{"pointer", "values"}, ...]`` from that list or a ``{pointer: values}`` mapping."""
    if isinstance(parameters, Mapping):
        items = [{"pointer": p, "values": list(v)} for p, v in parameters.items()]
    else:
        items = [{"pointer": p["pointer"], "values": list(p["values"])} for p in parameters]
    for p in items:
        if not isinstance(p["pointer"], str) or not (p["pointer"] == "" or p["pointer"].startswith("/")):
            raise ValueError(f"a parameter's pointer must be a JSON Pointer ('/solver/iterations'), "
                             f"not {p['pointer']!r}")
    return items


class Sweep:
    """One sweep: a base document expanded over parameters into jobs."""

    def __init__(self, transport: Transport, resource: Dict[str, Any]) -> None:
        self._t = transport
        self.resource: Dict[str, Any] = resource

    def __repr__(self) -> str:
        return f"<Sweep {self.id} {self.resource.get('status', '?')} {len(self.jobs)} jobs>"

    @property
    def id(self) -> str:
        return str(self.resource["id"])

    @property
    def path(self) -> str:
        return f"/api/v1/sweeps/{self.id}"

    def refresh(self) -> Dict[str, Any]:
        """Fetches the sweep resource again and returns it."""
        self.resource = self._t.get_json(self.path)
        return self.resource

    @property
    def status(self) -> str:
        """The sweep's status (fetched)."""
        return str(self.refresh().get("status", ""))

    @property
    def jobs(self) -> List[Job]:
        """The sweep's jobs in order (from the last fetched resource)."""
        out = []
        for j in self.resource.get("jobs", []):
            out.append(Job(self._t, {"id": j} if isinstance(j, str) else dict(j)))
        return out

    def _done(self) -> bool:
        # a sweep's own final statuses: done, failed, cancelled (every job finished)
        if self.resource.get("status") in SWEEP_TERMINAL:
            return True
        jobs = self.resource.get("jobs", [])
        return bool(jobs) and all(isinstance(j, Mapping) and j.get("status") in TERMINAL for j in jobs)

    def wait(self, progress: bool = True, timeout: float | None = None, poll: float = 1.0) -> "Sweep":
        """Waits until every job of the sweep has finished; returns ``self``."""
        bar = ProgressBar(f"sweep {self.id}", enabled=None if progress else False)
        started = time.monotonic()
        try:
            while True:
                self.refresh()
                jobs = self.resource.get("jobs", [])
                finished = sum(1 for j in jobs if isinstance(j, Mapping) and j.get("status") in TERMINAL)
                bar.update(finished / len(jobs) if jobs else 0.0, f"{finished}/{len(jobs)} jobs finished")
                if self._done():
                    return self
                if timeout is not None and time.monotonic() - started > timeout:
                    raise NdemTimeoutError(f"sweep {self.id}: {finished} of {len(jobs)} jobs finished "
                                           f"after {timeout} s")
                time.sleep(_poll_sleep(started, poll))
        finally:
            bar.close()

    def results(self, as_dataframe: bool = False) -> Union[List[Dict[str, Any]], "pandas.DataFrame"]:
        """One row per job: its parameter values and its final summary.

        A list of dicts, or a pandas DataFrame with ``as_dataframe``.
        """
        doc = self._t.get_json(f"{self.path}/results")
        rows = doc
        if isinstance(doc, Mapping):
            rows = doc.get("rows", doc.get("results", []))
        rows = [dict(r) for r in rows]
        if not as_dataframe:
            return rows
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Sweep.results(as_dataframe=True) needs pandas (pip install pandas)") from e
        return pd.DataFrame(rows)

    def results_csv(self) -> str:
        """The results as CSV text."""
        return self._t.request("GET", f"{self.path}/results", accept="text/csv").body.decode("utf-8")

    def cancel(self) -> None:
        """Cancels every queued or running job of the sweep (running ones stop after their step)."""
        self.resource = self._t.post_json(f"{self.path}/cancel").json()

    def delete(self) -> None:
        """Deletes the sweep and every job of it (409 while a job of it is queued or running)."""
        self._t.request("DELETE", self.path)
