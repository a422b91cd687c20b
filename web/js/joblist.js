// joblist.js - the job list: one table row per job (its name a link to the
// job's URL #/jobs/ID), sorted by a column header, searched by name, with the
// creation time and the wall time of the run. Reads only the summary fields of
// GET /jobs items (never `job`: the list may leave the document out).
import { fmt } from './chart.js';

export const FINAL = new Set(['succeeded', 'failed', 'cancelled']);
export const jobHref = (id) => `#/jobs/${encodeURIComponent(id)}`;

export function secs(s) {
  if (!Number.isFinite(s) || s < 0) return '—';
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

const when = (x) => (x ? Date.parse(x) / 1000 : null);

// Wall time of the run: waiting time while queued, elapsed (and an estimate
// of what is left) while running, the run's duration once finished.
export function timing(j, now = Date.now() / 1000) {
  const st = when(j.started_at), fin = when(j.finished_at), cr = when(j.created_at);
  if (j.status === 'queued') return { text: `waiting ${secs(now - cr)}`, elapsed: null, remaining: null };
  if (!st) return { text: '—', elapsed: null, remaining: null };
  const elapsed = (fin || now) - st;
  const f = j.progress?.fraction || 0;
  let remaining = null;
  if (j.status === 'running' && f > 0.005) remaining = (elapsed * (1 - f)) / f;
  const text = j.status === 'running' ? `${secs(elapsed)} · ${remaining === null ? 'estimating…' : '~' + secs(remaining) + ' left'}` : secs(elapsed);
  return { text, elapsed, remaining };
}

// Creation time: the time of day for today's jobs, else the date too.
export function createdText(iso, now = new Date()) {
  const d = new Date(iso || NaN);
  if (Number.isNaN(d.getTime())) return '—';
  const p2 = (n) => String(n).padStart(2, '0');
  const hm = `${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
  if (d.toDateString() === now.toDateString()) return hm;
  return `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${hm}`;
}

const STATUS_ORDER = { running: 0, queued: 1, failed: 2, cancelled: 3, succeeded: 4 };
// sort keys: a value to compare, ascending
const SORTS = {
  created: (j) => when(j.created_at) ?? 0,
  name: (j) => (j.name || '').toLowerCase(),
  status: (j) => STATUS_ORDER[j.status] ?? 9,
  particles: (j) => j.stats?.particles ?? 0,
  wall: (j) => timing(j).elapsed ?? -1,
};

// The jobs to show: those whose name (or id) contains `search` (any case),
// ordered by `key` (ties: newest first).
export function arrange(jobs, { key = 'created', dir = -1, search = '' } = {}) {
  const q = search.trim().toLowerCase();
  const kf = SORTS[key] || SORTS.created;
  const newest = (a, b) => (when(b.created_at) ?? 0) - (when(a.created_at) ?? 0);
  return jobs
    .filter((j) => !q || (j.name || '').toLowerCase().includes(q) || j.id.startsWith(q))
    .sort((a, b) => {
      const x = kf(a), y = kf(b);
      return (x < y ? -dir : x > y ? dir : 0) || newest(a, b);
    });
}

export class JobList {
  // body: the <tbody>; thead: the header row whose buttons carry data-sort;
  // on: { open(id), cancel(id, name), remove(id, name) }
  constructor({ body, head, on }) {
    this.body = body; this.on = on;
    this.rows = new Map();
    this.sort = { key: 'created', dir: -1 };
    this.search = '';
    this.selected = null;
    this.jobs = [];
    this.head = head;
    for (const b of head.querySelectorAll('button[data-sort]')) {
      b.addEventListener('click', () => {
        const key = b.dataset.sort;
        // a new column starts newest / A-Z / most first, a second click reverses
        this.sort = this.sort.key === key ? { key, dir: -this.sort.dir } : { key, dir: key === 'name' || key === 'status' ? 1 : -1 };
        this.render();
      });
    }
  }

  row(j) {
    let tr = this.rows.get(j.id);
    if (!tr) {
      tr = document.createElement('tr');
      tr.className = 'job';
      tr.dataset.id = j.id;
      tr.innerHTML = `<td><a class="name"></a><div class="id mono"></div></td>
        <td class="progress"><span class="badge"></span><div class="bar"><div class="fill"></div></div><span class="pct"></span></td><td class="num particles"></td>
        <td class="created"></td><td class="times"></td>
        <td class="actions"><button class="small cancel">Cancel</button> <button class="small danger delete">Delete</button></td>`;
      tr.querySelector('a.name').href = jobHref(j.id);
      // a click anywhere on the row opens the job, as its link does
      tr.addEventListener('click', (e) => { if (!e.target.closest('button, a')) this.on.open(j.id); });
      tr.querySelector('.cancel').addEventListener('click', () => this.on.cancel(j.id, tr.dataset.name));
      tr.querySelector('.delete').addEventListener('click', () => this.on.remove(j.id, tr.dataset.name));
      this.rows.set(j.id, tr);
    }
    tr.dataset.status = j.status;
    tr.dataset.name = j.name;
    tr.classList.toggle('selected', j.id === this.selected);
    const a = tr.querySelector('a.name');
    a.textContent = j.name;
    a.title = j.name;
    if (j.id === this.selected) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    tr.querySelector('.id').textContent = j.id;
    const b = tr.querySelector('.badge');
    b.textContent = j.status; b.className = 'badge ' + j.status;
    const f = Math.max(0, Math.min(1, j.progress?.fraction || 0));
    const fill = tr.querySelector('.fill');
    fill.style.width = `${(f * 100).toFixed(1)}%`;
    fill.className = 'fill ' + j.status;
    const pct = `${(f * 100).toFixed(f < 0.1 && f > 0 ? 1 : 0)}%`;
    tr.querySelector('.pct').textContent = `${pct} · ${fmt(j.progress?.time || 0)}/${fmt(j.progress?.duration || 0)} s`;
    tr.querySelector('.pct').title = `${pct} done: simulated time ${fmt(j.progress?.time || 0)} s of ${fmt(j.progress?.duration || 0)} s`;
    tr.querySelector('.particles').textContent = (j.stats?.particles ?? 0).toLocaleString('en');
    const cr = tr.querySelector('.created');
    cr.textContent = createdText(j.created_at);
    cr.title = j.created_at || '';
    tr.querySelector('.times').textContent = timing(j).text;
    const cancel = tr.querySelector('.cancel'), del = tr.querySelector('.delete');
    cancel.hidden = FINAL.has(j.status);
    del.hidden = !FINAL.has(j.status);
    cancel.setAttribute('aria-label', `Cancel job ${j.name}`);
    del.setAttribute('aria-label', `Delete job ${j.name}`);
    return tr;
  }

  // jobs: the items of GET /jobs; redraws the rows in the chosen order
  render(jobs = this.jobs) {
    this.jobs = jobs;
    const shown = arrange(jobs, { ...this.sort, search: this.search });
    const seen = new Set();
    shown.forEach((j, k) => {
      const tr = this.row(j);
      seen.add(j.id);
      if (this.body.children[k] !== tr) this.body.insertBefore(tr, this.body.children[k] || null);
    });
    for (const [id, tr] of this.rows) if (!seen.has(id)) { tr.remove(); this.rows.delete(id); }
    for (const th of this.head.querySelectorAll('th')) {
      const key = th.querySelector('button[data-sort]')?.dataset.sort;
      if (!key) continue;
      if (key === this.sort.key) th.setAttribute('aria-sort', this.sort.dir > 0 ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    }
    return shown;
  }

  // one job's row changed (a progress message of the stream)
  update(j) { if (this.rows.has(j.id)) this.row(j); }

  select(id) {
    this.selected = id;
    for (const j of this.jobs) if (this.rows.has(j.id)) this.row(j);
  }
}
