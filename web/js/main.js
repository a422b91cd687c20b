// main.js - the ndem browser client: job list, submission with the API's
// validation errors, live 3D view over the job's WebSocket stream, charts of
// the series, replay of stored frames, downloads. Only the public REST API
// (docs/api.md) and the job streams (docs/protocol.md) are used.
import { api, ApiError, NetworkError, onReachability, withToken, token, onTokenChange, changeToken } from './api.js';
import { Chart, fmt } from './chart.js';
import { namedGeometry, magnitude, seriesMagnitude } from './forces.js';
import { parseNdf } from './ndf.js';
import { parseNdc } from './ndc.js';
import { chainSegments, CHAIN_MAX_RATIO } from './chains.js';
import { initDownloads } from './downloads.js';
import { LUT } from './colormap.js';
import { JobList, FINAL, jobHref, timing } from './joblist.js';
import { initSubmit } from './submit.js';
import { SweepView, sweepFromHash } from './sweeps.js';
import { initMeshes } from './meshes.js';

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- banner

// Messages by topic ('daemon', 'stream', ...), shown together, newest last;
// an error outlives info; ms > 0 removes the message after that long.
const notes = new Map();
function banner(key, text, kind = 'error', ms = 0) {
  const old = notes.get(key);
  if (old) clearTimeout(old.timer);
  if (!text) notes.delete(key);
  else {
    const note = { text, kind, timer: ms ? setTimeout(() => banner(key, null), ms) : null };
    notes.delete(key);
    notes.set(key, note);
  }
  const b = $('banner');
  b.hidden = notes.size === 0;
  b.className = 'banner' + ([...notes.values()].some((n) => n.kind !== 'info') ? '' : ' info');
  b.innerHTML = [...notes.values()].map((n) => `<div>${esc(n.text)}</div>`).join('');
}

let wasDown = false;
onReachability((ok, why) => {
  const c = $('conn');
  c.className = 'conn ' + (ok ? 'conn-ok' : 'conn-down');
  c.textContent = ok ? 'connected' : 'daemon unreachable';
  if (!ok) {
    wasDown = true;
    banner('daemon', `Cannot reach ndemd at ${location.host} (${why}). Retrying every few seconds; nothing is lost on the server.`);
  } else if (wasDown) {
    wasDown = false;
    banner('daemon', 'Connection to ndemd restored.', 'info', 4000);
    if (sel.id) refreshSelected();
    else if (jobFromHash()) route(); // the job of the URL could not be loaded: again
  }
});

// ---------------------------------------------------------------- token
// With authentication on (docs/api.md) the first 401 asks for a token; the
// Token button then changes or forgets it. The page reloads with the new
// one, so that every list, view and stream is that token's owner's.
function initToken() {
  const btn = $('token-btn'), form = $('token-form'), input = $('token-input');
  // shown once tokens matter: a token is kept, or a 401 asked for one
  const show = (t) => { btn.hidden = !form.hidden; btn.textContent = t ? 'Change token' : 'Token'; };
  const open = (on) => { form.hidden = !on; btn.hidden = on; if (on) { input.value = ''; input.focus(); } };
  onTokenChange(show);
  btn.addEventListener('click', () => open(true));
  $('token-close').addEventListener('click', () => { open(false); show(token()); });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!input.value.trim()) return;
    changeToken(input.value);
    location.reload();
  });
  $('token-forget').addEventListener('click', () => { changeToken(''); location.reload(); });
  if (token()) show(token());
}
initToken();

// ---------------------------------------------------------------- tabs

// role=tab buttons: one tab stop, arrow keys move between them (WAI-ARIA tabs)
const tabs = [...document.querySelectorAll('[role=tab]')];
tabs.forEach((t, k) => {
  t.addEventListener('click', () => showTab(t.id));
  t.addEventListener('keydown', (e) => {
    const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
    if (!step) return;
    const next = tabs[(k + step + tabs.length) % tabs.length];
    showTab(next.id);
    next.focus();
  });
});
function showTab(id) {
  for (const t of tabs) {
    const on = t.id === id;
    t.classList.toggle('active', on);
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute('aria-controls')).hidden = !on;
  }
}

// ---------------------------------------------------------------- job list

let listExtra = 0, jobsCache = [];
const list = new JobList({
  body: $('jobs-body'), head: document.querySelector('table.jobs thead'),
  on: { open: (id) => openJob(id), cancel: (id, name) => cancelJob(id, name), remove: (id, name) => deleteJob(id, name) },
});

function renderJobs(jobs) {
  const shown = list.render(jobs);
  $('jobs-empty').hidden = jobs.length > 0;
  $('jobs-empty').textContent = $('filter').value ? `No job is ${$('filter').value}.` : 'No jobs yet: submit one under “New job”.';
  const n = (k) => `${k} job${k === 1 ? '' : 's'}`;
  $('jobs-count').textContent = shown.length === jobs.length ? n(jobs.length) : `${shown.length} of ${n(jobs.length)}`;
  $('jobs-none').hidden = !(jobs.length && !shown.length);
  const running = jobs.filter((j) => j.status === 'running').length;
  document.title = running ? `ndem (${running} running)` : 'ndem';
}
$('search').addEventListener('input', (e) => { list.search = e.target.value; renderJobs(jobsCache); });
list.head.addEventListener('click', () => renderJobs(jobsCache));

let pollBusy = false;
async function pollJobs() {
  if (pollBusy) return;
  pollBusy = true;
  try {
    const status = $('filter').value;
    const first = await api.list(status, null, 100 + listExtra);
    jobsCache = first.jobs;
    $('jobs-more').hidden = !first.next_cursor;
    renderJobs(jobsCache);
    const mine = jobsCache.find((j) => j.id === sel.id);
    if (mine) updateDetail(mine);
    else if (sel.id) refreshSelected();
  } catch (e) {
    if (!(e instanceof NetworkError)) banner('list', `Listing jobs failed: ${e.message}`, 'error', 6000);
  } finally {
    pollBusy = false;
  }
}
$('filter').addEventListener('change', () => { listExtra = 0; pollJobs(); });
$('jobs-more').addEventListener('click', () => { listExtra += 100; pollJobs(); });

async function cancelJob(id, name) {
  if (!confirm(`Cancel job “${name || id}”? Its run stops and cannot be resumed.`)) return;
  try { updateDetailIf(await api.cancel(id)); } catch (e) { banner('action', `Cancel failed: ${e.message}`, 'error', 6000); }
  pollJobs();
}
const deletedHere = new Set(); // jobs this page deleted: their 404 is no news
async function deleteJob(id, name) {
  if (!confirm(`Delete job “${name || id}” and all its files?`)) return;
  deletedHere.add(id);
  try {
    await api.remove(id);
    if (sel.id === id) closeJob();
  } catch (e) { banner('action', `Delete failed: ${e.message}`, 'error', 6000); }
  pollJobs();
}

// ---------------------------------------------------------------- viewer

let viewer = null;
const viewerReady = (async () => {
  const container = $('viewer');
  let note = '', kind = '2d';
  if (new URLSearchParams(location.search).get('renderer') !== '2d') {
    try {
      const m = await import('./viewer3d.js');
      if (m.webglAvailable()) { viewer = new m.Viewer3D(container); kind = m.kind; }
      else note = 'WebGL 2 is not available in this browser: 2D fallback view.';
    } catch (e) {
      note = `The 3D view could not start (${e.message}; is three.js in web/vendor/? \`make web\` puts it there): 2D fallback view.`;
    }
  }
  if (!viewer) {
    const m = await import('./viewer2d.js');
    viewer = new m.Viewer2D(container);
  }
  container.dataset.renderer = kind;
  $('viewer-note').textContent = note;
  viewer.onLegend = drawLegend;
  if ('fetchMesh' in viewer) {
    viewer.fetchMesh = api.meshStl; // meshes a job names by id
    viewer.onMeshError = (why) => banner('mesh', `Cannot draw a mesh: ${why}`, 'error', 15000);
  }
  viewer.onFps = (fps) => { $('fps').textContent = fps > 0.5 ? `${fps.toFixed(0)} renders/s` : ''; };
  viewer.setColourMode($('colour-by').value);
  const sp = new URLSearchParams(location.search).get('spheres');
  if (sp) $('spheres').value = sp;
  if (viewer.setSphereMode) viewer.setSphereMode($('spheres').value); else $('spheres').disabled = true;
  return viewer;
})();

function drawLegend(label, unit, lo, hi) {
  $('legend').hidden = false;
  $('legend-title').textContent = unit ? `${label} (${unit})` : label;
  const c = $('legend-bar'), g = c.getContext('2d');
  for (let y = 0; y < c.height; y++) {
    const k = 3 * Math.round(255 * (1 - y / (c.height - 1)));
    g.fillStyle = `rgb(${LUT[k] * 255},${LUT[k + 1] * 255},${LUT[k + 2] * 255})`;
    g.fillRect(0, y, c.width, 1);
  }
  const ticks = $('legend-ticks');
  ticks.innerHTML = '';
  for (let k = 0; k <= 4; k++) {
    const s = document.createElement('span');
    s.style.top = `${(1 - k / 4) * 100}%`;
    s.textContent = fmt(lo + ((hi - lo) * k) / 4);
    ticks.appendChild(s);
  }
}
$('colour-by').addEventListener('change', (e) => { $('lock-range').checked = false; viewer?.setColourMode(e.target.value); });
$('lock-range').addEventListener('change', (e) => viewer?.lockRange(e.target.checked));
$('spheres').addEventListener('change', (e) => viewer?.setSphereMode?.(e.target.value));
$('show-particles').addEventListener('change', (e) => viewer?.setParticlesVisible(e.target.checked));
$('show-geometry').addEventListener('change', (e) => viewer?.setGeometryVisible(e.target.checked));
$('reset-camera').addEventListener('click', () => viewer?.resetCamera());
$('show-chains').addEventListener('change', () => updateChains());

// ---- force chains: the contact network stored with a frame (output.contacts)

// Offered only for a job whose document stores contacts.
function chainsOffer() {
  const box = $('show-chains'), has = !!sel.doc?.output?.contacts;
  box.disabled = !has;
  box.parentElement.title = has ? 'Particle-particle contacts of the frame as lines between centres, coloured by normal force relative to the mean'
    : 'This job stores no contacts: set output.contacts to true in its document';
}

// Draws (or clears) the chains of the frame shown; its record is fetched
// once and kept for the last few frames. A frame without a stored record
// (a live frame not yet written) draws none.
async function updateChains() {
  const f = sel.shown, id = sel.id;
  if (!$('show-chains').checked || !f || !sel.doc?.output?.contacts) { showChains(null); return; }
  let c = sel.contacts.get(f.index);
  if (!c) {
    try {
      c = parseNdc(await api.contacts(id, f.index));
    } catch (e) {
      if (sel.id === id && !(e instanceof NetworkError) && !(e instanceof ApiError && e.status === 404))
        banner('chains', `The contacts of frame ${f.index} could not be loaded: ${e.message}`, 'error', 5000);
      if (sel.shown === f) showChains(null);
      return;
    }
    if (sel.id !== id) return;
    sel.contacts.set(f.index, c);
    if (sel.contacts.size > 8) sel.contacts.delete(sel.contacts.keys().next().value);
  }
  if (sel.shown === f && $('show-chains').checked) showChains(chainSegments(c, f));
}

// The segments into the view, and what their colours mean under the legend.
function showChains(seg) {
  viewer?.setChains?.(seg);
  const note = $('chains-legend');
  note.hidden = !seg?.count;
  note.textContent = seg?.count ? `force chains: ${seg.count.toLocaleString('en')} contacts (${seg.geometry.toLocaleString('en')} with geometry), colour = normal force / mean (${fmt(seg.mean)} N), 0 to ${CHAIN_MAX_RATIO}` : '';
}

// ---------------------------------------------------------------- charts

const charts = {
  ke: new Chart($('chart-ke'), { title: 'Kinetic energy (double-click: log scale)', yLabel: 'energy (J)', unit: 'J', series: [{ name: 'kinetic_energy', label: 'kinetic energy' }] }),
  contacts: new Chart($('chart-contacts'), { title: 'Contacts', yLabel: 'count', series: [
    { name: 'contacts', label: 'all contacts' }, { name: 'geometry_contacts', label: 'with geometry' }] }),
  residuals: new Chart($('chart-residuals'), { title: 'Residuals (log scale)', yLabel: 'residual', log: true, series: [
    { name: 'residual_normal', label: 'normal' }, { name: 'residual_friction', label: 'friction' }, { name: 'residual_rolling', label: 'rolling' }] }),
  iterations: new Chart($('chart-iterations'), { title: 'Solver iterations per step', yLabel: 'iterations', series: [{ name: 'iterations', label: 'iterations' }] }),
};
for (const c of Object.values(charts)) c.canvas.addEventListener('dblclick', () => { c.log = !c.log; c.draw(); });

// The force on each named geometry (docs/cli.md "Named geometry"), one line
// per name: the series route fills it and each load replaces the lines;
// between two loads of a running job, progress messages add their
// `geometry` forces after the series' last time. Kept apart from `charts`,
// whose lines all come from the series alone.
const forceChart = new Chart($('chart-forces'), { title: 'Force on named geometry |F|', yLabel: 'force (N)', unit: 'N', series: [] });
forceChart.canvas.addEventListener('dblclick', () => { forceChart.log = !forceChart.log; forceChart.draw(); });

function defineForces(names) {
  if (names.join('\n') !== forceChart.series.map((s) => s.name).join('\n'))
    forceChart.define(names.map((n) => ({ name: n, label: n })));
  // one line has no legend: its name goes into the title
  forceChart.title = `Force on named geometry |F|${names.length === 1 ? `: ${names[0]}` : ''}`;
  $('fig-forces').hidden = !names.length;
}

function setForces(data) {
  const s = data.series || {};
  defineForces(namedGeometry(data.columns || Object.keys(s)));
  for (const q of forceChart.series) forceChart.set(q.name, s.time || [], seriesMagnitude(s, q.name));
  forceChart.draw();
}

function addForces(m) {
  const t = m.progress?.time, geo = m.geometry;
  if (!geo || typeof t !== 'number') return;
  const names = Object.keys(geo);
  if (!forceChart.series.length) defineForces(names);
  for (const q of forceChart.series) {
    const f = geo[q.name]?.force;
    if (!Array.isArray(f) || (q.x.length && t <= q.x[q.x.length - 1])) continue;
    q.x = [...q.x, t]; q.y = [...q.y, magnitude(f)];
  }
  forceChart.draw();
}

// The charts come from GET /jobs/{id}/series only, each load replacing the
// whole line: the stream's progress messages are not mixed in (they are
// sampled otherwise and carry two of the quantities).
function setSeries(data) {
  const s = data.series || {};
  const t = s.time || [];
  sel.seriesN = t.length;
  for (const c of Object.values(charts)) {
    for (const q of c.series) c.set(q.name, t, s[q.name] || []);
    c.draw();
  }
  setForces(data);
  updateDownloads();
}

// ---------------------------------------------------------------- selected job

const sel = {
  id: null, job: null, frames: [], cur: -1, live: false, ws: null, wsTry: 0, wsTimer: null,
  cache: new Map(), cacheBytes: 0, loading: false, pending: null, seriesBusy: false, seriesAt: 0, framesAt: 0,
  playing: false, playT: 0, lastTick: 0, token: 0, doc: null, seriesN: 0,
  shown: null, contacts: new Map(), // the frame shown; contact records by frame index (force chains)
};
const updateDownloads = initDownloads(sel); // downloads.js

// ---- the job's URL: #/jobs/ID opens it; selecting a job sets it, so that
// back and forward move between jobs and a job view can be linked
const jobFromHash = () => {
  const m = /^#\/jobs\/([^/?#]+)$/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
};
function route() {
  const id = jobFromHash(), sweep = sweepFromHash();
  if (!sweep) sweeps.hide();
  if (id) selectJob(id);
  else if (sweep) { clearSelection(); $('detail-empty').hidden = true; sweeps.show(sweep); }
  else clearSelection();
}
window.addEventListener('hashchange', route);
function openJob(id) {
  if (jobFromHash() === id) selectJob(id);
  else location.hash = jobHref(id);
}
// the job is gone (deleted): its URL is replaced, not kept in the history
function closeJob() {
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  clearSelection();
}

const EMPTY_TEXT = $('detail-empty').textContent;
function clearSelection(message = EMPTY_TEXT) {
  closeStream();
  banner('stream', null);
  stopPlay();
  Object.assign(sel, { id: null, job: null, doc: null, frames: [], cur: -1, live: false, loading: false, pending: null, seriesN: 0 });
  sel.token++;
  sel.cache.clear(); sel.cacheBytes = 0;
  sel.shown = null; sel.contacts.clear();
  $('detail-body').hidden = true;
  $('detail-empty').hidden = false;
  $('detail-empty').textContent = message;
  list.select(null);
  updateDownloads();
}

async function selectJob(id) {
  if (sel.id === id) return;
  clearSelection();
  sel.id = id;
  const token = sel.token;
  list.select(id);
  $('detail-empty').textContent = `Loading job ${id}…`;
  $('frame-label').textContent = '';
  $('viewer').dataset.frameIndex = '';
  Object.values(charts).forEach((c) => c.clear());
  defineForces([]);
  forceChart.draw();
  let job;
  try { job = await api.get(id); } catch (e) {
    if (token !== sel.token) return;
    const unknown = e instanceof ApiError && e.status === 404;
    clearSelection(unknown ? `There is no job “${id}” on this server (deleted, or a wrong link).` : `Cannot load job ${id}: ${e.message}`);
    $('detail-empty').dataset.state = unknown ? 'unknown' : 'error';
    return;
  }
  if (token !== sel.token) return;
  $('detail-empty').hidden = true;
  $('detail-empty').dataset.state = '';
  $('detail-body').hidden = false;
  const v = await viewerReady;
  $('lock-range').checked = false;
  v.lockRange(false);
  sel.doc = job.job; // the document comes from GET /jobs/{id} only, never from the list
  v.setJob(sel.doc, job.shapes); // the shape templates a frame's `shapes` index
  chainsOffer();
  updateDetail(job);
  await loadFrames();
  loadSeries(true);
  if (token !== sel.token) return;
  if (FINAL.has(job.status)) {
    if (sel.frames.length) showFrame(sel.frames.length - 1);
  } else {
    sel.live = true;
    openStream();
  }
  updateTimeline();
}

async function refreshSelected() {
  if (!sel.id) return;
  try { updateDetailIf(await api.get(sel.id)); } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      if (!deletedHere.has(sel.id)) banner('action', 'The selected job was deleted.', 'info', 4000);
      closeJob();
    }
  }
}
function updateDetailIf(j) { if (j && j.id === sel.id) updateDetail(j); }

// j: GET /jobs/{id}, a list item (a summary) or a stream message merged in;
// fields it lacks keep their last value
function updateDetail(j) {
  const was = sel.job?.status;
  sel.job = { ...sel.job, ...j };
  j = sel.job;
  $('d-name').textContent = j.name;
  $('d-name').title = j.id;
  const b = $('d-status');
  b.textContent = j.status; b.className = 'badge ' + j.status;
  $('d-cancel').hidden = FINAL.has(j.status);
  $('d-delete').hidden = !FINAL.has(j.status);
  $('d-error').hidden = !j.error;
  $('d-error').textContent = j.error ? `Failed: ${j.error}` : '';
  const f = Math.max(0, Math.min(1, j.progress?.fraction || 0));
  $('d-bar').style.width = `${(f * 100).toFixed(1)}%`;
  $('d-bar').className = 'fill ' + j.status;
  const p = j.progress || {};
  $('d-progress').textContent = `${(f * 100).toFixed(1)}% · step ${p.step ?? 0}/${p.steps_total ?? 0} · t = ${fmt(p.time || 0)} of ${fmt(p.duration || 0)} s · ` +
    `${(j.stats?.particles ?? 0).toLocaleString('en')} particles · ${(j.stats?.contacts ?? 0).toLocaleString('en')} contacts · ${timing(j).text}`;
  $('detail-body').dataset.status = j.status;
  if (was && !FINAL.has(was) && FINAL.has(j.status)) onFinished();
  // the daemon reads the whole series for each request: long jobs are asked less often
  else if (j.status === 'running' && Date.now() - sel.seriesAt > 2000 + 0.02 * (p.step || 0)) loadSeries(false);
}

async function onFinished() {
  closeStream();
  $('d-stream').textContent = '';
  await loadFrames();
  await loadSeries(true);
  if (sel.live && sel.frames.length) showFrame(sel.frames.length - 1);
  sel.live = false;
  updateTimeline();
}

async function loadSeries(force) {
  const id = sel.id;
  if (!id || (sel.seriesBusy && !force)) return;
  sel.seriesBusy = true;
  sel.seriesAt = Date.now();
  try {
    const steps = sel.job?.progress?.step || 0;
    const data = await api.series(id, Math.max(1, Math.ceil(steps / 2000)));
    if (id === sel.id) setSeries(data);
  } catch (e) {
    if (!(e instanceof NetworkError)) console.warn('series', e);
  } finally {
    sel.seriesBusy = false;
  }
}

async function loadFrames() {
  const id = sel.id;
  try {
    const d = await api.frames(id);
    if (id !== sel.id) return;
    // frames seen on the stream but not yet in the index stay
    const byIndex = new Map(sel.frames.map((f) => [f.index, f]));
    for (const f of d.frames) byIndex.set(f.index, f);
    sel.frames = [...byIndex.values()].sort((a, b) => a.index - b.index);
    sel.framesAt = Date.now();
  } catch (e) {
    if (!(e instanceof NetworkError)) console.warn('frames', e);
  }
  updateTimeline();
}

// ---------------------------------------------------------------- stream

function streamState(text, bad = false) {
  const s = $('d-stream');
  s.textContent = text;
  s.style.color = bad ? 'var(--bad)' : '';
}

function closeStream() {
  clearTimeout(sel.wsTimer);
  if (sel.ws) { sel.ws.onclose = null; sel.ws.close(); sel.ws = null; }
}

function openStream() {
  closeStream();
  const j = sel.job;
  if (!j || FINAL.has(j.status)) return;
  let url = j.links?.stream;
  if (!url) { streamState('no stream link', true); return; }
  // the daemon names the host it was asked by; keep the page's host name
  try {
    const u = new URL(url);
    u.hostname = location.hostname;
    if (location.protocol === 'https:') u.protocol = 'wss:';
    url = u.toString();
  } catch { /* as given */ }
  const id = j.id;
  streamState(sel.wsTry ? `reconnecting stream (try ${sel.wsTry + 1})…` : 'connecting stream…');
  const ws = new WebSocket(withToken(url));
  ws.binaryType = 'arraybuffer';
  sel.ws = ws;
  ws.onopen = () => {
    if (sel.wsTry) banner('stream', 'Live stream reconnected.', 'info', 3000);
    sel.wsTry = 0;
    streamState('● live', false);
    $('d-stream').style.color = 'var(--ok)';
  };
  ws.onmessage = (ev) => {
    if (sel.id !== id) return;
    if (typeof ev.data === 'string') {
      let m;
      try { m = JSON.parse(ev.data); } catch { return; }
      if (m.type === 'hello' && m.job) updateDetail(m.job);
      else if (m.type === 'progress') {
        const j = { ...sel.job, progress: m.progress || sel.job.progress, stats: { ...sel.job.stats, ...(m.stats || {}) } };
        updateDetail(j);
        list.update(sel.job);
        addForces(m);
      } else if (m.type === 'status') {
        if (m.status !== sel.job.status) {
          const j = { ...sel.job, status: m.status, error: m.error ?? sel.job.error };
          if (FINAL.has(m.status)) refreshSelected().then(() => { if (!FINAL.has(sel.job.status)) updateDetail(j); });
          else updateDetail(j);
        }
      }
    } else {
      let f;
      try { f = parseNdf(ev.data); } catch (e) { console.warn('bad frame', e); return; }
      remember(f);
      if (!sel.frames.some((x) => x.index === f.index)) {
        sel.frames.push({ index: f.index, step: f.step, time: f.time, particles: f.n });
        sel.frames.sort((a, b) => a.index - b.index);
      }
      if (sel.live) { display(f); }
      updateTimeline();
    }
  };
  ws.onclose = (ev) => {
    if (sel.ws !== ws) return;
    sel.ws = null;
    if (sel.id !== id || FINAL.has(sel.job?.status)) return;
    const wait = Math.min(10000, 1000 * 2 ** Math.min(sel.wsTry, 4));
    sel.wsTry++;
    streamState(`stream lost${ev.code ? ` (code ${ev.code})` : ''}: reconnecting in ${Math.round(wait / 1000)} s`, true);
    banner('stream', `The live stream of “${sel.job?.name}” dropped; reconnecting in ${Math.round(wait / 1000)} s.`, 'error', wait + 1500);
    sel.wsTimer = setTimeout(async () => { await refreshSelected(); if (sel.id === id) openStream(); }, wait);
  };
}

// ---------------------------------------------------------------- frames and replay

function remember(f) {
  const bytes = f.positions.byteLength * 3;
  if (sel.cache.has(f.index)) return;
  sel.cache.set(f.index, f);
  sel.cacheBytes += bytes;
  while (sel.cacheBytes > 400e6 && sel.cache.size > 1) {
    const [k, old] = sel.cache.entries().next().value;
    sel.cache.delete(k);
    sel.cacheBytes -= old.positions.byteLength * 3;
  }
}

function display(f) {
  sel.cur = sel.frames.findIndex((x) => x.index === f.index);
  viewer.setFrame(f);
  sel.shown = f;
  updateChains();
  for (const c of Object.values(charts)) c.setMarker(f.time);
  forceChart.setMarker(f.time);
  $('frame-label').textContent = `frame ${f.index} · t = ${f.time.toFixed(3)} s · step ${f.step} · ${f.n.toLocaleString('en')} particles`;
  updateTimeline();
}

// Shows stored frame number `pos` of the index: from the cache, or fetched as
// NDF1. One fetch at a time; while it runs, only the newest wish is kept.
async function showFrame(pos) {
  const meta = sel.frames[pos];
  if (!meta) return;
  sel.cur = pos;
  updateTimeline();
  const cached = sel.cache.get(meta.index);
  if (cached) { sel.pending = null; display(cached); return; }
  if (sel.loading) { sel.pending = pos; return; }
  const id = sel.id;
  sel.loading = true;
  try {
    const f = parseNdf(await api.frameBinary(id, meta.index));
    if (sel.id !== id) return;
    remember(f);
    if (sel.pending === null && sel.frames[sel.cur]?.index === f.index) display(f);
  } catch (e) {
    if (!(e instanceof NetworkError)) banner('frame', `Frame ${meta.index} could not be loaded: ${e.message}`, 'error', 5000);
  } finally {
    if (sel.id === id) {
      sel.loading = false;
      if (sel.pending !== null) { const next = sel.pending; sel.pending = null; showFrame(next); }
    }
  }
}

function updateTimeline() {
  const s = $('scrub');
  s.max = String(Math.max(0, sel.frames.length - 1));
  if (sel.cur >= 0) s.value = String(sel.cur);
  s.disabled = sel.frames.length < 2;
  $('play').disabled = sel.frames.length < 2;
  $('play').textContent = sel.playing ? '❚❚' : '▶';
  const running = sel.job && !FINAL.has(sel.job.status);
  $('live').hidden = !running;
  $('live').disabled = sel.live;
  $('detail-body').dataset.frames = String(sel.frames.length);
  updateDownloads();
}

$('scrub').addEventListener('input', (e) => {
  sel.live = false;
  const pos = Number(e.target.value);
  if (sel.playing && sel.frames[pos]) sel.playT = sel.frames[pos].time;
  showFrame(pos);
});
$('live').addEventListener('click', () => {
  stopPlay();
  sel.live = true;
  const last = sel.frames[sel.frames.length - 1];
  if (last) showFrame(sel.frames.length - 1);
  updateTimeline();
});
$('play').addEventListener('click', () => (sel.playing ? stopPlay() : startPlay()));

function startPlay() {
  if (sel.frames.length < 2) return;
  sel.live = false;
  if (sel.cur < 0 || sel.cur >= sel.frames.length - 1) sel.cur = 0;
  sel.playT = sel.frames[sel.cur].time;
  sel.playing = true;
  sel.lastTick = performance.now();
  updateTimeline();
  requestAnimationFrame(tick);
}
function stopPlay() { sel.playing = false; updateTimeline(); }
function tick(now) {
  if (!sel.playing) return;
  const dt = Math.min(0.25, (now - sel.lastTick) / 1000);
  sel.lastTick = now;
  sel.playT += dt * Number($('speed').value);
  let pos = sel.cur;
  while (pos + 1 < sel.frames.length && sel.frames[pos + 1].time <= sel.playT) pos++;
  if (pos !== sel.cur && !sel.loading) showFrame(pos);
  if (pos >= sel.frames.length - 1 && sel.playT >= sel.frames[sel.frames.length - 1].time) { stopPlay(); return; }
  requestAnimationFrame(tick);
}

// keyboard: space plays, arrows step (when the focus is not in a field)
document.addEventListener('keydown', (e) => {
  if (!sel.id || e.target.closest('input, textarea, select, button, a, [role=tab]')) return;
  if (e.key === ' ') { e.preventDefault(); sel.playing ? stopPlay() : startPlay(); }
  if (e.key === 'ArrowRight' && sel.cur + 1 < sel.frames.length) { sel.live = false; showFrame(sel.cur + 1); }
  if (e.key === 'ArrowLeft' && sel.cur > 0) { sel.live = false; showFrame(sel.cur - 1); }
});

$('d-cancel').addEventListener('click', () => sel.id && cancelJob(sel.id, sel.job?.name));
$('d-delete').addEventListener('click', () => sel.id && deleteJob(sel.id, sel.job?.name));

// ---------------------------------------------------------------- sweeps (sweeps.js)

const sweeps = new SweepView({
  listBody: $('sweeps-body'), listNote: $('sweeps-note'), view: $('sweep-view'), title: $('sw-title'),
  status: $('sw-status'), note: $('sw-note'), x: $('sw-x'), y: $('sw-y'), plot: $('sw-plot'),
  plotNote: $('sw-plot-note'), table: $('sw-table'), cancel: $('sw-cancel'), remove: $('sw-delete'),
}, { deleted: () => { closeJob(); sweeps.refreshList(); } });
$('tab-sweeps').addEventListener('click', () => sweeps.refreshList());
setInterval(() => { if (!$('panel-sweeps').hidden) sweeps.refreshList(); }, 3000);

// ---------------------------------------------------------------- submission

const examplesReady = initSubmit({
  onSubmitted: async (job) => {
    await pollJobs();
    showTab('tab-jobs');
    openJob(job.id);
  },
});

// ---------------------------------------------------------------- start

async function heartbeat() {
  try { await api.health(); } catch { /* reachability shows it */ }
}
async function loop() {
  for (;;) {
    await pollJobs();
    // every second while something runs (the timing column moves), else every 3 s
    const busy = jobsCache.some((j) => !FINAL.has(j.status));
    await sleep(document.hidden ? 5000 : busy ? 1000 : 3000);
  }
}
setInterval(heartbeat, 5000);
heartbeat();
loop();
// while running, the stored-frame index is refreshed now and then for replay
setInterval(() => { if (sel.id && sel.job && !FINAL.has(sel.job.status) && Date.now() - sel.framesAt > 5000) loadFrames(); }, 2500);

// #/jobs/ID opens a job at load (?job=ID, the older form, becomes that URL);
// ?bench=N shows N synthetic particles to measure the frame rate
const params = new URLSearchParams(location.search);
if (params.get('job') && !jobFromHash()) {
  params.delete('job');
  const q = params.toString();
  history.replaceState(null, '', `${location.pathname}${q ? '?' + q : ''}${jobHref(new URLSearchParams(location.search).get('job'))}`);
}
route();
if (params.get('bench')) viewerReady.then((v) => import('./bench.js').then((b) => b.run(v, Number(params.get('bench')))));
const meshesReady = initMeshes();
window.ndem = { sel, charts, forceChart, viewerReady, examplesReady, meshesReady, showFrame }; // for the console and the end-to-end test
