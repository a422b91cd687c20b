// api.js - the public REST API of ndemd (docs/api.md), and whether the daemon
// answers. Every request goes through request(); a network failure marks the
// daemon unreachable until a later request succeeds. With authentication on
// (docs/api.md, "Authentication") a 401 asks for a bearer token once, keeps
// it in sessionStorage (this tab only, gone when it closes), sends it on
// every request, and withToken() adds it to stream URLs as ?token=. The page's
// token control changes or forgets it with changeToken().

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

const TOKEN_KEY = 'ndem.token';
export function token() {
  try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}
const tokenListeners = new Set();
// fn(token) after every change of the token ('' when forgotten).
export function onTokenChange(fn) { tokenListeners.add(fn); }
export function setToken(t) {
  try { if (t) sessionStorage.setItem(TOKEN_KEY, t); else sessionStorage.removeItem(TOKEN_KEY); } catch { /* storage off */ }
  for (const fn of tokenListeners) fn(t || '');
}
// The stream URL with the token (browsers cannot set headers on a WebSocket).
export function withToken(url) {
  const t = token();
  if (!t) return url;
  try { const u = new URL(url, location.href); u.searchParams.set('token', t); return u.toString(); } catch { return url; }
}
// How the page asks for a token (the UI may replace it); resolves to the
// token or null when the user declines. One question for concurrent 401s;
// after a decline the page asks again only when it is reloaded.
let askToken = async (why) => {
  const t = window.prompt(`${why}\n\nThis ndemd needs a bearer token (ndemd token create NAME). Token:`);
  return t ? t.trim() : null;
};
export function onTokenNeeded(fn) { askToken = fn; }
let asking = null, declined = false;
// The user's own choice (the token control): a new token, or '' to forget
// it; a 401 asks again afterwards even after a declined question.
export function changeToken(t) {
  declined = false;
  setToken(t ? t.trim() : '');
}
// sent: the token the refused request carried ('' none). Another request may
// have got a new one meanwhile: that one is tried before asking.
async function newToken(problem, sent) {
  if (token() && token() !== sent) return token();
  if (asking) return asking;
  setToken('');
  if (declined) return null;
  if (!asking) {
    asking = askToken(problem?.detail || 'A token is needed.').then((t) => {
      if (t) setToken(t); else declined = true;
      return t;
    }).finally(() => { asking = null; });
  }
  return asking;
}

export async function request(method, path, opts = {}) {
  const { body, accept = 'application/json', raw = false, timeout = 15000, type = 'application/json', retried = false } = opts;
  const headers = { Accept: accept };
  const t = token();
  if (t) headers.Authorization = `Bearer ${t}`;
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
    // a missing, wrong or revoked token: ask once, then try again with the new one
    if (res.status === 401 && !retried && await newToken(problem, t)) return request(method, path, { ...opts, retried: true });
    if (res.status === 401 && declined) problem = { ...problem, detail: `${problem?.detail || 'a token is needed'} (enter one with the Token button at the top)` };
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
