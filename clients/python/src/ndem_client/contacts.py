"""Contact networks: the NDC1 record stored with a frame of a job that sets
``output.contacts`` (docs/frames.md, "Contact network (NDC1)").

:class:`Contacts` holds flat lists, as the record does: ``points`` is
``[x0, y0, z0, x1, ...]``; ``b`` is the other particle's index, or
``-1 - g`` for geometry ``g``. Forces are those on ``b``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import List

from .errors import FrameError
from .frames import FLAG_CRC, crc32c

NDC1_MAGIC = b"NDC1"
NDC1_HEADER = struct.Struct("<4sIIIqdIIII")  # 48 bytes, little-endian

# (bit, names, values per contact each, struct code), in record order
NDC1_FIELDS = (
    (1, ("a", "b"), 1, "i"),
    (2, ("feature",), 1, "i"),
    (4, ("points",), 3, "f"),
    (8, ("normals",), 3, "f"),
    (16, ("normal_forces",), 1, "f"),
    (32, ("tangential_forces",), 3, "f"),
    (64, ("rolling_torques",), 3, "f"),
)


@dataclass
class Contacts:
    """The active contacts of the last step before frame ``index``."""

    index: int
    step: int
    time: float
    count: int
    a: List[int] = field(default_factory=list)
    b: List[int] = field(default_factory=list)
    feature: List[int] = field(default_factory=list)
    points: List[float] = field(default_factory=list)
    normals: List[float] = field(default_factory=list)
    normal_forces: List[float] = field(default_factory=list)
    tangential_forces: List[float] = field(default_factory=list)
    rolling_torques: List[float] = field(default_factory=list)

    @classmethod
    def from_ndc(cls, data: bytes, verify: bool = True) -> "Contacts":
        """Contacts from one NDC1 record; its length must match its header and,
        with ``verify``, its CRC-32C must match; else :class:`FrameError`."""
        if len(data) < NDC1_HEADER.size:
            raise FrameError(f"NDC1 record of {len(data)} bytes is shorter than its header")
        magic, hsize, index, n, step, time, fields, _res, crc, flags = NDC1_HEADER.unpack_from(data)
        if magic != NDC1_MAGIC:
            raise FrameError(f"not an NDC1 record (magic {magic!r})")
        present = [f for f in NDC1_FIELDS if fields & f[0]]
        want = hsize + 4 * n * sum(len(names) * width for _, names, width, _c in present)
        if hsize < NDC1_HEADER.size or len(data) != want:
            raise FrameError(f"NDC1 record is {len(data)} bytes; its header says {want}")
        if verify and flags & FLAG_CRC:
            got = crc32c(data[:40] + bytes(4) + data[44:])
            if got != crc:
                raise FrameError(f"NDC1 record {index} fails its CRC-32C ({got:08x} != {crc:08x})")
        out = cls(index=index, step=step, time=time, count=n)
        off = hsize
        for _bit, names, width, code in present:
            for name in names:
                setattr(out, name, list(struct.unpack_from(f"<{width * n}{code}", data, off)))
                off += 4 * width * n
        return out

    def particle_pairs(self) -> List[int]:
        """The places of the contacts between two particles (``b >= 0``)."""
        return [k for k in range(len(self.b)) if self.b[k] >= 0]
