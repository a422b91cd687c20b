"""Frames: the JSON frame and the NDF1 binary record (docs/frames.md).

A :class:`Frame` holds flat lists, as the daemon sends them: ``positions`` is
``[x0, y0, z0, x1, ...]``. :meth:`Frame.as_numpy` gives arrays of shape
``(n, 3)`` and ``(n,)`` when numpy is installed.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional

from .errors import FrameError

NDF1_MAGIC = b"NDF1"
NDF1_HEADER = struct.Struct("<4sIIIqdIIII")  # 48 bytes, little-endian
FLAG_CRC = 1

# (bit, name, 4-byte values per particle, struct code), in the order the
# arrays follow the header; then bit 64, the geometry poses
NDF1_FIELDS = (
    (1, "positions", 3, "f"),
    (2, "radii", 1, "f"),
    (4, "scalar", 1, "f"),
    (8, "velocities", 3, "f"),
    (16, "angular_velocities", 3, "f"),
    (32, "materials", 1, "I"),
)
FIELD_GEOMETRY = 64
POSE = struct.Struct("<II7d")  # index, 0, position x y z, orientation w x y z
# after the poses, arrays only scenes with non-spherical particles have
NDF1_SHAPE_FIELDS = (
    (128, "orientations", 4, "f"),
    (256, "shapes", 1, "i"),
)
EXTENTS_BIT = 9  # box extents (512): the first section of "u32 count, u32 record size, records"
EXTENT = struct.Struct("<II6d")  # index, 0, min x y z, max x y z


def _crc32c_table() -> List[int]:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def crc32c(data: bytes, crc: int = 0) -> int:
    """CRC-32C (Castagnoli) of ``data``; uses the ``crc32c`` package when installed."""
    try:
        import crc32c as fast  # type: ignore[import-not-found]

        return int(fast.crc32c(data, crc))
    except ImportError:
        pass
    c = crc ^ 0xFFFFFFFF
    t = _CRC_TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


@dataclass
class Frame:
    """The state of every particle at one instant (creation order)."""

    index: int
    step: int
    time: float
    particles: int
    positions: List[float] = field(default_factory=list)
    radii: List[float] = field(default_factory=list)
    velocities: List[float] = field(default_factory=list)
    angular_velocities: List[float] = field(default_factory=list)
    scalar: List[float] = field(default_factory=list)
    """per-particle colouring scalar (speed, m/s); binary frames only"""
    materials: List[int] = field(default_factory=list)
    """each particle's index into ``scene.materials`` (empty: a frame of an older daemon)"""
    geometry: List[Dict[str, Any]] = field(default_factory=list)
    """each geometry's pose: ``{"index", "name"?, "position", "orientation"}``, and for a box
    with walls its faces now, ``"min"`` and ``"max"`` (docs/frames.md)"""
    orientations: List[float] = field(default_factory=list)
    """``[w0, x0, y0, z0, ...]``; only with non-spherical particles"""
    shapes: List[int] = field(default_factory=list)
    """each particle's shape template index, -1 a plain sphere; only with non-spherical particles"""
    extra: Dict[str, Any] = field(default_factory=dict)
    """members of a JSON frame this version does not name"""

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "Frame":
        """A frame from the JSON form (``GET .../frames/{n}``, ``final.json``)."""
        known = {"index", "step", "time", "particles", "positions", "radii", "velocities",
                 "angular_velocities", "materials", "geometry", "orientations", "shapes"}

        def floats(name: str) -> List[float]:
            # a value that is not finite is written null
            return [float("nan") if v is None else float(v) for v in doc.get(name) or []]

        return cls(
            index=int(doc.get("index", 0)),
            step=int(doc.get("step", 0)),
            time=float(doc.get("time", 0.0)),
            particles=int(doc.get("particles", 0)),
            positions=floats("positions"),
            radii=floats("radii"),
            velocities=floats("velocities"),
            angular_velocities=floats("angular_velocities"),
            materials=[int(v) for v in doc.get("materials") or []],
            geometry=[dict(g) for g in doc.get("geometry") or []],
            orientations=floats("orientations"),
            shapes=[int(v) for v in doc.get("shapes") or []],
            extra={k: v for k, v in doc.items() if k not in known},
        )

    @classmethod
    def from_ndf(cls, data: bytes, verify: bool = True) -> "Frame":
        """A frame from one NDF1 record (a stored ``.ndf`` file or a stream message).

        The length must match the header exactly, and with ``verify`` a record
        whose flag says it carries a CRC-32C must match it; else :class:`FrameError`.
        """
        if len(data) < NDF1_HEADER.size:
            raise FrameError(f"NDF1 record of {len(data)} bytes is shorter than its header")
        magic, hsize, index, n, step, time, fields, _kind, crc, flags = NDF1_HEADER.unpack_from(data)
        if magic != NDF1_MAGIC:
            raise FrameError(f"not an NDF1 record (magic {magic!r})")
        if hsize < NDF1_HEADER.size:
            raise FrameError(f"NDF1 header size {hsize} is below {NDF1_HEADER.size}")
        present = [(name, width, code) for bit, name, width, code in NDF1_FIELDS if fields & bit]
        want = hsize + 4 * n * sum(w for _, w, _ in present)
        poses_at, poses = want, 0
        if fields & FIELD_GEOMETRY:
            if len(data) < want + 8:
                raise FrameError(f"NDF1 record is {len(data)} bytes; its header says {want + 8}+")
            poses = struct.unpack_from("<I", data, want)[0]
            want += 8 + POSE.size * poses
        # orientations and shapes after the poses, in bit order
        later = []
        for bit, name, width, code in NDF1_SHAPE_FIELDS:
            if fields & bit:
                later.append((name, width, code, want))
                want += 4 * n * width
        # bit 9 on: sections of "count, record size, records", skipped by length when unknown
        sections = {}
        for bit in range(EXTENTS_BIT, 32):
            if not fields >> bit & 1:
                continue
            if len(data) < want + 8:
                raise FrameError(f"NDF1 record is {len(data)} bytes; its header says {want + 8}+")
            count, size = struct.unpack_from("<II", data, want)
            if size < 4 or size % 4:
                raise FrameError(f"NDF1 field bit {bit}: record size {size}")
            sections[bit] = (want + 8, count, size)
            want += 8 + count * size
        if len(data) != want:
            raise FrameError(f"NDF1 record is {len(data)} bytes; its header says {want}")
        if verify and flags & FLAG_CRC:
            got = crc32c(data[:40] + bytes(4) + data[44:])
            if got != crc:
                raise FrameError(f"NDF1 frame {index} fails its CRC-32C ({got:08x} != {crc:08x})")
        frame = cls(index=index, step=step, time=time, particles=n)
        off = hsize
        for name, width, code in present:
            count = width * n
            setattr(frame, name, list(struct.unpack_from(f"<{count}{code}", data, off)))
            off += 4 * count
        off = poses_at + 8
        for _ in range(poses):
            g, _zero, *v = POSE.unpack_from(data, off)
            frame.geometry.append({"index": g, "position": v[:3], "orientation": v[3:]})
            off += POSE.size
        for name, width, code, at in later:
            setattr(frame, name, list(struct.unpack_from(f"<{width * n}{code}", data, at)))
        if EXTENTS_BIT in sections:  # a box's faces onto its pose, as in the JSON frame
            at, count, size = sections[EXTENTS_BIT]
            for k in range(count):
                g, _zero, *v = EXTENT.unpack_from(data, at + k * size)
                if g < len(frame.geometry):
                    frame.geometry[g].update({"min": v[:3], "max": v[3:]})
        return frame

    def as_numpy(self) -> Dict[str, Any]:
        """The arrays as numpy arrays: vectors ``(n, 3)``, scalars ``(n,)``.

        Raises ``ImportError`` when numpy is not installed.
        """
        import numpy as np

        out: Dict[str, Any] = {}
        for name, width in (("positions", 3), ("radii", 1), ("velocities", 3),
                            ("angular_velocities", 3), ("scalar", 1)):
            values = getattr(self, name)
            arr = np.asarray(values, dtype=np.float64)
            out[name] = arr.reshape(-1, 3) if width == 3 else arr
        return out

    def xyz(self, i: int) -> List[float]:
        """The position of particle ``i`` as ``[x, y, z]``."""
        return self.positions[3 * i:3 * i + 3]


def frame_info(doc: Mapping[str, Any]) -> Dict[str, Any]:
    """One entry of ``GET .../frames`` (index, step, time, particles)."""
    return {k: doc.get(k) for k in ("index", "step", "time", "particles")}


def parse_frame(body: bytes, content_type: str, verify: bool = True) -> Frame:
    """A frame from an HTTP body, JSON or NDF1 by its content type."""
    if "octet-stream" in content_type or body[:4] == NDF1_MAGIC:
        return Frame.from_ndf(body, verify=verify)
    import json

    doc: Optional[Any] = json.loads(body.decode("utf-8"))
    if not isinstance(doc, dict):
        raise FrameError("the JSON frame is not an object")
    return Frame.from_json(doc)
