"""A one-line progress bar for ``Job.wait()`` and ``Sweep.wait()``.

Drawn only when its stream is a terminal: in a pipeline's log a bar
redrawn with carriage returns is noise, so it stays quiet there.
"""

from __future__ import annotations

import sys
from typing import Any, Mapping, Optional, TextIO


class ProgressBar:
    """Redraws one line on ``stream`` (default stderr) when it is a tty."""

    def __init__(self, label: str, stream: Optional[TextIO] = None, width: int = 30,
                 enabled: Optional[bool] = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty()) if enabled is None else enabled
        self.label = label
        self.width = width
        self._drawn = False

    def line(self, fraction: float, text: str) -> str:
        """The bar's text for ``fraction`` in [0, 1] and a trailing ``text``."""
        f = min(max(fraction, 0.0), 1.0)
        full = int(round(f * self.width))
        return f"{self.label} [{'#' * full}{'.' * (self.width - full)}] {100 * f:5.1f}% {text}"

    def update(self, fraction: float, text: str) -> None:
        if not self.enabled:
            return
        self.stream.write("\r\x1b[K" + self.line(fraction, text))
        self.stream.flush()
        self._drawn = True

    def update_job(self, job: Mapping[str, Any]) -> None:
        """Draws a job resource's status and progress."""
        p = job.get("progress") or {}
        fraction = p.get("fraction") or 0.0
        if job.get("status") == "succeeded":
            fraction = 1.0
        text = f"{job.get('status', '?')}"
        if p.get("steps_total"):
            text += f"  step {p.get('step', 0)}/{p['steps_total']}"
        if p.get("duration"):
            text += f"  t {float(p.get('time') or 0):.4g}/{float(p['duration']):.4g} s"
        self.update(float(fraction), text)

    def close(self) -> None:
        if self.enabled and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
