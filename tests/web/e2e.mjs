// End-to-end test of the browser client (web/) against a real ndemd, in
// Debian's Chromium (headless, SwiftShader WebGL) driven by playwright-core
// from web/node_modules. It starts ndemd itself (so that it can stop and
// restart it to see the page report an unreachable daemon and a dropped
// stream), on free loopback ports with the --data directory it is given.
//
//   node tests/web/e2e.mjs --ndemd build/asan/ndemd --data /tmp/x --out build/web-test
//
// Prints one line per check and exits non-zero when any failed.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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
let daemon = null;
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

let browser, page;
const errors = [];
const shot = (name, target = page) => target.screenshot({ path: join(OUT, name) });
const text = (sel) => page.locator(sel).textContent();

try {
  await startDaemon();
  console.log(`ndemd ${NDEMD} on ${BASE}, data ${DATA}`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic', '--enable-unsafe-swiftshader'],
  });
  const context = await browser.newContext({ viewport: { width: 1500, height: 1150 }, acceptDownloads: true });
  page = await context.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => d.accept());
  page.setDefaultTimeout(20000);

  await step('page loads and says it is connected', async () => {
    await page.goto(BASE + '/');
    await page.waitForFunction(() => document.getElementById('conn').textContent === 'connected');
    return /^ndem/.test(await page.title());
  });
  const renderer = await page.evaluate(async () => { await window.ndem.viewerReady; return document.getElementById('viewer').dataset.renderer; });
  check(`3D view starts (renderer: ${renderer})`, renderer === 'webgl', 'WebGL 2 unavailable: the 2D fallback draws instead');

  // ---- a valid submission from an example, with the form ----
  await step('submit the column example with a shorter duration', async () => {
    await page.click('#tab-submit');
    await page.waitForFunction(() => document.getElementById('example').options.length > 1);
    await page.selectOption('#example', 'column.json');
    await page.waitForFunction(() => document.getElementById('editor-text').value.includes('column-25'));
    await page.fill('#f-name', 'e2e-column');
    await page.fill('#f-duration', '2');
    await page.fill('#f-frame-interval', '0.25');
    const doc = JSON.parse(await page.inputValue('#editor-text'));
    if (doc.solver.duration !== 2 || doc.name !== 'e2e-column' || doc.output.frame_interval !== 0.25) throw new Error('the form did not reach the editor');
    await shot('02-submit-form.png');
    await page.click('#submit');
    await page.waitForFunction(() => /Submitted/.test(document.getElementById('submit-result').textContent));
  });
  await step('the job appears in the list and reaches succeeded', async () => {
    await page.waitForSelector('#jobs-body tr.job');
    await page.waitForFunction(() => document.getElementById('d-status').textContent === 'succeeded', null, { timeout: 60000 });
    await page.waitForFunction(() => document.querySelector('#jobs-body tr.selected .badge')?.textContent === 'succeeded');
    const row = await text('#jobs-body tr.selected');
    if (!/e2e-column/.test(row) || !/100%/.test(row) || !/25/.test(row)) throw new Error(`row: ${row}`);
    await shot('01-jobs.png', page.locator('.side'));
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

  await step('charts show the series', async () => {
    await page.waitForFunction(() => Number(document.getElementById('chart-ke').dataset.points) > 10 && Number(document.getElementById('chart-iterations').dataset.points) > 10);
    const pts = await page.evaluate(() => window.ndem.charts.ke.series[0].x.at(-1));
    await shot('04-charts.png', page.locator('.charts'));
    if (!(pts > 1.9)) throw new Error(`the kinetic energy ends at t = ${pts}`);
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
  await step('malformed JSON is refused with its line', async () => {
    await page.fill('#editor-text', '{\n  "name": "x",\n  "scene": {\n}');
    await page.click('#submit');
    await page.waitForFunction(() => /not valid JSON/.test(document.getElementById('submit-result').textContent));
    return (await page.locator('#editor .gutter .err').count()) === 1;
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

  // ---- a running job: live stream, the daemon going away and coming back, cancel, delete ----
  await step('a running job streams live frames', async () => {
    await page.click('#tab-submit');
    await page.selectOption('#example', 'column.json');
    await page.waitForFunction(() => document.getElementById('editor-text').value.includes('column-25'));
    await page.fill('#f-name', 'e2e-long');
    await page.fill('#f-duration', '3000');
    await page.fill('#f-frame-interval', '0.05');
    await page.click('#submit');
    await page.waitForFunction(() => document.getElementById('d-name').textContent === 'e2e-long' && document.getElementById('d-status').textContent === 'running', null, { timeout: 30000 });
    await page.waitForFunction(() => document.getElementById('d-stream').textContent.includes('live'));
    const first = Number(await page.getAttribute('#viewer', 'data-frame-index') || -1);
    await page.waitForFunction((f) => Number(document.getElementById('viewer').dataset.frameIndex) > f + 2, first, { timeout: 20000 });
    await shot('09-live.png');
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
  await step('cancel the running job, then delete it', async () => {
    if (await page.isVisible('#d-cancel')) await page.click('#d-cancel');
    await page.waitForFunction(() => ['cancelled', 'failed', 'succeeded'].includes(document.getElementById('d-status').textContent), null, { timeout: 30000 });
    const id = await page.evaluate(() => window.ndem.sel.id);
    await page.click('#d-delete');
    await page.waitForFunction((i) => !document.querySelector(`#jobs-body tr[data-id="${i}"]`), id);
    return (await page.isVisible('#detail-empty'));
  });
  await step('filter the list by status', async () => {
    await page.click('#tab-jobs');
    await page.selectOption('#filter', 'cancelled');
    await page.waitForFunction(() => document.querySelectorAll('#jobs-body tr.job').length === 0);
    await page.selectOption('#filter', 'succeeded');
    await page.waitForFunction(() => document.querySelectorAll('#jobs-body tr.job').length === 1);
    await page.selectOption('#filter', '');
  });
  await page.screenshot({ path: join(OUT, '10-page.png'), fullPage: true });
  check('no uncaught errors in the page', errors.length === 0, errors.join(' | '));
} catch (e) {
  check('test run', false, e.stack || e.message);
  if (page) await page.screenshot({ path: join(OUT, 'failure.png'), fullPage: true }).catch(() => {});
} finally {
  await browser?.close().catch(() => {});
  await stopDaemon().catch(() => {});
}
console.log(`web e2e: ${passed} checks ok, ${failed} failed, ${((Date.now() - T0) / 1000).toFixed(0)} s; screenshots in ${OUT}`);
process.exit(failed ? 1 : 0);
