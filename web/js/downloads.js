// Downloads of the selected job: its document, series, the
// frame shown, every frame as a tar built in the tab, and the daemon's archive.
import { api } from './api.js';
import { pretty } from './jsondoc.js';
import { makeTar } from './tar.js';

const $ = (id) => document.getElementById(id);

// Wires the download buttons to the selection `sel` (main.js owns it) and
// returns the function that shows only the downloads that exist.
export function initDownloads(sel) {
  function save(blob, name) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }
  const base = () => `${(sel.job?.name || 'job').replace(/[^\w.-]+/g, '_')}-${sel.id}`;
  const pad6 = (n) => String(n).padStart(6, '0');
  async function download(what, fn) {
    const st = $('dl-status');
    st.textContent = `preparing ${what}…`;
    try { await fn(); st.textContent = ''; } catch (e) { st.textContent = `${what}: ${e.message}`; }
  }
  $('dl-series-csv').addEventListener('click', () => download('series.csv', async () =>
    save(new Blob([await api.seriesCsv(sel.id)], { type: 'text/csv' }), `${base()}-series.csv`)));
  $('dl-series-json').addEventListener('click', () => download('series.json', async () =>
    save(new Blob([JSON.stringify(await api.series(sel.id, 1))], { type: 'application/json' }), `${base()}-series.json`)));
  $('dl-frame-ndf').addEventListener('click', () => download('frame', async () => {
    const m = sel.frames[sel.cur]; if (!m) throw new Error('no frame shown');
    save(new Blob([await api.frameBinary(sel.id, m.index)], { type: 'application/octet-stream' }), `${base()}-frame-${pad6(m.index)}.ndf`);
  }));
  $('dl-frame-json').addEventListener('click', () => download('frame', async () => {
    const m = sel.frames[sel.cur]; if (!m) throw new Error('no frame shown');
    save(new Blob([await api.frameJsonText(sel.id, m.index)], { type: 'application/json' }), `${base()}-frame-${pad6(m.index)}.json`);
  }));
  $('dl-job').addEventListener('click', () => download('job.json', async () =>
    save(new Blob([pretty(sel.doc) + '\n'], { type: 'application/json' }), `${base()}-job.json`)));
  $('dl-frames-tar').addEventListener('click', () => download('frames', async () => {
    const id = sel.id, list = [...sel.frames];
    const est = list.reduce((s, f) => s + 48 + 48 * f.particles, 0);
    if (est > 1.5e9 && !confirm(`About ${(est / 1e9).toFixed(1)} GB of frames: build the archive in this tab anyway?`)) return;
    const entries = [
      { name: 'job.json', data: new TextEncoder().encode(pretty(sel.doc) + '\n') },
      { name: 'series.csv', data: new TextEncoder().encode(await api.seriesCsv(id)) },
    ];
    for (let k = 0; k < list.length; k++) {
      $('dl-status').textContent = `fetching frame ${k + 1} of ${list.length}…`;
      entries.push({ name: `frames/${pad6(list[k].index)}.ndf`, data: new Uint8Array(await api.frameBinary(id, list[k].index)) });
    }
    save(makeTar(entries), `${base()}.tar`);
  }));

  // the daemon's job archive (docs/api.md): the browser streams it to disk itself
  $('dl-archive').addEventListener('click', () => {
    const a = document.createElement('a');
    a.href = `/api/v1/jobs/${encodeURIComponent(sel.id)}/archive`;
    a.download = `${base()}.tar.gz`;
    document.body.appendChild(a);
    a.click();
    a.remove();
  });

  // only what exists is offered: a job that failed early has no frames and
  // maybe no series, but always its document
  function updateDownloads() {
    const series = sel.seriesN > 0, frames = sel.frames.length > 0, shown = !!sel.frames[sel.cur];
    const has = { 'dl-job': !!sel.doc, 'dl-series-csv': series, 'dl-series-json': series, 'dl-frame-ndf': shown, 'dl-frame-json': shown, 'dl-frames-tar': frames,
      'dl-archive': frames };
    for (const [id, on] of Object.entries(has)) $(id).hidden = !on;
  }
  return updateDownloads;
}
