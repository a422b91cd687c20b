// stl.js - the triangles of a job's mesh geometry (docs/job.md, docs/meshes.md)
// for the 3D view: inline `vertices`/`triangles`, inline `stl` (ASCII text,
// or binary STL as base64), or an uploaded mesh by id (its bytes fetched by
// the caller), and the entry's placement (position, orientation [w, x, y, z],
// scale). Pure: no DOM, no three.js, so that node can test it.

// Binary when the size is 84 + 50 n for the count n at byte 80 (even if the
// header starts with "solid"), else ASCII when it starts with "solid": the
// parser's rule (api/stl.h). 9 floats per triangle.
export function parseStl(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (u8.length >= 84) {
    const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
    const n = dv.getUint32(80, true);
    if (u8.length === 84 + 50 * n) {
      const out = new Float32Array(9 * n);
      for (let t = 0; t < n; t++) for (let k = 0; k < 9; k++) out[9 * t + k] = dv.getFloat32(84 + 50 * t + 12 + 4 * k, true);
      return out;
    }
  }
  const text = new TextDecoder().decode(u8);
  if (!/^\s*solid/i.test(text)) throw new Error('not STL: neither binary (84 + 50 n bytes) nor ASCII (starting with "solid")');
  const out = [];
  const re = /vertex\s+(\S+)\s+(\S+)\s+(\S+)/gi;
  for (let m; (m = re.exec(text));) out.push(Number(m[1]), Number(m[2]), Number(m[3]));
  if (out.length === 0 || out.length % 9 || out.some((v) => !Number.isFinite(v))) throw new Error('ASCII STL: no whole triangles of finite vertices');
  return Float32Array.from(out);
}

// Standard base64 (RFC 4648) to bytes.
export function decodeBase64(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let k = 0; k < bin.length; k++) out[k] = bin.charCodeAt(k);
  return out;
}

// An inline `stl` string: ASCII STL text, or binary STL as base64.
export function inlineStl(text) {
  return parseStl(/^\s*solid/i.test(text) ? new TextEncoder().encode(text) : decodeBase64(text.trim()));
}

// The triangles of a mesh entry: {positions (Float32Array, 3 per vertex),
// index (Uint32Array or null: 3 vertices per triangle in order), triangles}.
// fetchStl(id) resolves to the bytes of an uploaded mesh.
export async function meshArrays(g, fetchStl) {
  if (Array.isArray(g.vertices) && Array.isArray(g.triangles)) {
    const positions = Float32Array.from(g.vertices.flat());
    const index = Uint32Array.from(g.triangles.flat());
    return { positions, index, triangles: g.triangles.length };
  }
  let soup;
  if (typeof g.stl === 'string') soup = inlineStl(g.stl);
  else if (typeof g.mesh === 'string') soup = parseStl(await fetchStl(g.mesh));
  else throw new Error('a mesh entry needs vertices and triangles, stl or mesh');
  return { positions: soup, index: null, triangles: soup.length / 9 };
}

const vec3 = (a) => Array.isArray(a) && a.length === 3 && a.every(Number.isFinite);

// Where the entry puts its mesh: world = position + R(orientation) (scale v).
// quaternion is [x, y, z, w] (three.js order) from the document's [w, x, y, z].
export function placement(g) {
  const position = vec3(g.position) ? g.position : [0, 0, 0];
  const q = Array.isArray(g.orientation) && g.orientation.length === 4 && g.orientation.every(Number.isFinite) ? g.orientation : [1, 0, 0, 0];
  const len = Math.hypot(...q) || 1;
  const quaternion = [q[1] / len, q[2] / len, q[3] / len, q[0] / len];
  const scale = Number.isFinite(g.scale) ? [g.scale, g.scale, g.scale] : vec3(g.scale) ? g.scale : [1, 1, 1];
  return { position, quaternion, scale };
}
