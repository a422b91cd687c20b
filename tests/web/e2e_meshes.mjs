// e2e_meshes.mjs - steps of the end-to-end test (tests/web/e2e.mjs) for
// uploaded meshes (docs/meshes.md): the meshes panel, mesh geometry in the 3D
// view, a job naming an uploaded mesh, and deleting it from the panel. Each
// function gets the test's context: page, step, BASE, OUT, shot, root, pixelCount.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// Uploads tests/stl/cube_binary.stl and checks the views of it; returns its id.
export async function meshSteps({ page, step, BASE, OUT, root, pixelCount }) {
  const text = (sel) => page.locator(sel).textContent();
  let meshId = null;
  await step('upload an STL in the meshes panel: listed with its triangles; bad STL shows the parser\'s message', async () => {
    await page.evaluate(() => window.ndem.meshesReady);
    await page.setInputFiles('#mesh-file', join(root, 'tests/stl/cube_binary.stl'));
    await page.waitForFunction(() => document.querySelector('#mesh-list li[data-triangles="12"]'), null, { timeout: 15000 });
    meshId = await page.getAttribute('#mesh-list li[data-triangles="12"]', 'data-id');
    const status = await text('#mesh-status');
    if (!/^cube_binary\.stl: 12 triangles; id [0-9a-f]{16}$/.test(status)) throw new Error(`status '${status}'`);
    const api = await (await fetch(`${BASE}/api/v1/meshes/${meshId}`)).json();
    if (api.name !== 'cube_binary.stl' || api.triangles !== 12) throw new Error(JSON.stringify(api));
    await page.setInputFiles('#mesh-file', { name: 'bad.stl', mimeType: 'model/stl', buffer: Buffer.from('solid x\nfacet normal 0 0 1\n outer loop\n  vortex 0 0 0\n') });
    await page.waitForFunction(() => document.getElementById('mesh-status').classList.contains('bad'), null, { timeout: 15000 });
    const bad = await text('#mesh-status');
    if (bad !== "bad.stl: ASCII STL: line 4: expected 'vertex', found 'vortex'") throw new Error(`status '${bad}'`);
    if (await page.locator('#mesh-list li').count() !== 1) throw new Error('the bad upload is listed');
  });

  await step('the 3D view draws mesh geometry: by id, inline vertices/triangles, ASCII and base64 STL, placed', async () => {
    const ascii = readFileSync(join(root, 'tests/stl/cube_ascii.stl'), 'utf8');
    const b64 = readFileSync(join(root, 'tests/stl/cube_binary.stl')).toString('base64');
    const s = Math.SQRT1_2; // 90 degrees about z
    const doc = { scene: { geometry: [
      { type: 'box', min: [0, 0, 0], max: [1, 1, 1], inside: true },
      { type: 'mesh', mesh: meshId, position: [0.5, 0.5, 0], orientation: [s, 0, 0, s], scale: 0.1 },
      { type: 'mesh', vertices: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], triangles: [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], scale: 0.2 },
      { type: 'mesh', stl: ascii, position: [0.7, 0.1, 0], scale: 0.2 },
      { type: 'mesh', stl: b64, position: [0.1, 0.7, 0], scale: [0.2, 0.1, 0.3] },
    ] } };
    const view = page.locator('#viewer');
    await page.evaluate(async (d) => (await window.ndem.viewerReady).setJob(d), doc);
    await page.waitForFunction(() => document.getElementById('viewer').dataset.meshTriangles !== '', null, { timeout: 15000 });
    const counts = await page.getAttribute('#viewer', 'data-mesh-triangles');
    if (counts !== '12,4,12,12') throw new Error(`triangles per mesh '${counts}', want 12,4,12,12`);
    // the scene graph: one three.js Mesh per entry, its triangles and its world box
    const meshes = await page.evaluate(async () => {
      const v = await window.ndem.viewerReady, out = [];
      v.scene.updateMatrixWorld(true);
      v.scene.traverse((o) => {
        if (!o.isMesh || !o.userData.ndemMesh) return;
        o.geometry.computeBoundingBox();
        const b = o.geometry.boundingBox.clone().applyMatrix4(o.matrixWorld);
        out.push({ triangles: o.geometry.attributes.position.count / 3, min: b.min.toArray(), max: b.max.toArray() });
      });
      return out;
    });
    if (meshes.map((m) => m.triangles).join(',') !== '12,4,12,12') throw new Error(JSON.stringify(meshes));
    const near = (a, b) => a.every((x, k) => Math.abs(x - b[k]) < 1e-6);
    const want = [[[0.4, 0.5, 0], [0.5, 0.6, 0.1]], [[0, 0, 0], [0.2, 0.2, 0.2]], [[0.7, 0.1, 0], [0.9, 0.3, 0.2]], [[0.1, 0.7, 0], [0.3, 0.8, 0.3]]];
    meshes.forEach((m, k) => { if (!near(m.min, want[k][0]) || !near(m.max, want[k][1])) throw new Error(`mesh ${k}: ${JSON.stringify(m)}, want ${JSON.stringify(want[k])}`); });
    await page.waitForTimeout(300);
    const a = await view.screenshot({ path: join(OUT, '04-meshes.png') });
    await page.uncheck('#show-geometry');
    await page.waitForTimeout(300);
    const b = await view.screenshot();
    await page.check('#show-geometry');
    const diff = await pixelCount(page, a, b);
    if (diff < 2000) throw new Error(`only ${diff} pixels show geometry`);
    console.log(`     ${diff} pixels of geometry; placed boxes as wanted`);
  });

  await step('a job naming the uploaded mesh: drawn when it is watched (once the parser knows mesh geometry)', async () => {
    const doc = { name: 'e2e-mesh', scene: { materials: [{ name: 'a' }], geometry: [{ type: 'box', min: [0, 0, 0], max: [1, 1, 1], inside: true },
      { type: 'mesh', mesh: meshId, scale: 0.2, position: [0.4, 0.4, 0] }],
    particles: [{ type: 'lattice', min: [0.1, 0.1, 0.5], max: [0.3, 0.3, 0.7], count: 8, radius: 0.02 }] }, solver: { duration: 0.01 } };
    const res = await fetch(`${BASE}/api/v1/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(doc) });
    const body = await res.json();
    if (res.status === 422) { // not yet: refused at the mesh entry, as docs/meshes.md says
      if (!body.errors?.[0]?.pointer?.startsWith('/scene/geometry/1')) throw new Error(JSON.stringify(body));
      console.log(`     the parser refuses mesh geometry here (${body.errors[0].message}): the viewer's part is checked above`);
      return;
    }
    if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(body)}`);
    await page.goto(`${BASE}/#/jobs/${body.id}`);
    await page.waitForFunction(() => document.getElementById('viewer').dataset.meshTriangles === '12', null, { timeout: 30000 });
    // gone again, so that the list steps below see only their own jobs
    for (let k = 0; k < 300; k++) {
      const j = await (await fetch(`${BASE}/api/v1/jobs/${body.id}`)).json();
      if (['succeeded', 'failed', 'cancelled'].includes(j.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const del = await fetch(`${BASE}/api/v1/jobs/${body.id}`, { method: 'DELETE', headers: { 'Content-Type': 'application/json' } });
    if (del.status !== 204) throw new Error(`DELETE job: ${del.status}`);
    await page.goBack();
  });
  return meshId;
}

export async function meshDeleteSteps({ page, step, BASE, shot }, meshId) {
  const text = (sel) => page.locator(sel).textContent();
  await step('delete the mesh in the panel: gone from the list and the API', async () => {
    await page.click('#tab-submit');
    await shot('04-meshes-panel.png', page.locator('.meshes'));
    await page.click(`#mesh-list button[data-delete="${meshId}"]`);
    await page.waitForFunction(() => document.querySelectorAll('#mesh-list li').length === 0, null, { timeout: 15000 });
    if (await text('#mesh-status') !== `Mesh ${meshId} deleted` || !(await page.isVisible('#mesh-empty'))) throw new Error(await text('#mesh-status'));
    const res = await fetch(`${BASE}/api/v1/meshes/${meshId}`);
    if (res.status !== 404) throw new Error(`GET after delete: ${res.status}`);
  });
}
