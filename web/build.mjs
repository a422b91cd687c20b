// Copies what the page needs from node_modules (installed by `npm ci` from
// package-lock.json) into web/vendor/, and the job examples of ../examples
// into web/examples/ with an index. ndemd serves web/ as it is: no bundler.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const nm = join(here, 'node_modules');
const copies = [
  ['three/build/three.module.js', 'vendor/three/three.module.js'],
  ['three/build/three.core.js', 'vendor/three/three.core.js'],
  ['three/examples/jsm/controls/OrbitControls.js', 'vendor/three/addons/controls/OrbitControls.js'],
  ['three/LICENSE', 'vendor/three/LICENSE'],
];
rmSync(join(here, 'vendor'), { recursive: true, force: true });
for (const [from, to] of copies) {
  mkdirSync(dirname(join(here, to)), { recursive: true });
  copyFileSync(join(nm, from), join(here, to));
}
const version = JSON.parse(readFileSync(join(nm, 'three/package.json'), 'utf8')).version;
writeFileSync(join(here, 'vendor/versions.json'), JSON.stringify({ three: version }) + '\n');

const exSrc = join(here, '..', 'examples');
const exDst = join(here, 'examples');
rmSync(exDst, { recursive: true, force: true });
mkdirSync(exDst, { recursive: true });
// about how many particles a job makes (docs/job.md: generators' count, a
// list's spheres, a lattice without a count fills its box at its spacing,
// emitters' max_count); the page offers the lightest first
const lattice = (g) =>
  [0, 1, 2].reduce((n, k) => n * (Math.floor(((g.max?.[k] ?? 0) - (g.min?.[k] ?? 0)) / g.spacing + 1e-9) + 1), 1);
const generated = (g) =>
  g.type === 'list' ? g.spheres?.length || 0 : g.count || (g.type === 'lattice' && g.spacing > 0 ? lattice(g) : 0);
const particles = (doc) =>
  (doc.scene?.particles || []).reduce((n, g) => n + generated(g), 0) +
  (doc.scene?.emitters || []).reduce((n, e) => n + Math.min(e.max_count ?? Infinity, Math.ceil((e.rate || 0) * ((e.stop ?? doc.solver?.duration ?? 1) - (e.start || 0))) + 1), 0);
const index = [];
for (const f of readdirSync(exSrc).filter((f) => f.endsWith('.json')).sort()) {
  const text = readFileSync(join(exSrc, f), 'utf8');
  let name = f.replace(/\.json$/, ''), n = null;
  try {
    const doc = JSON.parse(text);
    // a mesh read from a file next to the job is for `ndem run` only: ndemd
    // never reads a client's paths (docs/meshes.md), so the page skips it
    if ((doc.scene?.geometry || []).some((g) => g.file !== undefined)) continue;
    name = doc.name || name;
    n = particles(doc);
  } catch { /* listed anyway: the API will say what is wrong */ }
  writeFileSync(join(exDst, f), text);
  index.push({ file: f, name, particles: n });
}
index.sort((a, b) => (a.particles ?? Infinity) - (b.particles ?? Infinity) || a.file.localeCompare(b.file));
writeFileSync(join(exDst, 'index.json'), JSON.stringify(index, null, 1) + '\n');
console.log(`web: three ${version} in web/vendor/, ${index.length} examples in web/examples/`);
