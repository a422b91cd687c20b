// Unit tests of the browser client's pure modules (no browser): the NDF1
// reader, JSON Pointer locations in the editor text, the compact printer and
// the tar writer. Run by tests/cli_web.sh with `node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNdf } from '../../web/js/ndf.js';
import { pointerMap, locate, lineOf, pretty, resolve } from '../../web/js/jsondoc.js';
import { makeTar } from '../../web/js/tar.js';

function ndf(n, fields, { header = 48, index = 7, step = 1234, time = 0.5 } = {}) {
  const per = [3, 1, 1, 3, 3].filter((_, k) => fields & (1 << k)).reduce((a, b) => a + b, 0);
  const buf = new ArrayBuffer(header + 4 * per * n), dv = new DataView(buf);
  [78, 68, 70, 49].forEach((c, k) => dv.setUint8(k, c));
  dv.setUint32(4, header, true); dv.setUint32(8, index, true); dv.setUint32(12, n, true);
  dv.setBigInt64(16, BigInt(step), true); dv.setFloat64(24, time, true); dv.setUint32(32, fields, true); dv.setUint32(36, 1, true);
  const f = new Float32Array(buf, header);
  for (let k = 0; k < f.length; k++) f[k] = k;
  return buf;
}

test('NDF1 stream frame: header and the three arrays', () => {
  const f = parseNdf(ndf(2, 7));
  assert.equal(f.n, 2); assert.equal(f.index, 7); assert.equal(f.step, 1234); assert.equal(f.time, 0.5);
  assert.deepEqual([...f.positions], [0, 1, 2, 3, 4, 5]);
  assert.deepEqual([...f.radii], [6, 7]);
  assert.deepEqual([...f.scalar], [8, 9]);
});

test('NDF1 stored frame: speed from the velocities, a longer header skipped', () => {
  const f = parseNdf(ndf(1, 1 | 2 | 8 | 16, { header: 64 }));
  assert.deepEqual([...f.positions], [0, 1, 2]);
  assert.equal(f.radii[0], 3);
  assert.ok(Math.abs(f.scalar[0] - Math.hypot(4, 5, 6)) < 1e-5);
  assert.deepEqual([...f.angular], [7, 8, 9]);
});

test('NDF1: wrong magic and truncation are errors', () => {
  const b = ndf(3, 7);
  new DataView(b).setUint8(0, 88);
  assert.throws(() => parseNdf(b), /not an NDF1/);
  assert.throws(() => parseNdf(ndf(3, 7).slice(0, 60)), /truncated/);
});

const doc = `{
  "name": "x",
  "scene": {
    "materials": [
      {"name": "a", "densty": 1}
    ],
    "geometry": [{"type": "plane"}]
  },
  "solver": {"time_step": -1}
}`;

test('JSON Pointers locate their lines, missing ones their parent', () => {
  const map = pointerMap(doc);
  const line = (p) => lineOf(doc, locate(doc, p, map).keyStart);
  assert.equal(line('/name'), 2);
  assert.equal(line('/scene/materials/0/densty'), 5);
  assert.equal(line('/solver/time_step'), 9);
  const missing = locate(doc, '/scene/geometry/0/normal', map);
  assert.equal(missing.exact, false);
  assert.equal(lineOf(doc, missing.keyStart), 7);
  assert.equal(locate(doc, '', map).start, 0);
});

test('JSON Pointer escapes and a partial map of broken text', () => {
  const t = '{"a/b": {"c~d": [1, 2]}, "e": ';
  const map = pointerMap(t);
  assert.ok(map.has('/a~1b/c~0d/1'));
  assert.ok(!map.has('/e'));
});

test('pretty keeps short arrays on a line and round-trips', () => {
  const v = { a: [1, 2, 3], b: [[0, 0, 1, 0.5]], c: { d: true, e: null }, f: [] };
  const t = pretty(v);
  assert.ok(t.includes('"a": [1, 2, 3]'));
  assert.ok(t.includes('[0, 0, 1, 0.5]'));
  assert.deepEqual(JSON.parse(t), v);
});

test('resolve creates the missing parents it is asked to', () => {
  const d = {};
  const [o, k] = resolve(d, '/solver/time_step', true);
  o[k] = 0.01;
  assert.deepEqual(d, { solver: { time_step: 0.01 } });
  assert.equal(resolve({}, '/a/b'), null);
});

test('tar: ustar headers, sizes, checksums and padding', async () => {
  const blob = makeTar([{ name: 'frames/000001.ndf', data: new Uint8Array([1, 2, 3]) }, { name: 'b.txt', data: new Uint8Array(512) }]);
  const b = Buffer.from(await blob.arrayBuffer());
  assert.equal(b.length, 512 + 512 + 512 + 512 + 1024);
  assert.equal(b.toString('latin1', 0, 17), 'frames/000001.ndf');
  assert.equal(parseInt(b.toString('latin1', 124, 135), 8), 3);
  assert.equal(b.toString('latin1', 257, 262), 'ustar');
  const sum = [...b.subarray(0, 512)].reduce((s, x, k) => s + (k >= 148 && k < 156 ? 32 : x), 0);
  assert.equal(parseInt(b.toString('latin1', 148, 154), 8), sum);
  assert.deepEqual([...b.subarray(512, 515)], [1, 2, 3]);
});
