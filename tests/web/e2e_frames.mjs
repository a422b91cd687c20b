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
