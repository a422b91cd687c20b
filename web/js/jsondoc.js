// jsondoc.js - JSON text helpers for the job editor: where a JSON Pointer
// (RFC 6901) points in the text, and a compact pretty-printer that keeps
// short arrays of numbers on one line.

// Walks `text` (JSON) and returns a Map pointer -> {start, end, keyStart}
// (character offsets). Stops quietly at a syntax error, keeping what it saw.
export function pointerMap(text) {
  const map = new Map();
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const esc = (k) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  const str = () => {
    const s = i; i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    try { return JSON.parse(text.slice(s, i)); } catch { return text.slice(s + 1, i - 1); }
  };
  const value = (ptr, keyStart) => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++; ws();
      if (text[i] === '}') { i++; }
      else for (;;) {
        ws();
        if (text[i] !== '"') throw new Error('key expected');
        const ks = i;
        const k = str(); ws();
        if (text[i] !== ':') throw new Error(': expected');
        i++;
        value(`${ptr}/${esc(k)}`, ks); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; break; }
        throw new Error(', or } expected');
      }
    } else if (c === '[') {
      i++; ws();
      if (text[i] === ']') { i++; }
      else for (let n = 0; ; n++) {
        value(`${ptr}/${n}`, undefined); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; break; }
        throw new Error(', or ] expected');
      }
    } else if (c === '"') {
      str();
    } else if (c !== undefined && /[-0-9tfn]/.test(c)) {
      while (i < text.length && /[-+0-9.eEa-z]/.test(text[i])) i++;
    } else {
      throw new Error('value expected');
    }
    map.set(ptr, { start, end: i, keyStart: keyStart ?? start });
  };
  try { value('', undefined); } catch { /* partial map */ }
  return map;
}

// The text range of the pointer, or of its nearest ancestor that exists
// (a missing required field is reported at the pointer it should have had).
export function locate(text, pointer, map = pointerMap(text)) {
  let p = pointer;
  for (;;) {
    const hit = map.get(p);
    if (hit) return { ...hit, exact: p === pointer };
    if (p === '') return { start: 0, end: 0, keyStart: 0, exact: false };
    p = p.slice(0, p.lastIndexOf('/'));
  }
}

export function lineOf(text, offset) {
  let line = 1;
  for (let k = 0; k < offset && k < text.length; k++) if (text.charCodeAt(k) === 10) line++;
  return line;
}

// Resolves a JSON Pointer in a parsed document: [parent, key] or null.
export function resolve(doc, pointer, create = false) {
  const parts = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let o = doc;
  for (let k = 0; k < parts.length - 1; k++) {
    if (o[parts[k]] === undefined || o[parts[k]] === null) {
      if (!create) return null;
      o[parts[k]] = {};
    }
    o = o[parts[k]];
    if (typeof o !== 'object') return null;
  }
  return [o, parts[parts.length - 1]];
}

const flat = (v) => v === null || typeof v !== 'object';

// JSON.stringify with two-space indents, but arrays of plain values on one line.
export function pretty(v, indent = '') {
  if (flat(v)) return JSON.stringify(v);
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    if (v.every(flat)) return '[' + v.map((x) => JSON.stringify(x)).join(', ') + ']';
    return '[\n' + v.map((x) => inner + pretty(x, inner)).join(',\n') + '\n' + indent + ']';
  }
  const keys = Object.keys(v).filter((k) => v[k] !== undefined);
  if (keys.length === 0) return '{}';
  return '{\n' + keys.map((k) => `${inner}${JSON.stringify(k)}: ${pretty(v[k], inner)}`).join(',\n') + '\n' + indent + '}';
}
