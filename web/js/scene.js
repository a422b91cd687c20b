// scene.js - bounds of a job's scene from its document, for the camera and
// for sizing infinite planes.

export function unionBox(a, b) {
  if (!a) return b; if (!b) return a;
  return { min: a.min.map((v, k) => Math.min(v, b.min[k])), max: a.max.map((v, k) => Math.max(v, b.max[k])) };
}

function radiusMax(r) {
  if (typeof r === 'number') return r;
  if (r && typeof r === 'object') {
    if (Array.isArray(r.values)) return Math.max(...r.values);
    if (typeof r.max === 'number') return r.max;
  }
  return 0.005;
}

const vec = (a) => Array.isArray(a) && a.length === 3 && a.every(Number.isFinite);

export function sceneBounds(job) {
  const s = job?.scene;
  if (!s) return null;
  let b = null;
  const add = (min, max, pad = 0) => { if (vec(min) && vec(max)) b = unionBox(b, { min: min.map((v) => v - pad), max: max.map((v) => v + pad) }); };
  for (const p of s.particles || []) {
    if (p.type === 'list') for (const sp of p.spheres || []) add(sp.slice(0, 3), sp.slice(0, 3), sp[3] || 0);
    else add(p.min, p.max, radiusMax(p.radius));
  }
  for (const e of s.emitters || []) add(e.min, e.max, radiusMax(e.radius));
  const content = b;
  for (const g of s.geometry || []) {
    if (g.type === 'box' && g.inside) add(g.min, g.max);
    else if (g.type === 'box' && content) {
      // a solid box: only as far as it is near the particles
      add(g.min.map((v, k) => Math.max(v, content.min[k] - 0.5 * (content.max[k] - content.min[k]))),
          g.max.map((v, k) => Math.min(v, content.max[k] + 0.5 * (content.max[k] - content.min[k]))));
    } else if (g.type === 'cylinder' && vec(g.center)) {
      const e = Math.max(g.radius || 0, (g.length || 0) / 2);
      add(g.center, g.center, e);
    }
  }
  return b;
}

export function frameBounds(f) {
  if (!f || !f.n) return null;
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  const p = f.positions, r = f.radii;
  for (let i = 0; i < f.n; i++) for (let k = 0; k < 3; k++) {
    const v = p[3 * i + k];
    if (v - r[i] < min[k]) min[k] = v - r[i];
    if (v + r[i] > max[k]) max[k] = v + r[i];
  }
  return { min, max };
}

// The reference point a frame's pose places (docs/frames.md): a plane's
// point, a box's centre, a cylinder's centre, a mesh's position.
export function referencePoint(g) {
  if (g.type === 'box' && vec(g.min) && vec(g.max)) return g.min.map((v, k) => (v + g.max[k]) / 2);
  if (g.type === 'cylinder' && vec(g.center)) return g.center;
  if (g.type === 'plane' && vec(g.point)) return g.point;
  if (g.type === 'mesh') return vec(g.position) ? g.position : [0, 0, 0];
  return null;
}

// A function moving a point of geometry g as defined to where a frame's pose
// ({position, orientation [w, x, y, z]}) puts it: position + R(q) (x - c);
// without a pose, the shorthand: x + velocity t.
export function placer(g, pose, t = 0) {
  const c = referencePoint(g);
  if (!pose || !c) {
    const v = vec(g.velocity) ? g.velocity : [0, 0, 0];
    return (x) => x.map((a, k) => a + v[k] * t);
  }
  const [w, qx, qy, qz] = pose.orientation, p = pose.position;
  return (x) => {
    const d = [x[0] - c[0], x[1] - c[1], x[2] - c[2]];
    // v' = v + w t + q x t, t = 2 q x v
    const tx = 2 * (qy * d[2] - qz * d[1]), ty = 2 * (qz * d[0] - qx * d[2]), tz = 2 * (qx * d[1] - qy * d[0]);
    return [p[0] + d[0] + w * tx + (qy * tz - qz * ty), p[1] + d[1] + w * ty + (qz * tx - qx * tz),
      p[2] + d[2] + w * tz + (qx * ty - qy * tx)];
  };
}
