// e2e_frames.mjs - steps of the end-to-end test (tests/web/e2e.mjs) for what
// frames carry (docs/frames.md): the daemon's job archive downloaded from the
// page, and a keyframed mesh drawn at each stored frame's pose, coloured by
// material. Each function gets the test's context: page, step, BASE, OUT, shot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export async function archiveSteps({ page, step, OUT }) {
  await step('download the whole job: the daemon\'s archive, with frames and paraview/frames.pvd', async () => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#dl-archive')]);
    if (!/^e2e-column-[0-9a-f]{16}\.tar\.gz$/.test(dl.suggestedFilename())) throw new Error(`named '${dl.suggestedFilename()}'`);
    const path = join(OUT, 'download-archive.tar.gz');
    await dl.saveAs(path);
    const tar = gunzipSync(readFileSync(path));
    const names = [];
    for (let off = 0; off + 512 <= tar.length;) {
      const name = tar.toString('latin1', off, off + 100).replace(/\0.*$/s, '');
      if (!name) break;
      names.push(name);
      off += 512 + Math.ceil(parseInt(tar.toString('latin1', off + 124, off + 136), 8) / 512) * 512;
    }
    const ndf = names.filter((n) => /^frames\/\d{6}\.ndf$/.test(n)).length;
    const vtp = names.filter((n) => /^paraview\/particles_\d{6}\.vtp$/.test(n)).length;
    if (!names.includes('paraview/frames.pvd') || !names.includes('series.csv') || ndf < 8 || vtp !== ndf) throw new Error(names.join(' '));
  });
}

export async function poseSteps({ page, step, BASE, shot }) {
  await step('a keyframed mesh is drawn at each stored frame\'s pose; colour by material', async () => {
    // a tetrahedron (scale 0.1) from [0.5, 0.5, 0.1] at t = 0 to [0.6, 0.5, 0.2] turned 90 degrees
    // about z at t = 0.02: in between linear and a slerp, i.e. theta = 90 s degrees about z
    const p0 = [0.5, 0.5, 0.1], p1 = [0.6, 0.5, 0.2], T = 0.02, c = Math.SQRT1_2;
    const doc = { name: 'e2e-keyframes', scene: { materials: [{ name: 'a' }, { name: 'b' }], geometry: [{ type: 'box', min: [0, 0, 0], max: [1, 1, 1], inside: true },
      { type: 'mesh', vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], triangles: [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], scale: 0.1,
        motion: { keyframes: [{ time: 0, position: p0, orientation: [1, 0, 0, 0] }, { time: T, position: p1, orientation: [c, 0, 0, c] }] } }],
    particles: [{ type: 'list', material: 'a', spheres: [[0.2, 0.2, 0.5, 0.02]] }, { type: 'list', material: 'b', spheres: [[0.8, 0.8, 0.5, 0.02]] }] },
    solver: { time_step: 0.001, duration: T }, output: { frame_interval: 0.005 } };
    const res = await fetch(`${BASE}/api/v1/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(doc) });
    const body = await res.json();
    if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(body)}`);
    for (let k = 0; k < 300; k++) {
      const j = await (await fetch(`${BASE}/api/v1/jobs/${body.id}`)).json();
      if (j.status === 'succeeded') break;
      if (['failed', 'cancelled'].includes(j.status) || k === 299) throw new Error(`job ${j.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const frames = (await (await fetch(`${BASE}/api/v1/jobs/${body.id}/frames`)).json()).frames;
    if (frames.length !== 5) throw new Error(`${frames.length} frames, want 5`);
    try {
    await page.goto(`${BASE}/#/jobs/${body.id}`);
    await page.waitForFunction(() => document.getElementById('viewer').dataset.meshTriangles === '4', null, { timeout: 30000 });
    // the page's frame list is fetched after the job: wait for all five
    await page.waitForFunction(() => window.ndem.sel.frames.length === 5, null, { timeout: 30000 });
    for (const pos of [1, 2, 4]) {
      await page.evaluate((p) => window.ndem.showFrame(p), pos);
      await page.waitForFunction((i) => document.getElementById('viewer').dataset.frameIndex === String(i), frames[pos].index, { timeout: 30000 });
      // where the drawn mesh puts its file's vertex (1, 0, 0) and (0, 1, 0): the matrix three.js draws it with
      const got = await page.evaluate(async () => {
        const v = await window.ndem.viewerReady;
        v.scene.updateMatrixWorld(true);
        let m = null;
        v.scene.traverse((o) => { if (o.isMesh && o.userData.ndemMesh) m = o; });
        const at = (x, y, z) => m.localToWorld(m.position.clone().set(x, y, z)).toArray();
        return [at(1, 0, 0), at(0, 1, 0)];
      });
      const s = Math.min(frames[pos].time / T, 1), th = (s * Math.PI) / 2;
      const p = p0.map((x, k) => x + s * (p1[k] - x));
      const want = [[p[0] + 0.1 * Math.cos(th), p[1] + 0.1 * Math.sin(th), p[2]], [p[0] - 0.1 * Math.sin(th), p[1] + 0.1 * Math.cos(th), p[2]]];
      for (let k = 0; k < 2; k++) if (!want[k].every((x, i) => Math.abs(x - got[k][i]) < 1e-6)) {
        throw new Error(`frame ${pos} (t = ${frames[pos].time}): vertex at ${JSON.stringify(got[k])}, want ${JSON.stringify(want[k])}`);
      }
    }
    // colour by material: the two particles (materials a and b) get the scale's two ends
    await page.selectOption('#colour-by', 'material');
    const [title, colours] = await page.evaluate(async () => {
      const v = await window.ndem.viewerReady, c = v.mesh.instanceColor.array;
      return [document.getElementById('legend-title').textContent, [[...c.slice(0, 3)], [...c.slice(3, 6)]]];
    });
    const lut = await page.evaluate(async () => { const { LUT } = await import('/js/colormap.js'); return [[...LUT.slice(0, 3)], [...LUT.slice(765, 768)]]; });
    if (title !== 'material index') throw new Error(`legend '${title}'`);
    if (!colours.every((col, k) => col.every((x, i) => Math.abs(x - lut[k][i]) < 1e-6))) throw new Error(`colours ${JSON.stringify(colours)}, want ${JSON.stringify(lut)}`);
    await shot('04-keyframed-mesh.png', page.locator('#viewer'));
    await page.selectOption('#colour-by', 'speed');
    } finally { // gone again whatever happened, so that the list steps below see only their own jobs
      const del = await fetch(`${BASE}/api/v1/jobs/${body.id}`, { method: 'DELETE', headers: { 'Content-Type': 'application/json' } });
      if (del.status !== 204) throw new Error(`DELETE job: ${del.status}`);
      await page.goBack();
    }
  });
}

export async function wallsSteps({ page, step, BASE, shot }) {
  await step('a stress-controlled box is drawn between each stored frame\'s faces (NDF1 bit 9)', async () => {
    // a cell's x walls close under 10 Pa on 1 m^2 and 50 kg (a = 0.2 m/s^2, symplectic Euler:
    // min_x = h^2 a N (N + 1) / 2 after N steps); y and z stay
    const doc = { name: 'e2e-walls', scene: { gravity: [0, 0, 0], materials: [{ name: 'a' }], geometry: [{ type: 'box', name: 'cell', inside: true,
      min: [0, 0, 0], max: [1, 1, 1], material: 'a', walls: { mass: 50, stress: [10, 0, 0] } }],
    particles: [{ type: 'list', material: 'a', spheres: [[0.5, 0.5, 0.5, 0.02]] }] }, solver: { time_step: 0.001, duration: 0.2 }, output: { frame_interval: 0.05 } };
    const res = await fetch(`${BASE}/api/v1/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(doc) });
    const body = await res.json();
    if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(body)}`);
    for (let k = 0; k < 300; k++) {
      const j = await (await fetch(`${BASE}/api/v1/jobs/${body.id}`)).json();
      if (j.status === 'succeeded') break;
      if (['failed', 'cancelled'].includes(j.status) || k === 299) throw new Error(`job ${j.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const frames = (await (await fetch(`${BASE}/api/v1/jobs/${body.id}/frames`)).json()).frames;
    if (frames.length !== 5) throw new Error(`${frames.length} frames, want 5`);
    try {
      await page.goto(`${BASE}/#/jobs/${body.id}`);
      await page.waitForFunction(() => window.ndem.sel.frames.length === 5, null, { timeout: 30000 });
      for (const pos of [0, 2, 4]) {
        await page.evaluate((p) => window.ndem.showFrame(p), pos);
        await page.waitForFunction((i) => document.getElementById('viewer').dataset.frameIndex === String(i), frames[pos].index, { timeout: 30000 });
        // the stored frame's faces (the daemon's JSON of its NDF1 record) against the box three.js draws
        const cell = (await (await fetch(`${BASE}/api/v1/jobs/${body.id}/frames/${frames[pos].index}`)).json()).geometry[0];
        const got = await page.evaluate(async () => {
          const v = await window.ndem.viewerReady;
          v.scene.updateMatrixWorld(true);
          let m = null;
          v.scene.traverse((o) => { if (o.isMesh && o.userData.ndemBox === 0) m = o; });
          m.geometry.computeBoundingBox();
          const b = m.geometry.boundingBox.clone().applyMatrix4(m.matrixWorld);
          return [b.min.toArray(), b.max.toArray()];
        });
        const N = frames[pos].step, x = 1e-6 * 0.2 * N * (N + 1) / 2;
        if (!cell.min || Math.abs(cell.min[0] - x) > 1e-12 || Math.abs(cell.max[0] - (1 - x)) > 1e-12 || cell.min[1] !== 0 || cell.max[2] !== 1) {
          throw new Error(`frame ${pos}: faces ${JSON.stringify(cell)}, want min_x ${x}`);
        }
        for (let k = 0; k < 3; k++) if (Math.abs(got[0][k] - cell.min[k]) > 1e-6 || Math.abs(got[1][k] - cell.max[k]) > 1e-6) {
          throw new Error(`frame ${pos}: drawn box ${JSON.stringify(got)}, frame's faces ${JSON.stringify([cell.min, cell.max])}`);
        }
      }
      await shot('04-walls.png', page.locator('#viewer'));
    } finally {
      const del = await fetch(`${BASE}/api/v1/jobs/${body.id}`, { method: 'DELETE', headers: { 'Content-Type': 'application/json' } });
      if (del.status !== 204) throw new Error(`DELETE job: ${del.status}`);
      await page.goBack();
    }
  });
}

// A synthetic frame (the engine does not run shapes yet, docs/shapes.md): the page's own viewer
// given two templates as the job resource lists them and a frame of a sphere, two cubes and a
// clump; each template is one InstancedMesh whose instances sit at the frame's poses.
export async function shapeSteps({ page, step, shot }) {
  await step('shaped particles: one InstancedMesh per template at each particle\'s position, orientation and radius', async () => {
    // the checks below read the viewer in one synchronous run, so nothing redraws between; the wait lets
    // the job the page shows settle first, so that the screenshot shows the synthetic frame
    await page.waitForTimeout(1500);
    const got = await page.evaluate(async () => {
      const v = await window.ndem.viewerReady;
      const THREE = { Matrix4: v.mesh?.matrix.constructor || v.camera.matrix.constructor, Vector3: v.camera.position.constructor };
      const s = 1 / Math.sqrt(3), c = Math.SQRT1_2;
      const cube = { index: 0, type: 'polyhedron', radius: 1, vertices: [[-s, -s, -s], [s, -s, -s], [-s, s, -s], [s, s, -s], [-s, -s, s], [s, -s, s], [-s, s, s], [s, s, s]],
        faces: [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]] };
      const clump = { index: 1, type: 'clump', radius: 1, spheres: [[0, 0, 0, 0.5], [0.5, 0, 0, 0.5]] };
      const n = 4, f = { index: 0, n, step: 0, time: 0, fields: 0, scalarKind: 1, geometry: null, materials: null,
        positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]), radii: new Float32Array([0.1, 0.2, 0.3, 0.4]),
        scalar: new Float32Array(n), orientations: new Float32Array([1, 0, 0, 0, c, 0, 0, c, 1, 0, 0, 0, c, c, 0, 0]), shapes: new Int32Array([-1, 0, 0, 1]) };
      v.setJob({ scene: { geometry: [], particles: [] } }, [cube, clump]);
      v.setFrame(f);
      v.fit(f);
      v.scene.updateMatrixWorld(true);
      const meshes = [];
      v.scene.traverse((o) => { if (o.isInstancedMesh && o.userData.ndemTemplate !== undefined) meshes[o.userData.ndemTemplate] = o; });
      const m = new THREE.Matrix4(), at = (mesh, j, x) => new THREE.Vector3(...x).applyMatrix4(mesh.getMatrixAt(j, m) || m).toArray();
      const sphere = new THREE.Matrix4();
      v.mesh.getMatrixAt(1, sphere);
      return { counts: v.container.dataset.shapeInstances, instances: meshes.map((x) => x.count),
        // cube 1 (radius 0.2, turned 90 degrees about z at (1, 0, 0)): its corner (s, -s, -s); the clump (radius 0.4, 90 degrees
        // about x at (0, 0, 1)): the top of its member 1, (0.5, 0, 0.5)
        corner: at(meshes[0], 0, [s, -s, -s]), member: at(meshes[1], 0, [0.5, 0, 0.5]), hidden: sphere.elements[0], plain: v.mesh.count };
    });
    const s = 1 / Math.sqrt(3);
    // about z: (x, y, z) -> (-y, x, z); about x: (x, y, z) -> (x, -z, y); then times the radius, plus the position
    const want = { corner: [1 + 0.2 * s, 0.2 * s, -0.2 * s], member: [0.2, -0.2, 1] };
    if (got.counts !== '2,1' || got.instances.join() !== '2,1' || got.hidden !== 0 || got.plain !== 4) throw new Error(JSON.stringify(got));
    for (const k of ['corner', 'member']) if (!want[k].every((x, i) => Math.abs(x - got[k][i]) < 1e-6)) throw new Error(`${k}: ${got[k]}, want ${want[k]}`);
    await shot('04-shapes.png', page.locator('#viewer'));
  });
}
