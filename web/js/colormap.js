// colormap.js - a perceptual colour scale (viridis, sampled) as a 256-entry LUT.
const STOPS = [
  [0.267, 0.005, 0.329], [0.283, 0.141, 0.458], [0.254, 0.265, 0.530], [0.207, 0.372, 0.553],
  [0.164, 0.471, 0.558], [0.128, 0.567, 0.551], [0.135, 0.659, 0.518], [0.267, 0.749, 0.441],
  [0.478, 0.821, 0.318], [0.741, 0.873, 0.150], [0.993, 0.906, 0.144],
];
export const LUT = new Float32Array(256 * 3);
for (let k = 0; k < 256; k++) {
  const t = (k / 255) * (STOPS.length - 1), a = Math.floor(t), b = Math.min(a + 1, STOPS.length - 1), f = t - a;
  for (let c = 0; c < 3; c++) LUT[3 * k + c] = STOPS[a][c] * (1 - f) + STOPS[b][c] * f;
}
export function cssColor(t) {
  const k = 3 * Math.max(0, Math.min(255, Math.round(t * 255)));
  return `rgb(${Math.round(LUT[k] * 255)},${Math.round(LUT[k + 1] * 255)},${Math.round(LUT[k + 2] * 255)})`;
}

// Colour quantity of every particle: [values, label, unit].
export function quantity(frame, mode) {
  const n = frame.n;
  if (mode === 'height') {
    const v = new Float32Array(n);
    for (let i = 0; i < n; i++) v[i] = frame.positions[3 * i + 2];
    return [v, 'height z', 'm'];
  }
  if (mode === 'radius') return [frame.radii, 'radius', 'm'];
  // the index into scene.materials (frames of older daemons carry none: all 0)
  if (mode === 'material') return [frame.materials || new Uint32Array(n), 'material index', ''];
  return [frame.scalar || new Float32Array(n), 'speed', 'm/s'];
}

// The colour scale's [lo, hi]; materials: 0 .. the job's last material
// (`materials`, its count), so a colour names the same material in every frame.
export function range(values, mode, materials = 0) {
  if (mode === 'material') {
    let top = materials - 1;
    for (let i = 0; i < values.length; i++) if (values[i] > top) top = values[i];
    return [0, Math.max(1, top)];
  }
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < values.length; i++) { const v = values[i]; if (v < lo) lo = v; if (v > hi) hi = v; }
  if (!(hi >= lo)) { lo = 0; hi = 1; }
  if (mode === 'speed') lo = 0;
  if (hi - lo < 1e-12) hi = lo + (Math.abs(lo) > 0 ? Math.abs(lo) * 0.01 : 1e-6);
  return [lo, hi];
}
