// Unit tests of the browser client's pure modules (no browser): the NDF1
// reader, JSON Pointer locations in the editor text, the compact printer and
// the tar writer, syntax errors and in-place edits of the editor's text, the
// charts' axis range and text alternative, the job list's order and search,
// a sweep plot's lines, STL and mesh entries for the 3D view, the NDC1
// reader and the force chains drawn from it.
// Run by tests/cli_web.sh with `node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNdf } from '../../web/js/ndf.js';
import { parseNdc } from '../../web/js/ndc.js';
import { chainSegments, CHAIN_MAX_RATIO } from '../../web/js/chains.js';
import { LUT } from '../../web/js/colormap.js';
import { placer, referencePoint } from '../../web/js/scene.js';
import { pointerMap, locate, lineOf, pretty, resolve, syntaxError, setValue } from '../../web/js/jsondoc.js';
import { makeTar } from '../../web/js/tar.js';
import { axisRange, summary } from '../../web/js/chart.js';
import { arrange, createdText, timing } from '../../web/js/joblist.js';
import { namedGeometry, magnitude, seriesMagnitude } from '../../web/js/forces.js';
import { plotSeries } from '../../web/js/sweeps.js';
import { parseStl, inlineStl, meshArrays, placement } from '../../web/js/stl.js';
import { readFileSync } from 'node:fs';

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

test('NDF1 stream frame of this version: u32 materials, then the geometry poses as doubles', () => {
  // 2 particles: positions, radii, speed (20 bytes each), materials; 2 poses
  const n = 2, poses = [[0.25, -1, 1 / 3, Math.SQRT1_2, 0, 0, Math.SQRT1_2], [0, 0, 0, 1, 0, 0, 0]];
  const buf = new ArrayBuffer(48 + 24 * n + 8 + 64 * poses.length), dv = new DataView(buf);
  new Uint8Array(ndf(n, 7)).forEach((b, k) => dv.setUint8(k, b));
  dv.setUint32(32, 1 | 2 | 4 | 32 | 64, true);
  dv.setUint32(48 + 20 * n, 3, true); dv.setUint32(48 + 20 * n + 4, 0, true);
  dv.setUint32(48 + 24 * n, poses.length, true);
  poses.forEach((p, k) => {
    const o = 48 + 24 * n + 8 + 64 * k;
    dv.setUint32(o, k, true);
    p.forEach((v, i) => dv.setFloat64(o + 8 + 8 * i, v, true));
  });
  const f = parseNdf(buf);
  assert.deepEqual([...f.scalar], [8, 9]);
  assert.deepEqual([...f.materials], [3, 0]);
  assert.deepEqual(f.geometry, poses.map((p, k) => ({ index: k, position: p.slice(0, 3), orientation: p.slice(3) })));
  assert.throws(() => parseNdf(buf.slice(0, buf.byteLength - 8)), /truncated/);
  // a frame of an older daemon has neither
  const old = parseNdf(ndf(2, 7));
  assert.equal(old.materials, null); assert.equal(old.geometry, null);
});

test('NDF1 bits 7-9: orientations, shapes, a box\'s extents; a section of a later version is skipped by its length', () => {
  // 2 particles: positions, radii, speed; 1 pose; orientations; shapes; extents of geometry 0; then bit 12 (unknown)
  const n = 2, q = [[1, 0, 0, 0], [0.5, 0.5, 0.5, 0.5]], ext = [0.01, 0.02, 0.03, 0.09, 0.08, 0.07];
  const at = { poses: 48 + 20 * n, orient: 48 + 20 * n + 8 + 64 };
  at.shapes = at.orient + 16 * n; at.ext = at.shapes + 4 * n; at.later = at.ext + 8 + 56;
  const buf = new ArrayBuffer(at.later + 8 + 2 * 12), dv = new DataView(buf);
  new Uint8Array(ndf(n, 7)).forEach((b, k) => dv.setUint8(k, b));
  dv.setUint32(32, 1 | 2 | 4 | 64 | 128 | 256 | 512 | 4096, true);
  dv.setUint32(at.poses, 1, true);
  dv.setFloat64(at.poses + 8 + 24, 1, true); // orientation w = 1
  q.flat().forEach((v, k) => dv.setFloat32(at.orient + 4 * k, v, true));
  dv.setInt32(at.shapes, -1, true); dv.setInt32(at.shapes + 4, 3, true);
  dv.setUint32(at.ext, 1, true); dv.setUint32(at.ext + 4, 56, true); dv.setUint32(at.ext + 8, 0, true);
  ext.forEach((v, k) => dv.setFloat64(at.ext + 16 + 8 * k, v, true));
  dv.setUint32(at.later, 2, true); dv.setUint32(at.later + 4, 12, true);
  const f = parseNdf(buf);
  assert.deepEqual([...f.orientations], q.flat());
  assert.deepEqual([...f.shapes], [-1, 3]);
  assert.deepEqual(f.geometry[0].min, ext.slice(0, 3));
  assert.deepEqual(f.geometry[0].max, ext.slice(3));
  assert.throws(() => parseNdf(buf.slice(0, buf.byteLength - 4)), /truncated/);
  // a sphere-only frame has none of them
  const old = parseNdf(ndf(2, 7));
  assert.equal(old.orientations, null); assert.equal(old.shapes, null);
});

test('a frame\'s pose moves a geometry as defined: position + R(q) (x - c); without, the shorthand', () => {
  const box = { type: 'box', min: [0.9, -0.2, -0.3], max: [1.1, 0.2, 0.3], velocity: [1, 0, 0] };
  const c = Math.SQRT1_2, at = placer(box, { index: 0, position: [1.5, 0.25, -0.5], orientation: [c, 0, 0, c] });
  // the corner (1.1, 0.2, 0.3) is (0.1, 0.2, 0.3) from the centre; turned 90 degrees about z: (-0.2, 0.1, 0.3)
  const p = at([1.1, 0.2, 0.3]);
  [1.3, 0.35, -0.2].forEach((v, k) => assert.ok(Math.abs(p[k] - v) < 1e-12, `${p}`));
  assert.deepEqual(placer(box, null, 0.5)([1.1, 0.2, 0.3]), [1.6, 0.2, 0.3]);
  assert.deepEqual(referencePoint({ type: 'mesh', vertices: [] }), [0, 0, 0]);
  assert.deepEqual(referencePoint({ type: 'cylinder', center: [1, 2, 3], axis: [0, 0, 1] }), [1, 2, 3]);
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

test('syntax errors: line, column and what was expected', () => {
  assert.equal(syntaxError('{"a": [1, 2]}'), null);
  const e = syntaxError('{\n  "name": "x",\n  "scene": {\n}');
  assert.deepEqual([e.line, e.column, e.offset], [4, 2, 31]);
  assert.match(e.message, /end of the document: "}" is missing/);
  const at = (t) => { const x = syntaxError(t); return `${x.line}:${x.column} ${x.message}`; };
  assert.equal(at('{"a": 1,}'), '1:9 expected a "quoted" key');
  assert.equal(at('{"a": 1 "b": 2}'), '1:9 expected "," or "}"');
  assert.equal(at('[1,\n 01]'), '2:2 expected a value (number, "string", true, false, null, object or array)');
  assert.equal(at('{"a": tru}'), '1:7 expected a value (number, "string", true, false, null, object or array)');
  assert.equal(at('{} x'), '1:4 unexpected text after the document');
  assert.equal(at('"a\\q"'), '1:3 invalid escape in a string');
  assert.equal(at('{"a": "b\n"}'), '1:9 control character in a string (use \\n, \\t)');
  assert.equal(at(''), '1:1 unexpected end of the document: a value is missing');
});

const solverDoc = '{\n  "name": "c",\n  "solver": {\n    "time_step": 5e-3,\n    "duration": 5.0,\n    "iterations": 50\n  },\n  "x": [1,2,  3]\n}\n';
test('setValue changes only the value, keeping the formatting', () => {
  assert.equal(setValue(solverDoc, '/solver/duration', '2'), solverDoc.replace('5.0', '2'));
  assert.equal(setValue(solverDoc, '/name', '"a b"'), solverDoc.replace('"c"', '"a b"'));
});
test('setValue removes a member with its comma, first, middle, last or only', () => {
  assert.equal(setValue(solverDoc, '/solver/duration', undefined), solverDoc.replace('\n    "duration": 5.0,', ''));
  assert.equal(setValue(solverDoc, '/solver/iterations', undefined), solverDoc.replace(',\n    "iterations": 50', ''));
  assert.equal(setValue(solverDoc, '/name', undefined), solverDoc.replace('"name": "c",\n  ', ''));
  assert.equal(setValue('{"s": {"a": 1}}', '/s/a', undefined), '{"s": {}}');
  assert.equal(setValue(solverDoc, '/solver/warm_start', undefined), solverDoc);
});
test('setValue adds a missing member after the last one, and missing objects inline', () => {
  assert.equal(setValue(solverDoc, '/solver/warm_start', 'true'), solverDoc.replace('"iterations": 50', '"iterations": 50,\n    "warm_start": true'));
  assert.equal(setValue(solverDoc, '/output/frame_interval', '0.1'), solverDoc.replace('3]\n}', '3],\n  "output": {"frame_interval": 0.1}\n}'));
  assert.equal(setValue('{"a": 1, "b": 2}', '/c', '3'), '{"a": 1, "b": 2, "c": 3}');
  assert.equal(setValue('{}', '/o/p', '1'), '{"o": {"p": 1}}');
  assert.equal(setValue('{"solver": 3}', '/solver/duration', '1'), null);
  assert.equal(setValue('{"a": ', '/a', '1'), null);
  for (const [p, v] of [['/solver/duration', '7'], ['/solver/time_step', undefined], ['/q/r/s', '"t"']]) {
    assert.doesNotThrow(() => JSON.parse(setValue(solverDoc, p, v)), `${p} gives JSON`);
  }
});

test('axis range: room above data that reaches a tick', () => {
  const r = axisRange(50, 50); // a constant iteration cap
  assert.equal(r.lo, 0);
  assert.ok(r.hi > 50 && r.hi <= 60, `hi ${r.hi}`);
  const c = axisRange(0, 25);
  assert.ok(c.hi > 25, `hi ${c.hi}`);
  const d = axisRange(0, 23); // 23 is under the tick of 25: no extra step
  assert.equal(d.hi, 25);
  assert.ok(axisRange(1e-4, 1.2e-3).hi >= 1.2e-3);
});

test('chart text alternative: span and latest values with the unit', () => {
  const series = [{ label: 'all', x: [0, 1, 2], y: [0, 10, 12] }, { label: 'geometry', x: [0, 1, 2], y: [0, 1, 2] }];
  assert.equal(summary('Contacts', '', series), 'Contacts: 3 points from t = 0 s to 2 s; latest: all 12, geometry 2.');
  assert.equal(summary('Kinetic energy', 'J', [{ label: 'kinetic energy', x: [0.5], y: [1.5e-6] }]),
    'Kinetic energy: 1 point from t = 0.5 s to 0.5 s; latest: kinetic energy 1.5e-6 J.');
  assert.equal(summary('X', '', [{ label: 'a', x: [], y: [] }]), 'X: no data yet.');
});

const jobs = [
  { id: 'aa01', name: 'Beta', status: 'succeeded', created_at: '2026-01-02T10:00:00Z', started_at: '2026-01-02T10:00:01Z', finished_at: '2026-01-02T10:00:31Z', stats: { particles: 5 } },
  { id: 'bb02', name: 'alpha', status: 'running', created_at: '2026-01-02T11:00:00Z', started_at: '2026-01-02T11:00:00Z', stats: { particles: 50 } },
  { id: 'cc03', name: 'gamma-beta', status: 'failed', created_at: '2026-01-02T09:00:00Z', stats: { particles: 1 } },
];
test('job list: sort by creation time, name, status, particles; search by name', () => {
  const ids = (o) => arrange([...jobs], o).map((j) => j.id).join(' ');
  assert.equal(ids({}), 'bb02 aa01 cc03');
  assert.equal(ids({ key: 'created', dir: 1 }), 'cc03 aa01 bb02');
  assert.equal(ids({ key: 'name', dir: 1 }), 'bb02 aa01 cc03');
  assert.equal(ids({ key: 'name', dir: -1 }), 'cc03 aa01 bb02');
  assert.equal(ids({ key: 'status', dir: 1 }), 'bb02 cc03 aa01');
  assert.equal(ids({ key: 'particles', dir: -1 }), 'bb02 aa01 cc03');
  assert.equal(ids({ search: 'BETA' }), 'aa01 cc03');
  assert.equal(ids({ search: ' cc0' }), 'cc03');
  assert.equal(ids({ search: 'delta' }), '');
});
test('job list: creation time and wall time', () => {
  const local = new Date(2026, 0, 2, 8, 5, 9);
  assert.equal(createdText(local.toISOString(), new Date(2026, 0, 2, 23, 0, 0)), '08:05:09');
  assert.equal(createdText(local.toISOString(), new Date(2026, 0, 3, 1, 0, 0)), '2026-01-02 08:05:09');
  assert.equal(createdText(null), '—');
  assert.equal(timing(jobs[0]).text, '30 s');
  const now = Date.parse('2026-01-02T11:00:10Z') / 1000;
  assert.equal(timing({ ...jobs[1], progress: { fraction: 0.25 } }, now).text, '10 s · ~30 s left');
  assert.equal(timing({ status: 'queued', created_at: '2026-01-02T11:00:00Z' }, now).text, 'waiting 10 s');
});

test('force chart: the named geometry of a series and |F|', () => {
  const cols = ['step', 'time', 'wall_seconds', 'floor_fx', 'floor_fy', 'floor_fz', 'floor_tx', 'floor_ty', 'floor_tz',
    'lid-2_fx', 'lid-2_fy', 'lid-2_fz', 'lid-2_tx', 'lid-2_ty', 'lid-2_tz', 'lid-2_x', 'lid-2_y', 'lid-2_z', 'odd_fx'];
  assert.deepEqual(namedGeometry(cols), ['floor', 'lid-2']); // odd_fx alone names nothing
  assert.deepEqual(namedGeometry(['step', 'time']), []);
  assert.equal(magnitude([3, -4, 12]), 13);
  assert.ok(Number.isNaN(magnitude([1, null, 2]))); // a non-finite value is served as null
  assert.deepEqual(seriesMagnitude({ floor_fx: [0, 3], floor_fy: [0, 4], floor_fz: [-2, 0] }, 'floor'), [2, 5]);
});

test('a sweep plot: a line per combination of the other parameters, sorted by x, finished jobs only', () => {
  const P = ['/a', '/b'];
  const rows = [
    { status: 'succeeded', '/a': 2, '/b': 'x', ke: 4 }, { status: 'succeeded', '/a': 1, '/b': 'x', ke: 1 },
    { status: 'succeeded', '/a': 1, '/b': 'y', ke: 10 }, { status: 'running', '/a': 2, '/b': 'y', ke: 99 },
    { status: 'succeeded', '/a': 3, '/b': 'y', ke: null },
  ];
  const s = plotSeries(rows, P, '/a', 'ke');
  assert.deepEqual(s.map((q) => [q.label, q.x, q.y]), [['/b = x', [1, 2], [1, 4]], ['/b = y', [1], [10]]]);
  // one parameter: one line named after the result
  assert.deepEqual(plotSeries(rows.slice(0, 2), ['/a'], '/a', 'ke').map((q) => q.label), ['ke']);
});

// ---- stl.js: mesh geometry for the 3D view ----

const stlFile = (name) => readFileSync(new URL(`../stl/${name}`, import.meta.url));

test('STL: the unit cube, binary and ASCII, the same 12 triangles', () => {
  const bin = parseStl(stlFile('cube_binary.stl')), asc = parseStl(stlFile('cube_ascii.stl'));
  assert.equal(bin.length, 9 * 12);
  assert.deepEqual([...bin], [...asc]);
  assert.deepEqual([...new Set(bin)].sort(), [0, 1]);
  // binary by its size even though its header could say "solid"
  const b = new Uint8Array(stlFile('cube_binary.stl'));
  b.set(new TextEncoder().encode('solid cube'), 0);
  assert.equal(parseStl(b).length, 9 * 12);
});

test('STL: inline ASCII text and base64 binary; refusals', () => {
  assert.equal(inlineStl(stlFile('cube_ascii.stl').toString('utf8')).length, 108);
  assert.equal(inlineStl(stlFile('cube_binary.stl').toString('base64')).length, 108);
  assert.throws(() => parseStl(new TextEncoder().encode('hello')), /not STL/);
  assert.throws(() => parseStl(new TextEncoder().encode('solid x\nvertex 0 0 0\nvertex 1 0 0\n')), /whole triangles/);
  assert.throws(() => parseStl(new TextEncoder().encode('solid x\nvertex 0 0 0\nvertex 1 0 0\nvertex nan 0 0\n')), /finite/);
});

test('mesh entries: inline vertices/triangles indexed, ids through the fetcher', async () => {
  const tet = await meshArrays({ vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], triangles: [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]] });
  assert.equal(tet.triangles, 4);
  assert.deepEqual([...tet.index], [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]);
  assert.equal(tet.positions.length, 12);
  const asked = [];
  const byId = await meshArrays({ mesh: '0123456789abcdef' }, async (id) => { asked.push(id); return stlFile('cube_binary.stl'); });
  assert.deepEqual(asked, ['0123456789abcdef']);
  assert.equal(byId.triangles, 12);
  assert.equal(byId.index, null);
  await assert.rejects(meshArrays({}, null), /vertices and triangles, stl or mesh/);
});

test('mesh placement: [w, x, y, z] becomes three.js [x, y, z, w], normalized; scale number or vector', () => {
  assert.deepEqual(placement({}), { position: [0, 0, 0], quaternion: [0, 0, 0, 1], scale: [1, 1, 1] });
  const p = placement({ position: [1, 2, 3], orientation: [2, 0, 0, 2], scale: 0.5 });
  assert.deepEqual(p.position, [1, 2, 3]);
  assert.ok(p.quaternion.every((v, k) => Math.abs(v - [0, 0, Math.SQRT1_2, Math.SQRT1_2][k]) < 1e-12));
  assert.deepEqual(p.scale, [0.5, 0.5, 0.5]);
  assert.deepEqual(placement({ scale: [1, 2, 3] }).scale, [1, 2, 3]);
});

// An NDC1 record (docs/frames.md) with every field: a, b and feature as
// given, normal forces fn, the float arrays filled with k.
function ndc(a, b, fn, { index = 4, step = 99, time = 0.25 } = {}) {
  const n = a.length, buf = new ArrayBuffer(48 + 64 * n), dv = new DataView(buf);
  [78, 68, 67, 49].forEach((c, k) => dv.setUint8(k, c));
  dv.setUint32(4, 48, true); dv.setUint32(8, index, true); dv.setUint32(12, n, true);
  dv.setBigInt64(16, BigInt(step), true); dv.setFloat64(24, time, true); dv.setUint32(32, 127, true);
  const i32 = new Int32Array(buf, 48, 3 * n);
  i32.set(a, 0); i32.set(b, n); i32.set(a.map((_, k) => (b[k] < 0 ? k : -1)), 2 * n);
  const f32 = new Float32Array(buf, 48 + 12 * n, 13 * n);
  for (let k = 0; k < f32.length; k++) f32[k] = k;
  f32.set(fn, 6 * n); // after points and normals
  return buf;
}

test('NDC1 record: header, pairs and every array in order', () => {
  const c = parseNdc(ndc([0, 1, 0], [1, 2, -1], [2, 4, 6]));
  assert.equal(c.index, 4); assert.equal(c.step, 99); assert.equal(c.time, 0.25); assert.equal(c.n, 3);
  assert.deepEqual([...c.a], [0, 1, 0]); assert.deepEqual([...c.b], [1, 2, -1]);
  assert.deepEqual([...c.feature], [-1, -1, 2]);
  assert.equal(c.points.length, 9); assert.equal(c.points[0], 0);
  assert.equal(c.normals[0], 9);
  assert.deepEqual([...c.normalForces], [2, 4, 6]);
  assert.equal(c.tangentialForces[0], 21); assert.equal(c.rollingTorques[8], 38);
  assert.throws(() => parseNdc(new ArrayBuffer(20)), /too short/);
  const bad = ndc([0], [1], [1]); new DataView(bad).setUint8(3, 50);
  assert.throws(() => parseNdc(bad), /not an NDC1 record/);
  assert.throws(() => parseNdc(ndc([0, 1], [1, 2], [1, 1]).slice(0, 100)), /truncated/);
});

test('force chains: particle pairs centre to centre, geometry to its contact point, coloured against the mean', () => {
  // 4 particles on a line; contacts 0-1 (2 N), 1-2 (4 N), 2-3 (30 N), 0-floor (20 N, to its
  // contact point), 3-9 (not in the frame: ignored), 1-3 pulling (ignored)
  const frame = { n: 4, positions: Float32Array.from([0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0]) };
  const c = parseNdc(ndc([0, 1, 2, 0, 3, 1], [1, 2, 3, -1, 9, 3], [2, 4, 30, 20, 7, -1]));
  const s = chainSegments(c, frame);
  assert.equal(s.count, 4);
  assert.equal(s.geometry, 1);
  assert.equal(s.mean, 14);
  assert.deepEqual([...s.positions.slice(0, 6)], [0, 0, 0, 1, 0, 0]);
  assert.deepEqual([...s.positions.slice(12, 18)], [2, 0, 0, 3, 0, 0]);
  // the floor contact: particle 0's centre to the record's point of contact 3 (the helper
  // fills the float arrays with 0, 1, 2, ...: points are 3k, 3k + 1, 3k + 2)
  assert.deepEqual([...s.positions.slice(18, 24)], [0, 0, 0, 9, 10, 11]);
  // 30 N is 30/14 of the mean: LUT entry round(30 / 14 / 3 x 255), full brightness
  const j = 3 * Math.round((30 / 14 / CHAIN_MAX_RATIO) * 255);
  assert.ok(Math.abs(s.colors[12] - LUT[j]) < 1e-6 && Math.abs(s.colors[17] - LUT[j + 2]) < 1e-6);
  // 2 N is 1/7 of the mean: dimmed to 0.25 + 0.75 / 7 of its colour
  const j0 = 3 * Math.round((2 / 14 / CHAIN_MAX_RATIO) * 255);
  assert.ok(Math.abs(s.colors[0] - LUT[j0] * (0.25 + 0.75 / 7)) < 1e-6);
  // without contact points (bit 2 unset) a geometry contact cannot be drawn: pairs only
  const noPoints = { ...c, points: null };
  assert.equal(chainSegments(noPoints, frame).count, 3);
  assert.equal(chainSegments(noPoints, frame).geometry, 0);
  assert.equal(chainSegments(parseNdc(ndc([], [], [])), frame).count, 0);
  assert.equal(chainSegments(null, frame).count, 0);
});
