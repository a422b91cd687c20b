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

// ---------------------------------------------------------------- syntax

const lineCol = (text, offset) => {
  const before = text.slice(0, offset), nl = before.lastIndexOf('\n');
  return { line: before.split('\n').length, column: offset - nl };
};

// The first JSON syntax error of `text` as {offset, line, column, message},
// or null when JSON.parse accepts it. The browser's own messages differ
// between engines and lack lines, so the place is found by a strict scan.
export function syntaxError(text) {
  try { JSON.parse(text); return null; } catch { /* find where */ }
  let i = 0;
  const fail = (message, at = i) => { throw Object.assign(lineCol(text, at), { offset: at, message }); };
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const str = () => {
    const s = i++;
    for (;;) {
      if (i >= text.length) fail('unterminated string', s);
      const c = text[i];
      if (c === '"') { i++; return; }
      if (c.charCodeAt(0) < 32) fail('control character in a string (use \\n, \\t)');
      if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else fail('invalid escape in a string');
      } else i++;
    }
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === undefined) fail('unexpected end of the document: a value is missing');
    if (c === '{') {
      i++; ws();
      if (text[i] === '}') { i++; return; }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(text[i] === undefined ? 'unexpected end of the document: "}" is missing' : 'expected a "quoted" key');
        str(); ws();
        if (text[i] !== ':') fail('expected ":" after the key');
        i++;
        value(); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return; }
        fail(text[i] === undefined ? 'unexpected end of the document: "}" is missing' : 'expected "," or "}"');
      }
    }
    if (c === '[') {
      i++; ws();
      if (text[i] === ']') { i++; return; }
      for (;;) {
        value(); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return; }
        fail(text[i] === undefined ? 'unexpected end of the document: "]" is missing' : 'expected "," or "]"');
      }
    }
    if (c === '"') return str();
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (!m || /[\w.]/.test(text[i + m[0].length] || '')) fail('expected a value (number, "string", true, false, null, object or array)');
    i += m[0].length;
  };
  try {
    value(); ws();
    if (i < text.length) fail('unexpected text after the document');
  } catch (e) {
    if (e instanceof Error) throw e;
    return e;
  }
  // JSON.parse refused what the scan accepts (should not happen): say where it ends
  return { ...lineCol(text, text.length), offset: text.length, message: 'not valid JSON' };
}

// ---------------------------------------------------------------- edits

const unescPart = (s) => s.replace(/~1/g, '/').replace(/~0/g, '~');
const isWs = (c) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

// Sets the value at `pointer` in the JSON text `text` to `valueText` (JSON
// text), or removes that member when valueText is undefined, changing only
// those characters: the rest of the user's formatting stays. A missing member
// is added after the last member of the nearest existing object (with the
// objects between, written inline). Returns null when `text` is not valid
// JSON or the pointer goes through something that is not an object.
export function setValue(text, pointer, valueText) {
  if (syntaxError(text)) return null;
  const map = pointerMap(text);
  const hit = map.get(pointer);
  if (hit) {
    if (valueText !== undefined) return text.slice(0, hit.start) + valueText + text.slice(hit.end);
    return removeMember(text, map, pointer, hit);
  }
  if (valueText === undefined) return text;
  let p = pointer;
  const missing = [];
  while (!map.has(p)) {
    missing.unshift(unescPart(p.slice(p.lastIndexOf('/') + 1)));
    p = p.slice(0, p.lastIndexOf('/'));
  }
  const parent = map.get(p);
  if (text[parent.start] !== '{') return null;
  let v = valueText;
  for (let k = missing.length - 1; k > 0; k--) v = `{${JSON.stringify(missing[k])}: ${v}}`;
  const member = `${JSON.stringify(missing[0])}: ${v}`;
  const last = children(map, p).pop();
  if (!last) return text.slice(0, parent.start + 1) + member + text.slice(parent.end - 1);
  // the new member goes on its own line when the last one is on its own line
  let s = last.keyStart;
  while (s > 0 && isWs(text[s - 1])) s--;
  const gap = text.slice(s, last.keyStart);
  return text.slice(0, last.end) + ',' + (gap.includes('\n') ? gap : ' ') + member + text.slice(last.end);
}

function children(map, p) {
  const out = [];
  for (const [q, loc] of map) {
    if (q.length > p.length && q.startsWith(p + '/') && !q.slice(p.length + 1).includes('/')) out.push(loc);
  }
  return out.sort((a, b) => a.start - b.start);
}

function removeMember(text, map, pointer, hit) {
  const parentPtr = pointer.slice(0, pointer.lastIndexOf('/'));
  const parent = map.get(parentPtr);
  if (text[parent.start] !== '{') return null;
  const sibs = children(map, parentPtr);
  if (sibs.length === 1) return text.slice(0, parent.start) + '{}' + text.slice(parent.end);
  let a = hit.keyStart, b = hit.end;
  if (sibs[0].keyStart === hit.keyStart) { // first member: its comma and the gap to the next go
    b = sibs[1].keyStart;
  } else { // else from the end of the previous member (its comma with it)
    a = sibs[sibs.findIndex((s) => s.keyStart === hit.keyStart) - 1].end;
  }
  return text.slice(0, a) + text.slice(b);
}
