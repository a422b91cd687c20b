// api.js - the public REST API of ndemd (docs/api.md), and whether the daemon
// answers. Every request goes through request(); a network failure marks the
// daemon unreachable until a later request succeeds.

export const API = '/api/v1';

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
  }
}

export class NetworkError extends Error {}

const listeners = new Set();
let reachable = null; // null: not known yet
export function onReachability(fn) { listeners.add(fn); if (reachable !== null) fn(reachable); }
function setReachable(ok, why) {
  if (ok === reachable) return;
  reachable = ok;
  for (const fn of listeners) fn(ok, why);
}
export function isReachable() { return reachable; }

export async function request(method, path, { body, accept = 'application/json', raw = false, timeout = 15000, type = 'application/json' } = {}) {
  const headers = { Accept: accept };
  // ndemd refuses state-changing requests without it (415), with or without a
  // body; mesh uploads are model/stl
  if (body !== undefined || method !== 'GET') headers['Content-Type'] = type;
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeout);
  let res;
  try {
    res = await fetch(path, { method, headers, body, signal: ctl.signal, cache: 'no-store' });
  } catch (e) {
    setReachable(false, e.name === 'AbortError' ? 'no answer in time' : 'connection failed');
    throw new NetworkError(`cannot reach ndemd (${e.message})`);
  } finally {
    clearTimeout(timer);
  }
  setReachable(true);
  if (!res.ok) {
    let problem = null;
    try { problem = await res.json(); } catch { /* not JSON */ }
    throw new ApiError(res.status, problem);
  }
  if (raw) return res;
  if (res.status === 204) return null;
  return res.json();
}

export const api = {
  health: () => request('GET', '/health', { timeout: 5000 }),
  list: (status, cursor, limit = 100) => {
    const q = new URLSearchParams({ limit: String(limit) });
    if (status) q.set('status', status);
    if (cursor) q.set('cursor', cursor);
    return request('GET', `${API}/jobs?${q}`);
  },
  get: (id) => request('GET', `${API}/jobs/${id}`),
  submit: (text) => request('POST', `${API}/jobs`, { body: text }),
  cancel: (id) => request('POST', `${API}/jobs/${id}/cancel`),
  remove: (id) => request('DELETE', `${API}/jobs/${id}`),
  frames: (id) => request('GET', `${API}/jobs/${id}/frames`),
  frameBinary: async (id, n) => {
    const res = await request('GET', `${API}/jobs/${id}/frames/${n}`, { accept: 'application/octet-stream', raw: true, timeout: 60000 });
    return res.arrayBuffer();
  },
  // the NDC1 contact network stored with frame n (output.contacts)
  contacts: async (id, n) => (await request('GET', `${API}/jobs/${id}/frames/${n}/contacts`, { accept: 'application/octet-stream', raw: true, timeout: 60000 })).arrayBuffer(),
  frameJsonText: async (id, n) => (await request('GET', `${API}/jobs/${id}/frames/${n}`, { raw: true, timeout: 60000 })).text(),
  series: (id, every = 1) => request('GET', `${API}/jobs/${id}/series?every=${every}`, { timeout: 30000 }),
  meshes: () => request('GET', `${API}/meshes?limit=1000`),
  uploadMesh: (bytes, name) => request('POST', `${API}/meshes?${new URLSearchParams({ name })}`, { body: bytes, type: 'model/stl', timeout: 120000 }),
  removeMesh: (id) => request('DELETE', `${API}/meshes/${encodeURIComponent(id)}`),
  meshStl: async (id) => (await request('GET', `${API}/meshes/${encodeURIComponent(id)}?format=stl`, { accept: 'model/stl', raw: true, timeout: 60000 })).arrayBuffer(),
  seriesCsv: async (id) => (await request('GET', `${API}/jobs/${id}/series`, { accept: 'text/csv', raw: true, timeout: 60000 })).text(),
};
