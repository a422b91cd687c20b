"""ndem_client: a Python client of ndemd, the ndem daemon.

Standard library only; numpy (``Frame.as_numpy``), pandas
(``Job.series(as_dataframe=True)``) and websockets (``Job.stream``) are used
when installed. Start with :class:`Client`::

    from ndem_client import Client
    job = Client("http://127.0.0.1:8080").submit("examples/pile.json").wait()
    print(job.series()["kinetic_energy"][-1])
"""

from .client import Client
from .contacts import Contacts
from .errors import (FrameError, JobFailedError, NdemConnectionError, NdemError,
                     NdemTimeoutError, NotSupportedByDaemonError, ProblemError)
from .frames import Frame
from .job import TERMINAL, Job
from .sweep import Sweep

__version__ = "0.1.0"

__all__ = [
    "Client", "Job", "Sweep", "Frame", "Contacts", "TERMINAL",
    "NdemError", "ProblemError", "NdemConnectionError", "NdemTimeoutError",
    "JobFailedError", "FrameError", "NotSupportedByDaemonError",
]
