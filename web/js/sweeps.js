// sweeps.js - the parameter sweeps of ndemd (docs/api.md, "Sweeps"): a list
// in the side panel, and a sweep view at #/sweeps/ID with a table of its
// jobs (their parameter values and statuses, each linked to the job's view)
// and a plot of a chosen result against a chosen parameter, one line per
// combination of the other parameters' values. Only the public REST API.
import { API, ApiError, NetworkError, request } from './api.js';
import { Chart, fmt } from './chart.js';

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const FINAL_SWEEP = new Set(['done', 'failed', 'cancelled']);
// result columns that are not numbers to plot
const NOT_PLOTTED = new Set(['index', 'job', 'status', 'error']);

export const sweepHref = (id) => `#/sweeps/${encodeURIComponent(id)}`;
export const sweepFromHash = () => {
  const m = /^#\/sweeps\/([^/?#]+)$/.exec(location.hash);
  return m ? decodeURIComponent(m[1]) : null;
};
const value = (v) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

// The rows of the plot: x the parameter, y the result, grouped by the other
// parameters' values (one series each, in order of first appearance).
export function plotSeries(rows, pointers, x, y) {
  const groups = new Map();
  for (const r of rows) {
    const xv = r[x], yv = r[y]; // numbers only: Number(null) would be a 0
    if (!Number.isFinite(xv) || !Number.isFinite(yv) || r.status !== 'succeeded') continue;
    const key = pointers.filter((p) => p !== x).map((p) => `${p} = ${value(r[p])}`).join(', ');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push([xv, yv]);
  }
  return [...groups.entries()].map(([label, pts], k) => {
    pts.sort((a, b) => a[0] - b[0]);
    return { name: `s${k}`, label: label || y, x: pts.map((p) => p[0]), y: pts.map((p) => p[1]) };
  });
}

export class SweepView {
  // el: the elements (list body, view section, ...); on.openJob(id) opens a job
  constructor(el, on) {
    this.el = el; this.on = on;
    this.id = null; this.sweep = null; this.results = null; this.timer = null; this.token = 0;
    el.x.addEventListener('change', () => this.plot());
    el.y.addEventListener('change', () => this.plot());
    el.cancel.addEventListener('click', () => this.act('cancel'));
    el.remove.addEventListener('click', () => this.act('delete'));
  }

  // ---- the list (side panel) ----
  async refreshList() {
    let doc;
    try { doc = await request('GET', `${API}/sweeps?limit=100`); } catch (e) {
      if (!(e instanceof NetworkError)) this.el.listNote.textContent = `Listing sweeps failed: ${e.message}`;
      return;
    }
    const rows = doc.sweeps.map((s) => {
      const c = s.counts || {};
      const done = (c.succeeded || 0) + (c.failed || 0) + (c.cancelled || 0);
      const params = (s.parameters || []).map((p) => `${p.pointer} (${p.values.length})`).join(', ');
      return `<tr class="job${s.id === this.id ? ' selected' : ''}" data-id="${esc(s.id)}">` +
        `<td><a class="name mono" href="${sweepHref(s.id)}">${esc(s.id)}</a><span class="id">${esc(s.mode)}</span></td>` +
        `<td><span class="badge st-${esc(s.status)}">${esc(s.status)}</span></td>` +
        `<td class="num">${done}/${s.total}</td><td class="params">${esc(params)}</td></tr>`;
    });
    this.el.listBody.innerHTML = rows.join('');
    this.el.listNote.textContent = doc.sweeps.length ? '' : 'No sweeps yet: POST /api/v1/sweeps (docs/api.md, “Sweeps”).';
  }

  // ---- the view ----
  hide() {
    this.id = null; this.sweep = null; this.results = null; this.token++;
    clearTimeout(this.timer);
    this.el.view.hidden = true;
  }

  async show(id) {
    if (this.id === id && !this.el.view.hidden) return;
    this.hide();
    this.id = id;
    const token = this.token;
    this.el.view.hidden = false;
    this.el.title.textContent = `Sweep ${id}`;
    this.el.note.textContent = 'Loading…';
    this.el.table.innerHTML = '';
    this.el.x.innerHTML = ''; this.el.y.innerHTML = '';
    await this.load(token);
  }

  async load(token) {
    const id = this.id;
    try {
      const [sweep, results] = await Promise.all([
        request('GET', `${API}/sweeps/${encodeURIComponent(id)}`),
        request('GET', `${API}/sweeps/${encodeURIComponent(id)}/results`),
      ]);
      if (token !== this.token) return;
      this.sweep = sweep; this.results = results;
      this.render();
    } catch (e) {
      if (token !== this.token) return;
      const unknown = e instanceof ApiError && e.status === 404;
      this.el.note.textContent = unknown ? `There is no sweep “${id}” on this server (deleted, or a wrong link).` : `Cannot load sweep ${id}: ${e.message}`;
      this.el.view.dataset.state = unknown ? 'unknown' : 'error';
      if (unknown) return;
    }
    // poll while it runs (and after a network failure)
    if (!this.sweep || !FINAL_SWEEP.has(this.sweep.status)) this.timer = setTimeout(() => this.load(token), 1500);
  }

  render() {
    const s = this.sweep, el = this.el;
    const pointers = (s.parameters || []).map((p) => p.pointer);
    el.view.dataset.status = s.status;
    el.view.dataset.state = '';
    el.status.textContent = s.status;
    el.status.className = `badge st-${s.status}`;
    const c = s.counts;
    el.note.textContent = `${s.mode} of ${pointers.join(', ')}: ${s.total} jobs · ${c.succeeded} succeeded, ${c.running} running, ${c.queued} queued` +
      (c.failed ? `, ${c.failed} failed` : '') + (c.cancelled ? `, ${c.cancelled} cancelled` : '');
    el.cancel.disabled = FINAL_SWEEP.has(s.status);
    el.remove.disabled = !FINAL_SWEEP.has(s.status);
    const rows = this.results.rows;
    const head = `<tr><th class="num">#</th>${pointers.map((p) => `<th class="mono">${esc(p)}</th>`).join('')}<th>Status</th><th class="num">Kinetic energy (J)</th><th>Job</th></tr>`;
    const body = s.jobs.map((j) => {
      const r = rows.find((q) => q.job === j.id) || {};
      return `<tr class="job" data-id="${esc(j.id)}" data-status="${esc(j.status)}"><td class="num">${j.index}</td>` +
        pointers.map((p) => `<td class="num">${esc(value(j.parameters[p]))}</td>`).join('') +
        `<td><span class="badge st-${esc(j.status)}">${esc(j.status)}</span></td>` +
        `<td class="num">${Number.isFinite(r.kinetic_energy) ? fmt(r.kinetic_energy) : ''}</td>` +
        `<td><a class="mono" href="#/jobs/${encodeURIComponent(j.id)}">${esc(j.id)}</a></td></tr>`;
    });
    el.table.innerHTML = `<thead>${head}</thead><tbody>${body.join('')}</tbody>`;
    // the choices: numeric parameters for x, numeric result columns for y
    const numeric = (col) => rows.some((r) => typeof r[col] === 'number');
    const xs = pointers.filter(numeric), ys = this.results.columns.filter((col) => !NOT_PLOTTED.has(col) && !pointers.includes(col) && numeric(col));
    const fill = (sel, opts, dflt) => {
      const keep = sel.value;
      if (sel.options.length !== opts.length) sel.innerHTML = opts.map((o) => `<option>${esc(o)}</option>`).join('');
      sel.value = opts.includes(keep) ? keep : dflt;
    };
    fill(el.x, xs, xs[0]);
    fill(el.y, ys, ys.includes('kinetic_energy') ? 'kinetic_energy' : ys[0]);
    this.plot();
  }

  plot() {
    if (!this.results) return;
    const el = this.el, x = el.x.value, y = el.y.value;
    const pointers = (this.sweep.parameters || []).map((p) => p.pointer);
    el.plotNote.textContent = x ? '' : 'No numeric parameter to plot against.';
    // a new canvas each time: a chart's series are fixed when it is made
    const canvas = document.createElement('canvas');
    canvas.className = 'chart';
    canvas.id = 'sweep-chart';
    el.plot.replaceChildren(canvas);
    if (!x || !y) return;
    const series = plotSeries(this.results.rows, pointers, x, y);
    const chart = new Chart(canvas, { title: `${y} against ${x}`, yLabel: y, xLabel: x, series: series.map((s) => ({ name: s.name, label: s.label })) });
    for (const s of series) chart.set(s.name, s.x, s.y);
    chart.draw();
  }

  async act(what) {
    const id = this.id;
    if (!id) return;
    const text = what === 'cancel' ? `Cancel every queued or running job of sweep ${id}?` : `Delete sweep ${id} and every job of it, with their files?`;
    if (!confirm(text)) return;
    try {
      if (what === 'cancel') await request('POST', `${API}/sweeps/${encodeURIComponent(id)}/cancel`);
      else await request('DELETE', `${API}/sweeps/${encodeURIComponent(id)}`);
    } catch (e) {
      this.el.note.textContent = `${what} failed: ${e.message}`;
      return;
    }
    if (what === 'delete') { this.on.deleted(id); return; }
    this.token++;
    clearTimeout(this.timer);
    await this.load(this.token);
  }
}
