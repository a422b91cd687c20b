// End-to-end test of the browser client (web/) against a real ndemd, in
// Debian's Chromium (headless, SwiftShader WebGL) driven by playwright-core
// from web/node_modules. It starts ndemd itself (so that it can stop and
// restart it to see the page report an unreachable daemon and a dropped
// stream), on free loopback ports with the --data directory it is given.
//
//   node tests/web/e2e.mjs --ndemd build/asan/ndemd --data /tmp/x --out build/web-test
//
// Prints one line per check and exits non-zero when any failed.
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { archiveSteps, poseSteps, shapeSteps, wallsSteps } from './e2e_frames.mjs';
import { meshDeleteSteps, meshSteps } from './e2e_meshes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(root, 'web', 'package.json'));
const { chromium } = require('playwright-core');

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, k, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[k + 1]]] : acc), []));
const NDEMD = resolve(args.ndemd || process.env.NDEMD_BIN || join(root, 'build/release/ndemd'));
const DATA = resolve(args.data || '/tmp/ndem-web-test');
const OUT = resolve(args.out || join(root, 'build/web-test'));
const CHROMIUM = args.chromium || process.env.CHROMIUM || '/usr/bin/chromium';
const T0 = Date.now();
mkdirSync(OUT, { recursive: true });
mkdirSync(DATA, { recursive: true });

let passed = 0, failed = 0;
function check(name, ok, detail = '') {
  const t = ((Date.now() - T0) / 1000).toFixed(1);
  if (ok) { passed++; console.log(`ok   ${name} (${t} s)`); } else { failed++; console.log(`FAIL ${name}${detail ? ': ' + detail : ''} (${t} s)`); }
  return ok;
}
async function step(name, fn) {
  try { return check(name, (await fn()) !== false); } catch (e) { return check(name, false, e.message.split('\n')[0]); }
}

// ---- the daemon: two consecutive free ports (HTTP, WebSocket) ----
const free = (port) => new Promise((res) => {
  const s = net.createServer();
  s.once('error', () => res(false));
  s.listen(port, '127.0.0.1', () => s.close(() => res(true)));
});
async function freePorts() {
  for (let k = 0; k < 50; k++) {
    const p = 20000 + Math.floor(Math.random() * 30000);
    if (await free(p) && await free(p + 1)) return p;
  }
  throw new Error('no free ports');
}
const PORT = await freePorts();
const BASE = `http://127.0.0.1:${PORT}`;
let daemon = null, authDaemon = null;
const logFile = join(OUT, 'ndemd.log');
const logFd = openSync(logFile, 'a');
async function startDaemon() {
  daemon = spawn(NDEMD, ['--listen', `127.0.0.1:${PORT}`, '--ws-listen', `127.0.0.1:${PORT + 1}`, '--data', DATA,
    '--web', join(root, 'web'), '--workers', '1', '--progress-interval', '0.1', '--checkpoint-interval', '1'],
  { stdio: ['ignore', logFd, logFd] });
  const exited = new Promise((res) => daemon.once('exit', (code, sig) => res(`ndemd exited (${code ?? sig})`)));
  for (let k = 0; k < 100; k++) {
    try { if ((await fetch(`${BASE}/health`)).ok) return; } catch { /* not yet */ }
    const gone = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 100))]);
    if (gone) throw new Error(`${gone}; see ${logFile}`);
  }
  throw new Error(`ndemd did not answer on ${BASE}; see ${logFile}`);
}
// Every stop is checked: exit status 0 (a leak or a sanitizer report at
// shutdown exits non-zero) and no sanitizer report in the log so far.
async function stopDaemon() {
  if (!daemon || daemon.exitCode !== null || daemon.signalCode) return;
  const d = daemon;
  const done = new Promise((r) => d.once('exit', (code, sig) => r(code ?? sig)));
  d.kill('SIGTERM');
  const t = setTimeout(() => d.kill('SIGKILL'), 30000);
  const status = await done;
  clearTimeout(t);
  const report = readFileSync(logFile, 'utf8').split('\n')
    .find((l) => /ERROR: (Address|Leak)Sanitizer|runtime error:|WARNING: ThreadSanitizer/.test(l));
  check('ndemd exits cleanly on SIGTERM', status === 0 && !report,
    `exit ${status}${report ? ', ' + report.trim() : ''}; log in ${logFile}`);
}

// ---- pixels: screenshots (PNG) decoded and compared in the page ----
// counts pixels of a that differ from b (a PNG) or from the view's background
async function pixelCount(page, a, b = null, tol = 30) {
  return page.evaluate(async ([a64, b64, tol]) => {
    const load = async (b64) => {
      const img = await createImageBitmap(await (await fetch('data:image/png;base64,' + b64)).blob());
      const c = new OffscreenCanvas(img.width, img.height), g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      return g.getImageData(0, 0, img.width, img.height).data;
    };
    const pa = await load(a64), pb = b64 ? await load(b64) : null, bg = [0x1d, 0x23, 0x2b];
    let n = 0;
    for (let k = 0; k < pa.length; k += 4) {
      const q = pb ? [pb[k], pb[k + 1], pb[k + 2]] : bg;
      if (Math.abs(pa[k] - q[0]) + Math.abs(pa[k + 1] - q[1]) + Math.abs(pa[k + 2] - q[2]) > tol) n++;
    }
    return n;
  }, [a.toString('base64'), b ? b.toString('base64') : null, tol]);
}

let browser, page, context;
const errors = [];
// confirm() dialogs: their messages, answered as `answer` says
const dialogs = [];
let answer = 'accept';
// GET /jobs items with their `job` document removed by the test (the daemon
// may leave it out): the page must take documents from GET /jobs/{id} only
let stripped = 0;
const detailText = async (sel) => (await page.locator(sel).textContent()).trim();
const visibleDownloads = () => page.evaluate(() => [...document.querySelectorAll('.downloads button')].filter((b) => !b.hidden).map((b) => b.id).sort());
const jobIdByName = (name) => page.evaluate((n) => document.querySelector(`#jobs-body tr.job[data-name="${n}"]`)?.dataset.id, name);
const shot = (name, target = page) => target.screenshot({ path: join(OUT, name) });
const ctx = () => ({ page, step, BASE, OUT, shot, root, pixelCount }); // for the steps of e2e_frames.mjs, e2e_meshes.mjs
const text = (sel) => page.locator(sel).textContent();

try {
  await startDaemon();
  console.log(`ndemd ${NDEMD} on ${BASE}, data ${DATA}`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic', '--enable-unsafe-swiftshader'],
  });
  context = await browser.newContext({ viewport: { width: 1500, height: 1150 }, acceptDownloads: true });
  await context.route((u) => u.pathname === '/api/v1/jobs', async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    let res, body;
    try {
        res = await route.fetch();
        body = await res.json();
      } catch { // ndemd is stopped (on purpose, below): the page must see the failure
        return route.abort('connectionrefused').catch(() => {});
      }
      for (const j of body.jobs || []) if (delete j.job) stripped++;
      return route.fulfill({ response: res, json: body }).catch(() => {});
    });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('dialog', (d) => { dialogs.push(d.message()); return answer === 'accept' ? d.accept() : d.dismiss(); });
    page.setDefaultTimeout(20000);

    await step('page loads and says it is connected', async () => {
      await page.goto(BASE + '/');
      await page.waitForFunction(() => document.getElementById('conn').textContent === 'connected');
      return /^ndem/.test(await page.title());
    });
    const renderer = await page.evaluate(async () => { await window.ndem.viewerReady; return document.getElementById('viewer').dataset.renderer; });
    check(`3D view starts (renderer: ${renderer})`, renderer === 'webgl', 'WebGL 2 unavailable: the 2D fallback draws instead');

    await step('tabs: role=tab with aria-selected and aria-controls, panels role=tabpanel', async () => {
      const tabs = await page.evaluate(() => [...document.querySelectorAll('.tabs [role=tab]')].map((t) => [t.id, t.getAttribute('aria-selected'),
        t.getAttribute('aria-controls'), document.getElementById(t.getAttribute('aria-controls'))?.getAttribute('role')]));
      const want = [['tab-jobs', 'true', 'panel-jobs', 'tabpanel'], ['tab-submit', 'false', 'panel-submit', 'tabpanel'],
        ['tab-sweeps', 'false', 'panel-sweeps', 'tabpanel']];
      if (JSON.stringify(tabs) !== JSON.stringify(want)) throw new Error(JSON.stringify(tabs));
      await page.focus('#tab-jobs');
      await page.keyboard.press('ArrowRight'); // the arrow keys move between the tabs
      const now = await page.evaluate(() => [document.activeElement.id, document.getElementById('tab-submit').getAttribute('aria-selected'),
        document.getElementById('tab-jobs').getAttribute('aria-selected'), document.getElementById('panel-submit').hidden]);
      if (JSON.stringify(now) !== JSON.stringify(['tab-submit', 'true', 'false', false])) throw new Error(JSON.stringify(now));
    });
    await step('the default example is the lightest one (column, 25 particles)', async () => {
      await page.evaluate(() => window.ndem.examplesReady);
      const v = await page.inputValue('#example');
      if (v !== 'column.json') throw new Error(`default example ${v}`);
      if (!(await page.inputValue('#editor-text')).includes('"column-25"')) throw new Error('the editor does not hold the column example');
    });

    // ---- a valid submission from an example, with the form ----
    await step('the form fields change only their values in the editor (its formatting stays)', async () => {
      const before = await page.inputValue('#editor-text');
      await page.fill('#f-name', 'e2e-column');
      await page.fill('#f-duration', '2');
      await page.fill('#f-frame-interval', '0.25');
      const after = await page.inputValue('#editor-text');
      const want = before.replace('"name": "column-25"', '"name": "e2e-column"').replace('"duration": 5.0', '"duration": 2')
        .replace('"frame_interval": 0.5', '"frame_interval": 0.25');
      if (want === before) throw new Error('the column example changed: fix this test');
      if (after !== want) {
        const k = [...after].findIndex((c, i) => c !== want[i]);
        throw new Error(`the editor text differs at ${k}: '${after.slice(k - 20, k + 20)}' for '${want.slice(k - 20, k + 20)}'`);
      }
      await page.fill('#f-iterations', ''); // an emptied field removes its member, nothing else
      const gone = await page.inputValue('#editor-text');
      if (gone !== want.replace('\n    "iterations": 50,', '')) throw new Error(`after emptying iterations: ${gone.slice(gone.indexOf('"solver"'), gone.indexOf('"solver"') + 80)}`);
      await page.fill('#f-iterations', '50');
      if (!/"warm_start_factor": 0.85,\n {4}"iterations": 50\n/.test(await page.inputValue('#editor-text'))) throw new Error('iterations not added after the last solver member');
    });
    await step('submit the column example; the URL becomes the job\'s', async () => {
      await shot('02-submit-form.png');
      await page.click('#submit');
      await page.waitForFunction(() => /Submitted/.test(document.getElementById('submit-result').textContent));
      await page.waitForFunction(() => /^#\/jobs\/[0-9a-f]+$/.test(location.hash));
      const [hash, id] = await page.evaluate(() => [location.hash, window.ndem.sel.id]);
      if (hash !== `#/jobs/${id}`) throw new Error(`${hash} for job ${id}`);
    });
    await step('the job appears in the list and reaches succeeded', async () => {
      await page.waitForSelector('#jobs-body tr.job');
      await page.waitForFunction(() => document.getElementById('d-status').textContent === 'succeeded', null, { timeout: 60000 });
      await page.waitForFunction(() => document.querySelector('#jobs-body tr.selected .badge')?.textContent === 'succeeded');
      const row = await text('#jobs-body tr.selected');
      if (!/e2e-column/.test(row) || !/100%/.test(row) || !/25/.test(row)) throw new Error(`row: ${row}`);
      if (!/\d\d:\d\d:\d\d/.test(await text('#jobs-body tr.selected .created'))) throw new Error('no creation time');
      const heads = (await page.locator('table.jobs thead th').allTextContents()).map((t) => t.trim());
      if (!heads.includes('Created') || !heads.includes('Wall time')) throw new Error(`headers: ${heads.join('|')}`);
      // the progress text stays on one line: its cell is no taller than the name and id
      const [pct, cell] = await page.evaluate(() => [document.querySelector('#jobs-body tr.selected .pct').getBoundingClientRect().height,
        document.querySelector('#jobs-body tr.selected .pct').style.whiteSpace || getComputedStyle(document.querySelector('#jobs-body tr.selected .pct')).whiteSpace]);
      if (pct > 20 || cell !== 'nowrap') throw new Error(`progress text ${pct} px high, white-space ${cell}`);
      await shot('01-jobs.png', page.locator('.side'));
    });
    await step('keyboard: Tab reaches the job\'s link, Enter opens it at #/jobs/ID', async () => {
      await page.goto(BASE + '/');
      await page.waitForSelector('#jobs-body tr.job a.name');
      if (await page.isVisible('#detail-body')) throw new Error('a job is open without a URL');
      await page.focus('#search');
      let tabs = 0;
      while (!(await page.evaluate(() => document.activeElement.matches('#jobs-body tr.job a.name'))) && tabs < 25) { await page.keyboard.press('Tab'); tabs++; }
      const name = await page.evaluate(() => document.activeElement.textContent);
      if (name !== 'e2e-column') throw new Error(`focus on '${name}' after ${tabs} Tab presses`);
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.getElementById('d-name').textContent === 'e2e-column' && !document.getElementById('detail-body').hidden);
      const [hash, id] = await page.evaluate(() => [location.hash, window.ndem.sel.id]);
      if (hash !== `#/jobs/${id}`) throw new Error(`URL ${hash}, job ${id}`);
      console.log(`     ${tabs} Tab presses from the search box to the job`);
    });
    await step('back and forward move between no job and the job', async () => {
      await page.goBack();
      await page.waitForFunction(() => document.getElementById('detail-body').hidden && !document.getElementById('detail-empty').hidden);
      await page.goForward();
      await page.waitForFunction(() => document.getElementById('d-name').textContent === 'e2e-column' && !document.getElementById('detail-body').hidden);
    });
    await step('the job\'s URL opens it in a fresh page; an unknown id says so', async () => {
      const id = await page.evaluate(() => window.ndem.sel.id);
      const p2 = await context.newPage();
      try {
        await p2.goto(`${BASE}/#/jobs/${id}`);
        await p2.waitForFunction(() => document.getElementById('d-name').textContent === 'e2e-column' && document.getElementById('d-status').textContent === 'succeeded');
        if (!(await p2.evaluate(() => document.querySelector('#jobs-body tr.selected')?.dataset.id))) throw new Error('its row is not marked');
        await p2.goto(`${BASE}/#/jobs/0123456789abcdef`);
        await p2.waitForFunction(() => document.getElementById('detail-empty').dataset.state === 'unknown');
        const msg = await p2.locator('#detail-empty').textContent();
        if (!/no job “0123456789abcdef”/.test(msg)) throw new Error(msg);
        console.log(`     ${msg}`);
    } finally { await p2.close(); }
  });
  await step('row buttons and charts have accessible names', async () => {
    const del = await page.getAttribute('#jobs-body tr.selected .delete', 'aria-label');
    if (del !== 'Delete job e2e-column') throw new Error(`delete button: ${del}`);
    await page.waitForFunction(() => /latest: kinetic energy [-0-9.e]+ J/.test(document.getElementById('chart-ke').getAttribute('aria-label')));
    const labels = await page.evaluate(() => [...document.querySelectorAll('canvas.chart')].map((c) => `${c.getAttribute('role')}: ${c.getAttribute('aria-label')}`));
    for (const l of labels) if (!/^img: .*points from t = [0-9.e-]+ s to 2 s; latest: /.test(l)) throw new Error(l);
    console.log(`     ${labels[3]}`);
  });

  await step('the 3D view draws the particles (pixels differ with and without them)', async () => {
    await page.waitForFunction(() => document.getElementById('viewer').dataset.particles === '25' && document.getElementById('viewer').dataset.frameIndex !== '');
    await page.waitForTimeout(500);
    const view = page.locator('#viewer');
    const a = await view.screenshot({ path: join(OUT, '03-viewer.png') });
    await page.uncheck('#show-particles');
    await page.waitForTimeout(400);
    const b = await view.screenshot({ path: join(OUT, '03-viewer-no-particles.png') });
    await page.check('#show-particles');
    const diff = await pixelCount(page, a, b), drawn = await pixelCount(page, a);
    console.log(`     ${diff} pixels belong to particles, ${drawn} are not background`);
    if (diff < 200) throw new Error(`only ${diff} pixels change when the particles are hidden`);
    if (!(await page.isVisible('#legend')) || !/speed \(m\/s\)/.test(await text('#legend-title'))) throw new Error('no speed legend');
    if (renderer === 'webgl') { // the ray-cast impostors (used above 5 000 particles) draw too
      await page.selectOption('#spheres', 'impostor');
      await page.waitForTimeout(400);
      const c = await view.screenshot({ path: join(OUT, '03-viewer-impostors.png') });
      await page.selectOption('#spheres', 'auto');
      const d = await pixelCount(page, c, b);
      console.log(`     ${d} pixels belong to impostor spheres`);
      if (d < 200) throw new Error(`only ${d} pixels of impostors`);
    }
  });
  await step('colour by height changes the legend and the picture', async () => {
    const view = page.locator('#viewer');
    const a = await view.screenshot();
    await page.selectOption('#colour-by', 'height');
    await page.waitForFunction(() => /height/.test(document.getElementById('legend-title').textContent));
    await page.waitForTimeout(300);
    const b = await view.screenshot({ path: join(OUT, '03-viewer-height.png') });
    const d = await pixelCount(page, a, b);
    await page.selectOption('#colour-by', 'speed');
    if (d < 100) throw new Error(`${d} pixels changed`);
  });

  await step('charts show the series, the iterations line below the top of its axis', async () => {
    await page.waitForFunction(() => Number(document.getElementById('chart-ke').dataset.points) > 10 && Number(document.getElementById('chart-iterations').dataset.points) > 10);
    const pts = await page.evaluate(() => window.ndem.charts.ke.series[0].x.at(-1));
    await shot('04-charts.png', page.locator('.charts'));
    if (!(pts > 1.9)) throw new Error(`the kinetic energy ends at t = ${pts}`);
    const [max, hi] = await page.evaluate(() => [Math.max(...window.ndem.charts.iterations.series[0].y), window.ndem.charts.iterations.range.hi]);
    console.log(`     iterations up to ${max}, axis to ${hi}`);
    if (!(hi > max)) throw new Error(`the iterations reach the top of the axis (${max} of ${hi})`);
  });
  await step('the force chart: the named floor carries the column\'s weight (series route)', async () => {
    await page.waitForFunction(() => !document.getElementById('fig-forces').hidden && Number(document.getElementById('chart-forces').dataset.points) > 10);
    const [names, t, f, w] = await page.evaluate(() => {
      const c = window.ndem.forceChart, line = c.series[0], scene = window.ndem.sel.job.job.scene;
      const rho = scene.materials[0].density; // the column's spheres are its first material
      const w = scene.particles[0].spheres.reduce((a, q) => a + rho * 4 / 3 * Math.PI * q[3] ** 3, 0) * 9.81;
      return [c.series.map((q) => q.name), line.x.at(-1), line.y.at(-1), w];
    });
    await shot('04-forces.png', page.locator('#fig-forces'));
    console.log(`     |F| on floor ${f.toPrecision(6)} N at t = ${t} s, weight ${w.toPrecision(6)} N`);
    if (names.join() !== 'floor') throw new Error(`lines: ${names}`);
    if (!(t > 1.9)) throw new Error(`the force ends at t = ${t}`);
    if (!(Math.abs(f - w) < 0.005 * w)) throw new Error(`|F| ${f} N, weight ${w} N`);
  });
  await step('at 800 px the chart titles do not overlap their legends', async () => {
    await page.setViewportSize({ width: 800, height: 1150 });
    try {
      await page.waitForFunction(() => document.getElementById('chart-residuals').getBoundingClientRect().width < 420);
      await page.waitForTimeout(300);
      const boxes = await page.evaluate(() => Object.values(window.ndem.charts).map((c) => c.layout));
      await shot('04-charts-800.png', page.locator('.charts'));
      for (const { title, legend } of boxes) {
        if (legend && title[2] === legend[2] && title[1] + 4 > legend[0]) throw new Error(`title ${title} meets legend ${legend}`);
      }
    } finally { await page.setViewportSize({ width: 1500, height: 1150 }); }
  });

  await step('replay: scrub to the first frame, play, step', async () => {
    const frames = Number(await page.getAttribute('#detail-body', 'data-frames'));
    if (frames < 8) throw new Error(`${frames} frames listed`);
    await page.focus('#scrub');
    await page.keyboard.press('Home');
    await page.waitForFunction(() => document.getElementById('viewer').dataset.frameIndex === '0');
    if (!/frame 0 · t = 0\.000 s/.test(await text('#frame-label'))) throw new Error(await text('#frame-label'));
    await shot('05-replay-frame0.png', page.locator('.detail'));
    await page.selectOption('#speed', '2');
    await page.click('#play');
    await page.waitForFunction(() => Number(document.getElementById('viewer').dataset.frameIndex) >= 3, null, { timeout: 10000 });
    await page.click('#play'); // pause
    await page.focus('#scrub');
    await page.keyboard.press('End');
    await page.waitForFunction((n) => document.getElementById('viewer').dataset.frameIndex === String(n - 1), frames);
  });

  await step('download series.csv', async () => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#dl-series-csv')]);
    const path = join(OUT, 'download-series.csv');
    await dl.saveAs(path);
    const csv = readFileSync(path, 'utf8');
    if (!csv.startsWith('step,time') || csv.split('\n').length < 300) throw new Error(`csv: ${csv.slice(0, 80)}`);
  });
  await step('download job.json: the document of GET /jobs/{id}, not of the list', async () => {
    if (!stripped) throw new Error('the test did not strip any list item');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#dl-job')]);
    const path = join(OUT, 'download-job.json');
    await dl.saveAs(path);
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    if (doc.name !== 'e2e-column' || doc.solver.duration !== 2) throw new Error(readFileSync(path, 'utf8').slice(0, 80));
  });
  await step('download all frames as a tar', async () => {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#dl-frames-tar')]);
    const path = join(OUT, 'download-frames.tar');
    await dl.saveAs(path);
    const tar = readFileSync(path);
    const names = [];
    for (let off = 0; off + 512 <= tar.length;) {
      const name = tar.toString('latin1', off, off + 100).replace(/\0.*$/s, '');
      if (!name) break;
      const size = parseInt(tar.toString('latin1', off + 124, off + 136), 8);
      if (name.endsWith('.ndf') && tar.toString('latin1', off + 512, off + 516) !== 'NDF1') throw new Error(`${name} is not NDF1`);
      names.push(name);
      off += 512 + Math.ceil(size / 512) * 512;
    }
    if (!names.includes('series.csv') || names.filter((n) => n.startsWith('frames/')).length < 8) throw new Error(names.join(' '));
  });

  await archiveSteps(ctx());

  const meshId = await meshSteps(ctx()); // e2e_meshes.mjs

  await step('force chains: a job with output.contacts draws its contacts as lines, the floor\'s too', async () => {
    const doc = { name: 'e2e-chains', scene: { materials: [{ name: 'a', density: 2500, young_modulus: 1e7 }],
      geometry: [{ type: 'plane', point: [0, 0, 0], normal: [0, 0, 1] }],
      particles: [{ type: 'list', spheres: [[0, 0, 0.0099999, 0.01], [0, 0, 0.0299997, 0.01], [0, 0, 0.0499995, 0.01]] }] },
    solver: { time_step: 0.001, duration: 0.05 }, output: { frame_interval: 0.05, contacts: true } };
    const res = await fetch(`${BASE}/api/v1/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(doc) });
    const body = await res.json();
    if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(body)}`);
    await page.goto(`${BASE}/#/jobs/${body.id}`);
    await page.waitForFunction(() => document.getElementById('d-status').textContent === 'succeeded', null, { timeout: 30000 });
    await page.waitForFunction(() => document.getElementById('viewer').dataset.frameIndex === '1', null, { timeout: 15000 });
    if (await page.isDisabled('#show-chains')) throw new Error('the force chains toggle is disabled');
    await page.check('#show-chains');
    // two particle-particle contacts and the floor's (to its contact point, at the floor)
    await page.waitForFunction(() => document.getElementById('viewer').dataset.chainSegments === '3', null, { timeout: 15000 });
    const legend = await page.textContent('#chains-legend');
    if (!/3 contacts \(1 with geometry\)/.test(legend)) throw new Error(`chains legend: ${legend}`);
    await page.waitForTimeout(300);
    await page.locator('#viewer').screenshot({ path: join(OUT, '05-force-chains.png') });
    await page.uncheck('#show-chains');
    await page.waitForFunction(() => document.getElementById('viewer').dataset.chainSegments === '0');
    const del = await fetch(`${BASE}/api/v1/jobs/${body.id}`, { method: 'DELETE', headers: { 'Content-Type': 'application/json' } });
    if (del.status !== 204) throw new Error(`DELETE job: ${del.status}`);
    await page.goBack();
  });
  await poseSteps(ctx());
  await wallsSteps(ctx());
  await shapeSteps(ctx());

  await meshDeleteSteps(ctx(), meshId);

  // ---- invalid submissions: errors next to the form field, and in the editor ----
  await step('an invalid time step is shown next to its field', async () => {
    await page.click('#tab-submit');
    await page.fill('#f-time-step', '-1');
    await page.click('#submit');
    const fe = page.locator('.field[data-pointer="/solver/time_step"] .field-error');
    await page.waitForFunction(() => document.querySelector('.field[data-pointer="/solver/time_step"] .field-error').textContent !== '');
    const msg = await fe.textContent();
    if (!(await page.locator('.field[data-pointer="/solver/time_step"]').getAttribute('class')).includes('invalid')) throw new Error('field not marked');
    if (!(await page.locator('#submit-errors li[data-pointer="/solver/time_step"]').count())) throw new Error('not listed');
    await shot('06-invalid-field.png', page.locator('.side'));
    console.log(`     /solver/time_step: ${msg}`);
  });
  await step('an unknown field in the editor is listed by pointer and its line marked', async () => {
    await page.fill('#f-time-step', '0.005');
    const t = await page.inputValue('#editor-text');
    await page.fill('#editor-text', t.replace('"density": 3700', '"densty": 3700'));
    await page.click('#submit');
    await page.waitForSelector('#submit-errors li[data-pointer="/scene/materials/0/densty"]');
    const line = t.split('\n').findIndex((l) => l.includes('"density": 3700')) + 1;
    const marked = await page.locator('#editor .gutter .err').allTextContents();
    if (!marked.includes(String(line))) throw new Error(`marked lines ${marked}, want ${line}`);
    await page.click('#submit-errors li[data-pointer="/scene/materials/0/densty"]');
    await shot('07-invalid-editor.png', page.locator('.side'));
  });
  await step('malformed JSON is reported once, with its line', async () => {
    await page.fill('#editor-text', '{\n  "name": "x",\n  "scene": {\n}');
    await page.click('#submit');
    await page.waitForFunction(() => /line 4/.test(document.getElementById('editor-status').textContent));
    await page.waitForTimeout(600); // the editor's own check (250 ms after typing) has run too
    const side = await page.locator('#panel-submit').innerText();
    const said = side.split('\n').filter((l) => /JSON|syntax|line \d/i.test(l) && !/^(Job document|Format JSON)/.test(l));
    console.log(`     ${said.join(' | ')}`);
    if (said.length !== 1) throw new Error(`reported ${said.length} times: ${said.join(' | ')}`);
    const marked = await page.locator('#editor .gutter .err').allTextContents();
    await shot('07-malformed.png', page.locator('.side'));
    if (marked.join() !== '4') throw new Error(`marked lines ${marked}`);
  });
  await step('Tab indents in the editor; Esc then Tab leaves it', async () => {
    await page.focus('#editor-text');
    await page.evaluate(() => document.getElementById('editor-text').setSelectionRange(0, 0));
    const before = await page.inputValue('#editor-text');
    await page.keyboard.press('Tab');
    if (await page.inputValue('#editor-text') !== '  ' + before) throw new Error('Tab did not indent');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => document.activeElement.id);
    if (at !== 'submit') throw new Error(`focus on '${at}'`);
  });
  await step('switching the example asks before dropping the edits', async () => {
    const edited = await page.inputValue('#editor-text');
    answer = 'dismiss';
    const n = dialogs.length;
    await page.selectOption('#example', 'hopper.json');
    await page.waitForFunction(() => document.getElementById('example').value === 'column.json');
    if (dialogs.length !== n + 1 || !/Replace your edits/.test(dialogs[n])) throw new Error(`dialogs: ${dialogs.slice(n)}`);
    if (await page.inputValue('#editor-text') !== edited) throw new Error('the edits were dropped');
    answer = 'accept';
    await page.selectOption('#example', 'hopper.json');
    await page.waitForFunction(() => document.getElementById('editor-text').value.includes('"name": "hopper"'));
    await page.selectOption('#example', 'column.json'); // unchanged: no question
    await page.waitForFunction(() => document.getElementById('editor-text').value.includes('column-25'));
    if (dialogs.length !== n + 2) throw new Error(`${dialogs.length - n} questions`);
  });

  await step('under "method": "dem" the NDEM-only fields are disabled, noted, and write nothing', async () => {
    const ndem = await page.inputValue('#editor-text');
    if (!ndem.includes('"method": "ndem"')) throw new Error('the column example has no "method": "ndem": fix this test');
    const dem = ndem.replace('"method": "ndem"', '"method": "dem"');
    await page.fill('#editor-text', dem);
    await page.waitForFunction(() => document.getElementById('f-iterations').disabled && document.getElementById('f-warm-start').disabled, null, { timeout: 5000 })
      .catch(() => { throw new Error('iterations and warm start stay enabled under "method": "dem"'); });
    for (const ptr of ['/solver/iterations', '/solver/warm_start']) {
      const note = await page.locator(`.field[data-pointer="${ptr}"] .field-note`).textContent();
      if (note !== 'smooth DEM: not used') throw new Error(`${ptr}: note '${note}'`);
    }
    await shot('07-dem-fields.png', page.locator('.settings'));
    // what an edit would do if it reached the fields: events on the disabled inputs
    await page.evaluate(() => {
      const it = document.getElementById('f-iterations');
      it.value = '7';
      it.dispatchEvent(new Event('input', { bubbles: true }));
      const ws = document.getElementById('f-warm-start');
      ws.checked = !ws.checked;
      ws.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await page.click('#f-warm-start', { force: true });
    if (await page.inputValue('#editor-text') !== dem) throw new Error('the disabled fields changed the editor text');
    // back to NDEM: enabled, no note, and they write again
    await page.fill('#editor-text', ndem);
    await page.waitForFunction(() => !document.getElementById('f-iterations').disabled && !document.getElementById('f-warm-start').disabled, null, { timeout: 5000 })
      .catch(() => { throw new Error('iterations and warm start stay disabled back under "method": "ndem"'); });
    if (await page.locator('.field[data-pointer="/solver/iterations"] .field-note').textContent() !== '') throw new Error('note left under ndem');
    await page.fill('#f-iterations', '40');
    if (await page.inputValue('#editor-text') !== ndem.replace('"iterations": 50', '"iterations": 40')) throw new Error('iterations not written under ndem');
  });

  await step('a job that fails at run time shows its error', async () => {
    await page.fill('#editor-text', JSON.stringify({ name: 'e2e-nofit', scene: { materials: [{ name: 'a' }],
      particles: [{ type: 'random', min: [0, 0, 0], max: [0.01, 0.01, 0.01], count: 1000, radius: 0.005 }] }, solver: { duration: 0.01 } }, null, 2));
    await page.click('#submit');
    await page.waitForFunction(() => document.getElementById('d-name').textContent === 'e2e-nofit' && document.getElementById('d-status').textContent === 'failed', null, { timeout: 30000 });
    const e = await text('#d-error');
    if (!(await page.isVisible('#d-error')) || e.length < 20) throw new Error(`error box: '${e}'`);
    console.log(`     ${e}`);
  });
  await step('the failed job offers only the downloads that exist', async () => {
    const id = await page.evaluate(() => window.ndem.sel.id);
    const has = await page.evaluate(async (i) => {
      const f = await (await fetch(`/api/v1/jobs/${i}/frames`)).json(), s = await (await fetch(`/api/v1/jobs/${i}/series`)).json();
      return { frames: f.frames.length, series: (s.series?.time || []).length };
    }, id);
    const want = ['dl-job', ...(has.series ? ['dl-series-csv', 'dl-series-json'] : []), ...(has.frames ? ['dl-archive', 'dl-frame-json', 'dl-frame-ndf', 'dl-frames-tar'] : [])].sort();
    await page.waitForFunction((w) => [...document.querySelectorAll('.downloads button')].filter((b) => !b.hidden).map((b) => b.id).sort().join() === w.join(),
      want, { timeout: 10000 }).catch(() => {});
    await page.waitForTimeout(500); // and it stays so
    const shown = await visibleDownloads();
    console.log(`     ${has.frames} frames, ${has.series} series points: ${shown.join(' ')}`);
    if (JSON.stringify(shown) !== JSON.stringify(want)) throw new Error(`offered ${shown}, want ${want}`);
    if (has.frames && has.series) throw new Error('the job that fails at once has frames and series: this check tests nothing');
  });

  // ---- a running job: live stream, the daemon going away and coming back, cancel, delete ----
  await step('a running job streams live frames', async () => {
    await page.click('#tab-submit');
    await page.selectOption('#example', 'column.json');
    await page.waitForFunction(() => document.getElementById('editor-text').value.includes('column-25'));
    await page.fill('#f-name', 'e2e-long');
    await page.fill('#f-duration', '3000');
    // 25 particles run ~12 simulated s per wall s under ASan: a frame every
    // 0.5 s keeps the frame list the page polls small (0.05 made it 1.5 MB
    // within a minute and the page too busy to click on a loaded machine)
    await page.fill('#f-frame-interval', '0.5');
    await page.click('#submit');
    await page.waitForFunction(() => document.getElementById('d-name').textContent === 'e2e-long' && document.getElementById('d-status').textContent === 'running', null, { timeout: 30000 });
    await page.waitForFunction(() => document.getElementById('d-stream').textContent.includes('live'));
    const first = Number(await page.getAttribute('#viewer', 'data-frame-index') || -1);
    await page.waitForFunction((f) => Number(document.getElementById('viewer').dataset.frameIndex) > f + 2, first, { timeout: 20000 });
    await shot('09-live.png');
  });
  await step('live charts: one source (the series), the same points in every line', async () => {
    await page.waitForFunction(() => Number(document.getElementById('chart-iterations').dataset.points) > 3);
    for (let k = 0; k < 6; k++) { // over about 3 s: series reloads and progress messages
      const lines = await page.evaluate(() => Object.values(window.ndem.charts).flatMap((c) => c.series.map((s) => `${s.name} ${s.x.length} ${s.x.at(-1)}`)));
      if (new Set(lines.map((l) => l.replace(/^\S+ /, ''))).size !== 1) throw new Error(lines.join(', '));
      await page.waitForTimeout(500);
    }
  });
  await step('live force chart: progress messages carry it past the series\' last time', async () => {
    // the other charts come from the series alone: only the stream moves this one ahead of them
    await page.waitForFunction(() => window.ndem.forceChart.series[0]?.x.at(-1) > window.ndem.charts.iterations.series[0].x.at(-1), null, { timeout: 20000 });
  });
  await step('cancel asks first: dismissed, the job runs on', async () => {
    answer = 'dismiss';
    const n = dialogs.length;
    await page.click('#d-cancel');
    await page.waitForTimeout(1500);
    answer = 'accept';
    if (dialogs.length !== n + 1 || !/Cancel job “e2e-long”/.test(dialogs[n])) throw new Error(`dialogs: ${dialogs.slice(n)}`);
    const id = await page.evaluate(() => window.ndem.sel.id);
    const st = (await (await fetch(`${BASE}/api/v1/jobs/${id}`)).json()).status;
    if (st !== 'running' || await detailText('#d-status') !== 'running') throw new Error(`status ${st}`);
  });
  await step('the page says when the daemon is unreachable and the stream dropped', async () => {
    await stopDaemon();
    await page.waitForFunction(() => document.getElementById('conn').textContent === 'daemon unreachable', null, { timeout: 15000 });
    await page.waitForFunction(() => /stream lost/.test(document.getElementById('d-stream').textContent));
    const b = await text('#banner');
    await shot('08-unreachable.png');
    if (!/Cannot reach ndemd|stream .* dropped/.test(b)) throw new Error(`banner: ${b}`);
  });
  await step('it reconnects when the daemon is back', async () => {
    await startDaemon();
    await page.waitForFunction(() => document.getElementById('conn').textContent === 'connected', null, { timeout: 15000 });
    await page.waitForFunction(() => ['succeeded', 'failed', 'cancelled'].includes(document.getElementById('d-status').textContent)
      || document.getElementById('d-stream').textContent.includes('live'), null, { timeout: 30000 });
  });
  await step('cancel accepted: the job is cancelled; then delete it (its URL goes)', async () => {
    const n = dialogs.length;
    await page.click('#d-cancel');
    await page.waitForFunction(() => document.getElementById('d-status').textContent === 'cancelled', null, { timeout: 30000 });
    if (!/Cancel job/.test(dialogs[n] || '')) throw new Error('no question');
    const id = await page.evaluate(() => window.ndem.sel.id);
    await page.click('#d-delete');
    await page.waitForFunction((i) => !document.querySelector(`#jobs-body tr[data-id="${i}"]`), id);
    await page.waitForFunction(() => location.hash === '', null, { timeout: 5000 }).catch(async () => {
      throw new Error(`the deleted job keeps its URL ${await page.evaluate(() => `${location.href} sel ${window.ndem.sel.id} banner ${document.getElementById('banner').textContent}`)}`);
    });
    return (await page.isVisible('#detail-empty'));
  });
  await step('search by name and sort by name, creation time and status', async () => {
    await page.click('#tab-jobs');
    const names = () => page.evaluate(() => [...document.querySelectorAll('#jobs-body tr.job')].map((r) => r.dataset.name).join(' '));
    const want = async (s, what) => {
      try { await page.waitForFunction((w) => [...document.querySelectorAll('#jobs-body tr.job')].map((r) => r.dataset.name).join(' ') === w, s, { timeout: 5000 }); } catch { throw new Error(`${what}: '${await names()}', want '${s}'`); }
    };
    await want('e2e-nofit e2e-column', 'newest first');
    await page.fill('#search', 'NOFIT');
    await want('e2e-nofit', 'search');
    if (!/1 of 2 jobs/.test(await text('#jobs-count'))) throw new Error(await text('#jobs-count'));
    await page.fill('#search', 'zzz');
    await want('', 'no match');
    if (!(await page.isVisible('#jobs-none'))) throw new Error('no "no match" note');
    await page.fill('#search', '');
    await page.click('button[data-sort=name]');
    await want('e2e-column e2e-nofit', 'name A-Z');
    if (await page.getAttribute('th:has(button[data-sort=name])', 'aria-sort') !== 'ascending') throw new Error('aria-sort');
    await page.click('button[data-sort=name]');
    await want('e2e-nofit e2e-column', 'name Z-A');
    await page.click('button[data-sort=created]');
    await want('e2e-nofit e2e-column', 'newest first');
    await page.click('button[data-sort=created]');
    await want('e2e-column e2e-nofit', 'oldest first');
    await page.click('button[data-sort=status]');
    await want('e2e-nofit e2e-column', 'status (failed before succeeded)');
    await shot('11-sorted.png', page.locator('.side'));
    await page.click('button[data-sort=created]');
  });
  await step('filter the list by status', async () => {
    await page.selectOption('#filter', 'cancelled');
    await page.waitForFunction(() => document.querySelectorAll('#jobs-body tr.job').length === 0);
    await page.selectOption('#filter', 'succeeded');
    await page.waitForFunction(() => document.querySelectorAll('#jobs-body tr.job').length === 1);
    await page.selectOption('#filter', '');
  });
  await step('a sweep view: its jobs with their values and statuses, and a plot of a result', async () => {
    // 2 x 2 tiny jobs (a sphere falling for 0.05 s); queued through the API itself
    const id = await page.evaluate(async () => {
      const base = { name: 'e2e-sweep', scene: { materials: [{ name: 'ore', density: 2500, young_modulus: 1e7 }],
        geometry: [{ type: 'plane', point: [0, 0, 0], normal: [0, 0, 1] }],
        particles: [{ type: 'list', spheres: [[0, 0, 0.5, 0.01]] }] },
        solver: { time_step: 0.005, duration: 0.05 }, output: { frame_interval: 0.05 } };
      const r = await fetch('/api/v1/sweeps', { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ base, mode: 'product', parameters: [
          { pointer: '/solver/iterations', values: [10, 20] },
          { pointer: '/scene/materials/0/density', values: [2500, 5000] }] }) });
      if (r.status !== 201) throw new Error(`POST /sweeps: ${r.status} ${await r.text()}`);
      return (await r.json()).id;
    });
    await page.click('#tab-sweeps');
    await page.waitForSelector(`#sweeps-body a[href="#/sweeps/${id}"]`, { timeout: 10000 });
    await page.click(`#sweeps-body a[href="#/sweeps/${id}"]`);
    if ((await page.evaluate(() => location.hash)) !== `#/sweeps/${id}`) throw new Error('URL is not the sweep\'s');
    await page.waitForFunction(() => document.querySelector('#sweep-view')?.dataset.status === 'done', null, { timeout: 60000 });
    const rows = await page.$$eval('#sw-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
    const want = [['0', '10', '2500', 'succeeded'], ['1', '10', '5000', 'succeeded'], ['2', '20', '2500', 'succeeded'], ['3', '20', '5000', 'succeeded']];
    for (let k = 0; k < 4; k++)
      if (JSON.stringify(rows[k]?.slice(0, 4)) !== JSON.stringify(want[k])) throw new Error(`row ${k}: ${rows[k]}`);
    // kinetic energy against the density: two lines (one per iteration count) of two points
    await page.selectOption('#sw-x', '/scene/materials/0/density');
    const pts = await page.$eval('#sweep-chart', (c) => Number(c.dataset.points));
    if (pts !== 4) throw new Error(`${pts} points plotted`);
    await shot('12-sweep.png', page.locator('#detail'));
    // a job's link opens that job's view
    await page.click(`#sw-table tbody tr:first-child a`);
    await page.waitForFunction(() => /^#\/jobs\//.test(location.hash) && !document.querySelector('#detail-body').hidden);
    if (!(await page.isHidden('#sweep-view'))) throw new Error('the sweep view stays');
  });
  await page.screenshot({ path: join(OUT, '10-page.png'), fullPage: true });
  check('no uncaught errors in the page', errors.length === 0, errors.join(' | '));

  // a second daemon on 0.0.0.0: authentication on by default (docs/api.md)
  await step('with --auth on the page asks for a token once, shows only its owner\'s jobs, streams with ?token=, and its Token control changes and forgets it', async () => {
    const authData = DATA + '-auth';
    mkdirSync(authData, { recursive: true });
    const mk = (name) => execFileSync(NDEMD, ['token', 'create', name, '--data', authData], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    const alice = mk('alice'), bob = mk('bob');
    const port2 = await freePorts(), base2 = `http://127.0.0.1:${port2}`;
    authDaemon = spawn(NDEMD, ['--listen', `0.0.0.0:${port2}`, '--ws-listen', `0.0.0.0:${port2 + 1}`, '--data', authData,
      '--web', join(root, 'web'), '--workers', '2', '--progress-interval', '0.1'], { stdio: ['ignore', logFd, logFd] });
    for (let k = 0; k < 100 && !(await fetch(`${base2}/health`).then((r) => r.ok, () => false)); k++) await new Promise((r) => setTimeout(r, 100));
    const post = async (token, name, duration) => {
      const doc = JSON.parse(readFileSync(join(root, 'examples', 'column.json'), 'utf8'));
      Object.assign(doc, { name });
      doc.solver.duration = duration;
      const r = await fetch(`${base2}/api/v1/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify(doc) });
      if (r.status !== 201) throw new Error(`POST as ${name}: ${r.status}`);
      return (await r.json()).id;
    };
    const mine = await post(alice, 'alice-live', 3000);
    await post(bob, 'bob-job', 1);
    const ctx2 = await browser.newContext({ viewport: { width: 1500, height: 1150 } });
    const p2 = await ctx2.newPage();
    const asked = [];
    p2.on('pageerror', (e) => errors.push(e.message));
    p2.on('dialog', (d) => { asked.push(d.message()); return d.type() === 'prompt' ? d.accept(alice) : d.dismiss(); });
    await p2.goto(`${base2}/#/jobs/${mine}`);
    await p2.waitForFunction(() => document.getElementById('d-name').textContent === 'alice-live', null, { timeout: 30000 });
    await p2.waitForFunction(() => document.getElementById('d-stream').textContent.includes('live'), null, { timeout: 30000 });
    await p2.waitForSelector('#jobs-body tr.job[data-name="alice-live"]', { timeout: 20000 });
    if (await p2.$('#jobs-body tr.job[data-name="bob-job"]')) throw new Error('bob\'s job is listed');
    if (asked.length !== 1 || !/token/i.test(asked[0])) throw new Error(`asked ${asked.length} times: ${asked.join(' | ')}`);
    if ((await p2.evaluate(() => sessionStorage.getItem('ndem.token'))) !== alice) throw new Error('the token is not kept for the tab');
    // the Token control changes it without a prompt: the page reloads as bob's
    await p2.waitForSelector('#token-btn:not([hidden])');
    if ((await p2.textContent('#token-btn')) !== 'Change token') throw new Error(`the control reads ${await p2.textContent('#token-btn')}`);
    await p2.click('#token-btn');
    await p2.fill('#token-input', bob);
    await p2.screenshot({ path: join(OUT, '11-token.png'), clip: { x: 0, y: 0, width: 1500, height: 60 } });
    await Promise.all([p2.waitForNavigation(), p2.click('#token-form button[type=submit]')]);
    await p2.waitForSelector('#jobs-body tr.job[data-name="bob-job"]', { timeout: 20000 });
    if (await p2.$('#jobs-body tr.job[data-name="alice-live"]')) throw new Error('alice\'s job is listed with bob\'s token');
    if ((await p2.evaluate(() => sessionStorage.getItem('ndem.token'))) !== bob) throw new Error('the changed token is not kept');
    if (asked.length !== 1) throw new Error(`changing the token asked ${asked.length - 1} more question(s): ${asked.join(' | ')}`);
    // forgotten: the next request's 401 asks again
    await p2.click('#token-btn');
    await Promise.all([p2.waitForNavigation(), p2.click('#token-forget')]);
    for (let k = 0; k < 100 && asked.length < 2; k++) await new Promise((r) => setTimeout(r, 100));
    if (asked.length !== 2) throw new Error(`after Forget the page asked ${asked.length - 1} time(s)`);
    await fetch(`${base2}/api/v1/jobs/${mine}/cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${alice}` } });
    await ctx2.close();
    const d = authDaemon;
    const done = new Promise((r) => d.once('exit', (code, sig) => r(code ?? sig)));
    d.kill('SIGTERM');
    if ((await done) !== 0) throw new Error('the daemon with --auth did not exit 0');
  });
} catch (e) {
  check('test run', false, e.stack || e.message);
  if (page) await page.screenshot({ path: join(OUT, 'failure.png'), fullPage: true }).catch(() => {});
} finally {
  await browser?.close().catch(() => {});
  await stopDaemon().catch(() => {});
  if (authDaemon && authDaemon.exitCode === null && !authDaemon.signalCode) authDaemon.kill('SIGKILL');
}
console.log(`web e2e: ${passed} checks ok, ${failed} failed, ${((Date.now() - T0) / 1000).toFixed(0)} s; screenshots in ${OUT}`);
process.exit(failed ? 1 : 0);
