// chains.js - force chains of one frame: the contacts of its NDC1 record
// (ndc.js) as line segments, coloured by the normal force relative to the
// mean of the contacts drawn (docs/frames.md). A contact between two
// particles runs centre to centre; one with geometry (b = -1 - g) runs from
// the particle's centre to the contact point, so that the load paths end on
// the walls, floors and meshes that carry them. Weak contacts fade towards
// the background, so the strong network (force above the mean) stands out.
// Pure: the 3D view draws the arrays.
import { LUT } from './colormap.js';

// Ratios to the mean above this get the top colour.
export const CHAIN_MAX_RATIO = 3;

// {positions (6 per segment), colors (6 per segment), count, geometry, mean}:
// one segment per contact with a pushing normal force between two particles
// of the frame, or between one and geometry when the record has contact
// points; geometry counts the latter; count 0 when there is none.
export function chainSegments(contacts, frame) {
  const n = contacts?.n || 0, a = contacts?.a, b = contacts?.b, fn = contacts?.normalForces;
  const pts = contacts?.points, p = frame?.positions, np = frame?.n || 0;
  const keep = [];
  let sum = 0, geometry = 0;
  if (a && b && fn && p) {
    for (let k = 0; k < n; k++) {
      const wall = b[k] < 0;
      if (a[k] >= np || (wall ? !pts : b[k] >= np) || !(fn[k] > 0)) continue;
      keep.push(k);
      sum += fn[k];
      geometry += wall;
    }
  }
  const m = keep.length, mean = m ? sum / m : 0;
  const positions = new Float32Array(6 * m), colors = new Float32Array(6 * m);
  for (let s = 0; s < m; s++) {
    const k = keep[s], ia = 3 * a[k], wall = b[k] < 0;
    const to = wall ? pts : p, ib = 3 * (wall ? k : b[k]); // the contact point, or b's centre
    positions.set([p[ia], p[ia + 1], p[ia + 2], to[ib], to[ib + 1], to[ib + 2]], 6 * s);
    const ratio = Math.min(fn[k] / mean, CHAIN_MAX_RATIO) / CHAIN_MAX_RATIO;
    const j = 3 * Math.round(ratio * 255);
    const fade = 0.25 + 0.75 * Math.min(1, fn[k] / mean); // below the mean: dimmer
    for (let e = 0; e < 2; e++) for (let q = 0; q < 3; q++) colors[6 * s + 3 * e + q] = LUT[j + q] * fade;
  }
  return { positions, colors, count: m, geometry, mean };
}
