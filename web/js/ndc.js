// ndc.js - reads one NDC1 contact-network record (docs/frames.md, "Contact
// network (NDC1)"): a little-endian header of `header size` bytes, then
// 4-byte arrays for each field bit set (int32 a, b, feature; float32 the rest).

export const NDC_PAIRS = 1, NDC_FEATURE = 2, NDC_POINTS = 4, NDC_NORMALS = 8,
  NDC_NORMAL_FORCE = 16, NDC_TANGENTIAL = 32, NDC_ROLLING = 64;

// The fields in record order: bit, name, values per contact, array type.
const FIELDS = [
  [NDC_PAIRS, 'a', 1, Int32Array], [NDC_PAIRS, 'b', 1, Int32Array], [NDC_FEATURE, 'feature', 1, Int32Array],
  [NDC_POINTS, 'points', 3, Float32Array], [NDC_NORMALS, 'normals', 3, Float32Array],
  [NDC_NORMAL_FORCE, 'normalForces', 1, Float32Array], [NDC_TANGENTIAL, 'tangentialForces', 3, Float32Array],
  [NDC_ROLLING, 'rollingTorques', 3, Float32Array],
];

export function parseNdc(buffer) {
  const dv = new DataView(buffer);
  if (buffer.byteLength < 48) throw new Error('contact record too short');
  const magic = String.fromCharCode(dv.getUint8(0), dv.getUint8(1), dv.getUint8(2), dv.getUint8(3));
  if (magic !== 'NDC1') throw new Error(`not an NDC1 record (magic '${magic}')`);
  const header = dv.getUint32(4, true);
  const c = {
    index: dv.getUint32(8, true), n: dv.getUint32(12, true), step: Number(dv.getBigInt64(16, true)),
    time: dv.getFloat64(24, true), fields: dv.getUint32(32, true),
  };
  let off = header;
  for (const [bit, name, per, Type] of FIELDS) {
    if (!(c.fields & bit)) { c[name] = null; continue; }
    const count = per * c.n;
    if (off + 4 * count > buffer.byteLength) throw new Error('contact record truncated');
    c[name] = off % 4 === 0 ? new Type(buffer, off, count) : new Type(buffer.slice(off, off + 4 * count));
    off += 4 * count;
  }
  return c;
}
