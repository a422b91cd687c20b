// submit.js - the "New job" panel: the JSON editor (line numbers, marked
// lines), the common fields kept in step with it (a field edit changes only
// that value's text), the examples, and the API's errors shown at their JSON
// Pointers. A document that is not JSON is reported once, with its line, in
// #editor-status, and not sent.
import { api, ApiError } from './api.js';
import { pointerMap, locate, lineOf, resolve, pretty, syntaxError, setValue } from './jsondoc.js';

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

const FIELDS = [
  { el: 'f-name', ptr: '/name', type: 'string' },
  { el: 'f-time-step', ptr: '/solver/time_step', type: 'number' },
  { el: 'f-duration', ptr: '/solver/duration', type: 'number' },
  { el: 'f-iterations', ptr: '/solver/iterations', type: 'number', ndemOnly: true },
  { el: 'f-frame-interval', ptr: '/output/frame_interval', type: 'number' },
  { el: 'f-warm-start', ptr: '/solver/warm_start', type: 'bool', ndemOnly: true },
];
// ndemOnly fields are NDEM solver settings: under "method": "dem" the job
// parser refuses them (api/job_methods.c), so the form disables them there.
const UNUSED_NOTE = 'smooth DEM: not used';
// defaults of docs/job.md, shown as placeholders when a field is omitted
const DEFAULTS = { '/name': 'job', '/solver/time_step': 0.001, '/solver/duration': 1, '/solver/iterations': 25, '/output/frame_interval': 0.05, '/solver/warm_start': true };
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

// a tiny job for when the examples were not built into web/examples/
const FALLBACK_EXAMPLE = {
  name: 'two-spheres', scene: { materials: [{ name: 'glass', density: 2500 }],
    geometry: [{ type: 'plane', point: [0, 0, 0], normal: [0, 0, 1] }],
    particles: [{ type: 'list', spheres: [[0, 0, 0.05, 0.01], [0.005, 0, 0.08, 0.01]] }] },
  solver: { time_step: 0.001, duration: 0.5 }, output: { frame_interval: 0.05 },
};

const editor = {
  ta: $('editor-text'), gutter: document.querySelector('#editor .gutter'), back: document.querySelector('#editor .backdrop'),
  marks: new Map(), focus: 0,
  get text() { return this.ta.value; },
  set text(t) { this.ta.value = t; this.render(); },
  setMarks(lines, focus = 0) { this.marks = lines; this.focus = focus; this.render(); },
  render() {
    const lines = this.ta.value.split('\n');
    let g = '', b = '';
    lines.forEach((l, k) => {
      const n = k + 1, m = this.marks.get(n);
      g += m ? `<span class="err" title="${esc(m)}">${n}</span>\n` : `${n}\n`;
      b += m ? `<mark class="${n === this.focus ? 'focus' : ''}">${esc(l)} </mark>\n` : `${esc(l)}\n`;
    });
    this.gutter.innerHTML = g + '\n';
    this.back.innerHTML = b + '\n';
    this.sync();
  },
  sync() { this.gutter.scrollTop = this.ta.scrollTop; this.back.scrollTop = this.ta.scrollTop; this.back.scrollLeft = this.ta.scrollLeft; },
  goto(start, end) {
    this.ta.focus();
    this.ta.setSelectionRange(start, end);
    const line = lineOf(this.ta.value, start);
    this.ta.scrollTop = Math.max(0, (line - 5) * 16);
    this.sync();
  },
  scrollToLine(line) { this.ta.scrollTop = Math.max(0, (line - 5) * 16); this.sync(); },
};

// The one place a JSON syntax error is reported: #editor-status and the
// line's mark. Returns whether the text is JSON.
function checkSyntax() {
  const e = syntaxError(editor.text);
  const st = $('editor-status');
  st.textContent = e ? `Not valid JSON at line ${e.line}, column ${e.column}: ${e.message}.` : '';
  st.classList.toggle('bad', !!e);
  if (e) editor.setMarks(new Map([[e.line, e.message]]), e.line);
  return !e;
}

function syncFormFromEditor() {
  if (!checkSyntax()) return;
  const doc = JSON.parse(editor.text);
  const dem = doc?.solver?.method === 'dem';
  for (const f of FIELDS) {
    const input = $(f.el);
    if (f.ndemOnly) setUnused(f, dem);
    if (document.activeElement === input) continue;
    const r = resolve(doc, f.ptr);
    const v = r && r[0] && typeof r[0] === 'object' ? r[0][r[1]] : undefined;
    if (f.type === 'bool') input.checked = v === undefined ? DEFAULTS[f.ptr] : !!v;
    else { input.value = v === undefined || v === null ? '' : String(v); input.placeholder = `default ${DEFAULTS[f.ptr]}`; }
  }
}

// An NDEM-only field under smooth DEM: disabled (it writes nothing), with a note.
function setUnused(f, unused) {
  const input = $(f.el);
  if (input.disabled === unused) return;
  if (unused && document.activeElement === input) input.blur();
  input.disabled = unused;
  const field = document.querySelector(`.field[data-pointer="${f.ptr}"]`);
  field.classList.toggle('unused', unused);
  field.querySelector('.field-note').textContent = unused ? UNUSED_NOTE : '';
}

// the JSON text of a field's value (undefined: leave the member out)
function fieldJson(f) {
  const input = $(f.el);
  if (f.type === 'bool') return input.checked ? 'true' : 'false';
  const v = input.value.trim();
  if (v === '') return undefined;
  if (f.type === 'number') {
    if (JSON_NUMBER.test(v)) return v; // as typed
    // a non-number goes to the API as a string, which says what is wrong
    return Number.isFinite(Number(v)) ? JSON.stringify(Number(v)) : JSON.stringify(v);
  }
  return JSON.stringify(input.value);
}

function syncEditorFromForm(f) {
  if ($(f.el).disabled) return; // an NDEM-only field under smooth DEM
  const fe = document.querySelector(`.field[data-pointer="${f.ptr}"] .field-error`);
  if (!checkSyntax()) { fe.textContent = 'Not applied: fix the JSON syntax in the editor first.'; return; }
  const next = setValue(editor.text, f.ptr, fieldJson(f));
  if (next === null) { fe.textContent = `Not applied: something on the path ${f.ptr} is not an object.`; return; }
  // keep the caret and scroll of the editor while only one value changes
  const { scrollTop } = editor.ta;
  editor.text = next;
  editor.ta.scrollTop = scrollTop;
  editor.sync();
  clearFieldError(f.ptr);
}

function clearFieldError(ptr) {
  const el = document.querySelector(`.field[data-pointer="${ptr}"]`);
  if (!el) return;
  el.classList.remove('invalid');
  el.querySelector('.field-error').textContent = '';
}
function clearErrors() {
  for (const f of FIELDS) clearFieldError(f.ptr);
  $('submit-errors').innerHTML = '';
  editor.setMarks(new Map());
}

// A 422 answer's errors[]: next to the form field with the same pointer,
// listed with pointer and line under the editor, the lines marked.
function showErrors(errors) {
  clearErrors();
  const text = editor.text, map = pointerMap(text), marks = new Map();
  const list = $('submit-errors');
  let first = 0;
  for (const e of errors) {
    const ptr = e.pointer ?? '';
    const loc = locate(text, ptr, map), line = lineOf(text, loc.keyStart);
    marks.set(line, (marks.has(line) ? marks.get(line) + '; ' : '') + `${ptr || '(document)'}: ${e.message}`);
    if (!first) first = line;
    const field = document.querySelector(`.field[data-pointer="${ptr}"]`);
    if (field) {
      field.classList.add('invalid');
      const fe = field.querySelector('.field-error');
      fe.textContent = fe.textContent ? `${fe.textContent}; ${e.message}` : e.message;
    }
    const li = document.createElement('li');
    li.dataset.pointer = ptr;
    li.innerHTML = `<code>${esc(ptr || '(document)')}</code> ${esc(e.message)} <span class="muted">(line ${line}${loc.exact ? '' : ', where it belongs'})</span>`;
    li.addEventListener('click', () => { editor.setMarks(marks, line); editor.goto(loc.keyStart, loc.end); });
    list.appendChild(li);
  }
  editor.setMarks(marks, first);
  if (first) editor.scrollToLine(first);
}

// A 400 answer: the daemon's parser refused what the browser's accepted
// (nesting depth, say); its message names the line, shown in the same place.
function showServerSyntax(detail) {
  const st = $('editor-status');
  st.textContent = detail;
  st.classList.add('bad');
  const m = /line (\d+)/.exec(detail || '');
  if (m) { editor.setMarks(new Map([[Number(m[1]), detail]]), Number(m[1])); editor.scrollToLine(Number(m[1])); }
}

async function submit(onSubmitted) {
  const btn = $('submit'), out = $('submit-result');
  clearErrors();
  out.textContent = '';
  if (!checkSyntax()) { editor.scrollToLine(editor.focus); return; }
  btn.disabled = true;
  out.textContent = 'submitting…';
  try {
    const job = await api.submit(editor.text);
    out.textContent = `Submitted “${job.name}” as ${job.id}.`;
    onSubmitted(job);
  } catch (e) {
    if (!(e instanceof ApiError)) out.textContent = `Not submitted: ${e.message}`;
    else if (e.status === 422) {
      out.textContent = `The server refused the job: ${e.problem.errors?.length || 0} error(s), shown below and next to the fields.`;
      showErrors(e.problem.errors || []);
    } else if (e.status === 400) {
      out.textContent = '';
      showServerSyntax(e.problem.errors?.[0]?.message || e.message);
    } else out.textContent = e.status === 413 ? 'The document is too large for this server.' : `Refused (${e.status}): ${e.message}`;
  } finally {
    btn.disabled = false;
  }
}

// ---------------------------------------------------------------- examples

let loaded = { file: null, text: '' }; // what the editor held when an example was loaded

async function exampleText(file) {
  if (file) {
    try {
      const r = await fetch(`examples/${file}`, { cache: 'no-store' });
      if (r.ok) return r.text();
    } catch { /* fallback */ }
  }
  return pretty(FALLBACK_EXAMPLE) + '\n';
}

async function loadExample(file) {
  const text = await exampleText(file);
  loaded = { file, text };
  editor.text = text;
  clearErrors();
  $('submit-result').textContent = '';
  syncFormFromEditor();
}

async function loadExamples() {
  const select = $('example');
  let list = [];
  try {
    const r = await fetch('examples/index.json', { cache: 'no-store' });
    if (r.ok) list = await r.json();
  } catch { /* none */ }
  select.innerHTML = '';
  // index.json lists the lightest first (web/build.mjs): it is the default
  for (const e of list) {
    const n = e.particles ? `, ${e.particles.toLocaleString('en')} particles` : '';
    select.add(new Option(`${e.file.replace(/\.json$/, '')} (${e.name}${n})`, e.file));
  }
  select.add(new Option('two spheres (built in)', ''));
  select.addEventListener('change', async () => {
    // switching drops the editor's text: ask first when the user changed it
    if (editor.text !== loaded.text && !confirm('Replace your edits in the job document with this example? Your changes will be lost.')) {
      select.value = loaded.file ?? '';
      return;
    }
    await loadExample(select.value);
  });
  await loadExample(select.value);
}

export function initSubmit({ onSubmitted }) {
  editor.ta.addEventListener('scroll', () => editor.sync());
  $('format').addEventListener('click', () => {
    if (checkSyntax()) editor.text = pretty(JSON.parse(editor.text)) + '\n';
  });
  let editTimer = null;
  editor.ta.addEventListener('input', () => {
    if (editor.marks.size) editor.marks = new Map();
    editor.render();
    clearTimeout(editTimer);
    editTimer = setTimeout(syncFormFromEditor, 250);
  });
  // Tab indents instead of leaving the editor; after Escape, Tab leaves it
  // (no keyboard trap), as Shift+Tab always does
  let tabLeaves = false;
  editor.ta.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { tabLeaves = true; return; }
    if (e.key === 'Tab' && !e.shiftKey && !tabLeaves) { e.preventDefault(); document.execCommand('insertText', false, '  '); }
    if (e.key !== 'Shift') tabLeaves = false;
  });
  editor.ta.addEventListener('blur', () => { tabLeaves = false; });
  for (const f of FIELDS) $(f.el).addEventListener(f.type === 'bool' ? 'change' : 'input', () => syncEditorFromForm(f));
  $('submit-form').addEventListener('submit', (ev) => { ev.preventDefault(); submit(onSubmitted); });
  return loadExamples();
}
