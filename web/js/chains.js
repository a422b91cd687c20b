// chains.js - force chains of one frame: the particle-particle contacts of
// its NDC1 record (ndc.js) as line segments between the two centres of the
// frame, coloured by the normal force relative to the mean of those
// contacts (docs/frames.md). Weak contacts fade towards the background, so
// the strong network (force above the mean) stands out. Pure: the 3D view
// draws the arrays.
import { LUT } from './colormap.js';

// Ratios to the mean above this get the top colour.
export const CHAIN_MAX_RATIO = 3;

// {positions (6 per segment), colors (6 per segment), count, mean}: one
// segment per contact between two particles of the frame with a pushing
// normal force; count 0 when there is none.
export function chainSegments(contacts, frame) {
  const n = contacts?.n || 0, a = contacts?.a, b = contacts?.b, fn = contacts?.normalForces;
  const p = frame?.positions, np = frame?.n || 0;
  const keep = [];
  let sum = 0;
  if (a && b && fn && p) {
    for (let k = 0; k < n; k++) {
      if (b[k] < 0 || a[k] >= np || b[k] >= np || !(fn[k] > 0)) continue;
      keep.push(k);
      sum += fn[k];
    }
  }
  const m = keep.length, mean = m ? sum / m : 0;
  const positions = new Float32Array(6 * m), colors = new Float32Array(6 * m);
  for (let s = 0; s < m; s++) {
    const k = keep[s], ia = 3 * a[k], ib = 3 * b[k];
    positions.set([p[ia], p[ia + 1], p[ia + 2], p[ib], p[ib + 1], p[ib + 2]], 6 * s);
    const ratio = Math.min(fn[k] / mean, CHAIN_MAX_RATIO) / CHAIN_MAX_RATIO;
    const j = 3 * Math.round(ratio * 255);
    const fade = 0.25 + 0.75 * Math.min(1, fn[k] / mean); // below the mean: dimmer
    for (let e = 0; e < 2; e++) for (let q = 0; q < 3; q++) colors[6 * s + 3 * e + q] = LUT[j + q] * fade;
  }
  return { positions, colors, count: m, mean };
}
