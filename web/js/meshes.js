// meshes.js - the uploaded meshes panel (docs/api.md "Meshes"): upload an STL
// file, list what the server holds (name, triangles, whether closed, the id
// a job names with {"type": "mesh", "mesh": "<id>"}), delete one.
import { api } from './api.js';

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

function say(text, bad = false) {
  const el = $('mesh-status');
  el.textContent = text;
  el.classList.toggle('bad', bad);
}

export async function refreshMeshes() {
  let list;
  try { list = (await api.meshes()).meshes; } catch (e) { say(`Cannot list meshes: ${e.message}`, true); return; }
  const ul = $('mesh-list');
  ul.innerHTML = list.map((m) => `<li data-id="${esc(m.id)}" data-triangles="${m.triangles}">
      <span class="mesh-name">${esc(m.name || '(no name)')}</span>
      <span class="muted">${m.triangles} triangles${m.closed ? ', closed' : ''}</span>
      <code title="use as {&quot;type&quot;: &quot;mesh&quot;, &quot;mesh&quot;: &quot;${esc(m.id)}&quot;}">${esc(m.id)}</code>
      <button type="button" class="small" data-delete="${esc(m.id)}" aria-label="Delete mesh ${esc(m.name || m.id)}">Delete</button>
    </li>`).join('');
  $('mesh-empty').hidden = list.length > 0;
}

async function upload(file) {
  say(`Uploading ${file.name} …`);
  try {
    const m = await api.uploadMesh(await file.arrayBuffer(), file.name);
    const dropped = m.dropped.degenerate + m.dropped.duplicate;
    say(`${m.name}: ${m.triangles} triangles${dropped ? ` (${dropped} dropped: ${m.dropped.degenerate} degenerate, ${m.dropped.duplicate} duplicate)` : ''}; id ${m.id}`);
  } catch (e) {
    say(`${file.name}: ${e.message}`, true); // the STL parser's message for a 422
  }
  refreshMeshes();
}

export function initMeshes() {
  $('mesh-file').addEventListener('change', (e) => {
    const f = e.target.files?.[0];
    e.target.value = '';
    if (f) upload(f);
  });
  $('mesh-list').addEventListener('click', async (e) => {
    const id = e.target.dataset?.delete;
    if (!id) return;
    try { await api.removeMesh(id); say(`Mesh ${id} deleted`); } catch (e2) { say(e2.message, true); } // 409 names the job
    refreshMeshes();
  });
  return refreshMeshes();
}
