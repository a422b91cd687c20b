// Takes the README's picture of the browser client: starts the release
// ndemd on a free loopback port with a temporary data directory, submits an
// example job, opens the page on it in Debian's Chromium (headless) and saves
// a screenshot. Needs `make` and `make web` first.
//
//   node tools/screenshot.mjs [examples/hopper.json] [docs/images/web.png]
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'web', 'package.json'));
const { chromium } = require('playwright-core');
const example = resolve(process.argv[2] || join(root, 'examples/hopper.json'));
const out = resolve(process.argv[3] || join(root, 'docs/images/web.png'));
const port = 21000 + Math.floor(Math.random() * 20000);
const base = `http://127.0.0.1:${port}`;
const data = mkdtempSync(join(tmpdir(), 'ndem-shot-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const daemon = spawn(join(root, 'build/release/ndemd'),
  ['--listen', `127.0.0.1:${port}`, '--data', data, '--web', join(root, 'web'), '--threads', '2'],
  { stdio: 'ignore' });
try {
  for (let k = 0; k < 100; k++) {
    try { if ((await fetch(`${base}/health`)).ok) break; } catch { /* not up yet */ }
    await sleep(100);
  }
  const res = await fetch(`${base}/api/v1/jobs`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: readFileSync(example),
  });
  const job = await res.json();
  if (res.status !== 201) throw new Error(`submit failed: ${res.status} ${JSON.stringify(job)}`);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
      '--enable-unsafe-swiftshader'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // the page follows the job live from the start; the picture is taken past
  // half of it, with a frame in the view and the charts loaded
  await page.goto(`${base}/#/jobs/${job.id}`);
  await page.waitForFunction(() => {
    const j = window.ndem?.sel.job;
    return j && (j.progress?.fraction > 0.6 || ['succeeded', 'failed'].includes(j.status)) &&
      document.getElementById('viewer').dataset.frameIndex !== '' && Number(document.getElementById('chart-ke').dataset.points) > 10;
  }, null, { timeout: 120000 });
  await sleep(300);
  await page.screenshot({ path: out });
  await browser.close();
  console.log(`wrote ${out}`);
} finally {
  daemon.kill('SIGTERM');
  await sleep(500);
  rmSync(data, { recursive: true, force: true });
}
