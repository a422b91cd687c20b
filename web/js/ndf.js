// ndf.js - reads one NDF1 binary frame (docs/frames.md): a little-endian
// header of `header size` bytes, then float32 arrays for each field bit set,
// u32 materials, the geometry poses (a count, then 64-byte records),
// orientations (4 float32 a particle), shapes (i32) and, from bit 9 on,
// sections of "u32 count, u32 record size, records": box extents (bit 9)
// and those of later versions, skipped by their length.

export const FIELD_POSITIONS = 1, FIELD_RADII = 2, FIELD_SCALAR = 4, FIELD_VELOCITIES = 8, FIELD_ANGULAR = 16,
  FIELD_MATERIALS = 32, FIELD_GEOMETRY = 64, FIELD_ORIENTATIONS = 128, FIELD_SHAPES = 256, FIELD_EXTENTS = 512;

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
  const take = (count, Type = Float32Array) => {
    if (off + count * 4 > buffer.byteLength) throw new Error('frame truncated');
    // the arrays start at multiples of 4 (48-byte header): no copy needed
    const a = off % 4 === 0 ? new Type(buffer, off, count) : new Type(buffer.slice(off, off + count * 4));
    off += count * 4;
    return a;
  };
  const f = { index, n, step, time, fields, scalarKind, positions: null, radii: null, scalar: null, velocities: null, angular: null,
    materials: null, geometry: null, orientations: null, shapes: null };
  if (fields & FIELD_POSITIONS) f.positions = take(3 * n);
  if (fields & FIELD_RADII) f.radii = take(n);
  if (fields & FIELD_SCALAR) f.scalar = take(n);
  if (fields & FIELD_VELOCITIES) f.velocities = take(3 * n);
  if (fields & FIELD_ANGULAR) f.angular = take(3 * n);
  if (fields & FIELD_MATERIALS) f.materials = take(n, Uint32Array);
  if (fields & FIELD_GEOMETRY) { // [{index, position, orientation}], doubles
    if (off + 8 > buffer.byteLength) throw new Error('frame truncated');
    const g = dv.getUint32(off, true);
    if (off + 8 + 64 * g > buffer.byteLength) throw new Error('frame truncated');
    f.geometry = [];
    for (let k = 0, o = off + 8; k < g; k++, o += 64) {
      const at = (i) => dv.getFloat64(o + 8 + 8 * i, true);
      f.geometry.push({ index: dv.getUint32(o, true), position: [at(0), at(1), at(2)], orientation: [at(3), at(4), at(5), at(6)] });
    }
    off += 8 + 64 * g;
  }
  if (fields & FIELD_ORIENTATIONS) f.orientations = take(4 * n);
  if (fields & FIELD_SHAPES) f.shapes = take(n, Int32Array);
  for (let bit = 9; bit < 32; bit++) { // sections: count, record size, records
    if (!((fields >>> bit) & 1)) continue;
    if (off + 8 > buffer.byteLength) throw new Error('frame truncated');
    const count = dv.getUint32(off, true), size = dv.getUint32(off + 4, true);
    if (off + 8 + count * size > buffer.byteLength) throw new Error('frame truncated');
    if (bit === 9 && f.geometry) { // a box's faces where its walls are: onto its pose, as in the JSON frame
      for (let k = 0, o = off + 8; k < count; k++, o += size) {
        const at = (i) => dv.getFloat64(o + 8 + 8 * i, true), g = f.geometry[dv.getUint32(o, true)];
        if (g) { g.min = [at(0), at(1), at(2)]; g.max = [at(3), at(4), at(5)]; }
      }
    }
    off += 8 + count * size;
  }
  if (!f.scalar && f.velocities) { // stored frames carry velocities: speed from them
    const s = new Float32Array(n), v = f.velocities;
    for (let i = 0; i < n; i++) s[i] = Math.hypot(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    f.scalar = s;
    f.scalarKind = 1;
  }
  if (!f.radii) f.radii = new Float32Array(n).fill(0.005);
  return f;
}
