// ndf.js - reads one NDF1 binary frame (docs/frames.md): a little-endian
// header of `header size` bytes, then float32 arrays for each field bit set.

export const FIELD_POSITIONS = 1, FIELD_RADII = 2, FIELD_SCALAR = 4, FIELD_VELOCITIES = 8, FIELD_ANGULAR = 16;

export function parseNdf(buffer) {
  const dv = new DataView(buffer);
  if (buffer.byteLength < 48) throw new Error('frame too short');
  const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
  if (magic !== 'NDF1') throw new Error(`not an NDF1 frame (magic '${magic}')`);
  const header = dv.getUint32(4, true);
  const index = dv.getUint32(8, true);
  const n = dv.getUint32(12, true);
  const step = Number(dv.getBigInt64(16, true));
  const time = dv.getFloat64(24, true);
  const fields = dv.getUint32(32, true);
  const scalarKind = dv.getUint32(36, true);
  let off = header;
  const take = (count) => {
    if (off + count * 4 > buffer.byteLength) throw new Error('frame truncated');
    // the arrays start at multiples of 4 (48-byte header): no copy needed
    const a = off % 4 === 0 ? new Float32Array(buffer, off, count) : new Float32Array(buffer.slice(off, off + count * 4));
    off += count * 4;
    return a;
  };
  const f = { index, n, step, time, fields, scalarKind, positions: null, radii: null, scalar: null, velocities: null, angular: null };
  if (fields & FIELD_POSITIONS) f.positions = take(3 * n);
  if (fields & FIELD_RADII) f.radii = take(n);
  if (fields & FIELD_SCALAR) f.scalar = take(n);
  if (fields & FIELD_VELOCITIES) f.velocities = take(3 * n);
  if (fields & FIELD_ANGULAR) f.angular = take(3 * n);
  if (!f.scalar && f.velocities) { // stored frames carry velocities: speed from them
    const s = new Float32Array(n), v = f.velocities;
    for (let i = 0; i < n; i++) s[i] = Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    f.scalar = s;
    f.scalarKind = 1;
  }
  if (!f.radii) f.radii = new Float32Array(n).fill(0.005);
  return f;
}
