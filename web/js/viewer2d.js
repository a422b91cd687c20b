// viewer2d.js - the fallback view on a 2D canvas, for browsers without WebGL
// 2: particles as shaded discs in an orthographic projection, drawn back to
// front; drag turns, shift-drag or right-drag pans, the wheel zooms.
import { cssColor, quantity, range } from './colormap.js';
import { sceneBounds, unionBox, frameBounds, placer } from './scene.js';

export const kind = '2d';

export class Viewer2D {
  constructor(container) {
    this.container = container;
    this.canvas = document.createElement('canvas');
    container.appendChild(this.canvas);
    this.g = this.canvas.getContext('2d');
    this.yaw = -0.55; this.pitch = 0.45; this.zoom = 1; this.pan = [0, 0];
    this.frame = null; this.job = null; this.mode = 'speed'; this.bounds = null; this.needFit = true;
    this.showParticles = true; this.showGeometry = true;
    this.onLegend = null; this.onFps = null; this.fps = 0;
    this.center = [0, 0, 0]; this.scale = 1;
    let drag = null;
    this.canvas.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY, pan: e.shiftKey || e.button === 2 }; this.canvas.setPointerCapture(e.pointerId); });
    this.canvas.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.x = e.clientX; drag.y = e.clientY;
      if (drag.pan) { this.pan[0] += dx; this.pan[1] += dy; } else {
        this.yaw += dx * 0.01; this.pitch = Math.max(-1.55, Math.min(1.55, this.pitch + dy * 0.01));
      }
      this.draw();
    });
    this.canvas.addEventListener('pointerup', () => { drag = null; });
    this.canvas.addEventListener('contextmenu', (e) => e.preventDefault());
    this.canvas.addEventListener('wheel', (e) => { e.preventDefault(); this.zoom *= Math.exp(-e.deltaY * 0.001); this.draw(); }, { passive: false });
    new ResizeObserver(() => this.draw()).observe(container);
  }

  setJob(job) { this.job = job; this.frame = null; this.bounds = sceneBounds(job); this.needFit = true; this.draw(); }
  setFrame(frame) {
    this.frame = frame;
    if (this.needFit && frame.n) { this.needFit = false; this.bounds = unionBox(this.bounds, frameBounds(frame)); this.fit(); }
    this.recolour();
    this.container.dataset.frameIndex = String(frame.index);
    this.container.dataset.particles = String(frame.n);
  }
  recolour() {
    if (!this.frame) return this.draw();
    const [values, label, unit] = quantity(this.frame, this.mode);
    const [lo, hi] = this.rangeLock || range(values, this.mode, this.job?.scene?.materials?.length || 0);
    this.lastRange = [lo, hi];
    this.colours = { values, lo, hi };
    this.onLegend?.(label, unit, lo, hi);
    this.draw();
  }
  setColourMode(m) { this.mode = m; this.rangeLock = null; this.recolour(); }
  lockRange(on) { this.rangeLock = on && this.lastRange ? [...this.lastRange] : null; this.recolour(); }
  setParticlesVisible(v) { this.showParticles = v; this.draw(); }
  setGeometryVisible(v) { this.showGeometry = v; this.draw(); }
  fit() {
    const b = unionBox(this.bounds, frameBounds(this.frame)) || { min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5] };
    this.center = b.min.map((v, k) => (v + b.max[k]) / 2);
    this.scale = Math.max(Math.hypot(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2]) / 2, 1e-3);
    this.zoom = 1; this.pan = [0, 0];
  }
  resetCamera() { this.yaw = -0.55; this.pitch = 0.45; this.fit(); this.draw(); }

  // world -> [screen x, screen y, depth]
  projector() {
    const w = this.canvas.clientWidth, h = this.canvas.clientHeight;
    const s = (Math.min(w, h) / 2 / this.scale) * this.zoom;
    const cy = Math.cos(this.yaw), sy = Math.sin(this.yaw), cp = Math.cos(this.pitch), sp = Math.sin(this.pitch);
    const [c0, c1, c2] = this.center, ox = w / 2 + this.pan[0], oy = h / 2 + this.pan[1];
    return { s, f: (x, y, z) => {
      x -= c0; y -= c1; z -= c2;
      const xr = cy * x - sy * y, yr = sy * x + cy * y; // turn about z
      return [ox + s * xr, oy - s * (cp * z - sp * yr), cp * yr + sp * z]; // tilt; depth grows away
    } };
  }

  draw() {
    const c = this.canvas, dpr = window.devicePixelRatio || 1, w = c.clientWidth, h = c.clientHeight;
    if (!w || !h) return;
    if (c.width !== Math.round(w * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    const g = this.g;
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.fillStyle = '#1d232b'; g.fillRect(0, 0, w, h);
    const { s, f: P } = this.projector();
    if (this.showGeometry) this.drawGeometry(P);
    const fr = this.frame;
    if (!fr || !this.showParticles) return;
    const t0 = performance.now();
    const n = fr.n, pos = fr.positions, order = new Uint32Array(n), depth = new Float32Array(n), sx = new Float32Array(n), syy = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const q = P(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]);
      sx[i] = q[0]; syy[i] = q[1]; depth[i] = q[2]; order[i] = i;
    }
    order.sort((a, b) => depth[b] - depth[a]);
    const { values, lo, hi } = this.colours || { values: new Float32Array(n), lo: 0, hi: 1 };
    for (const i of order) {
      const r = Math.max(0.8, fr.radii[i] * s);
      g.fillStyle = cssColor((values[i] - lo) / (hi - lo));
      g.beginPath(); g.arc(sx[i], syy[i], r, 0, 2 * Math.PI); g.fill();
      if (r > 3) { g.strokeStyle = 'rgba(0,0,0,.35)'; g.lineWidth = 0.6; g.stroke(); }
    }
    this.fps = 1000 / Math.max(1, performance.now() - t0);
    this.onFps?.(this.fps);
  }

  drawGeometry(P) {
    const g = this.g;
    g.strokeStyle = 'rgba(198,210,222,.6)'; g.lineWidth = 1;
    const line = (a, b) => { const p = P(...a), q = P(...b); g.beginPath(); g.moveTo(p[0], p[1]); g.lineTo(q[0], q[1]); g.stroke(); };
    const t = this.frame?.time || 0, poses = new Map((this.frame?.geometry || []).map((p) => [p.index, p]));
    for (const [index, geo] of (this.job?.scene?.geometry || []).entries()) {
      const pose = poses.get(index), drawn = pose?.min && pose?.max ? { ...geo, min: pose.min, max: pose.max } : geo; // walls: the frame's faces
      const sh = placer(drawn, pose, t); // the frame's pose, else the shorthand motion
      if (geo.type === 'box') {
        const a = drawn.min, b = drawn.max;
        const corner = (k) => sh([k & 1 ? b[0] : a[0], k & 2 ? b[1] : a[1], k & 4 ? b[2] : a[2]]);
        for (let k = 0; k < 8; k++) for (const bit of [1, 2, 4]) if (!(k & bit)) line(corner(k), corner(k | bit));
      } else if (geo.type === 'cylinder') {
        const ax = geo.axis, L = Math.hypot(...ax), u = ax.map((x) => x / L);
        const e1 = Math.abs(u[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
        const d = e1[0] * u[0] + e1[1] * u[1] + e1[2] * u[2];
        let p1 = e1.map((x, k) => x - d * u[k]); const n1 = Math.hypot(...p1); p1 = p1.map((x) => x / n1);
        const p2 = [u[1] * p1[2] - u[2] * p1[1], u[2] * p1[0] - u[0] * p1[2], u[0] * p1[1] - u[1] * p1[0]];
        const c = geo.center;
        for (const side of [-0.5, 0.5]) {
          g.beginPath();
          for (let k = 0; k <= 48; k++) {
            const a = (k / 48) * 2 * Math.PI;
            const q = P(...sh(c.map((x, j) => x + side * geo.length * u[j] + geo.radius * (Math.cos(a) * p1[j] + Math.sin(a) * p2[j]))));
            if (k) g.lineTo(q[0], q[1]); else g.moveTo(q[0], q[1]);
          }
          g.stroke();
        }
      } else if (geo.type === 'plane') {
        const b = this.bounds || { min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5] };
        const n = geo.normal, L = Math.hypot(...n), u = n.map((x) => x / L);
        if (Math.abs(u[2]) > 0.9) { // a floor: its outline under the scene
          const z = geo.point[2];
          const pad = 0.3 * Math.max(b.max[0] - b.min[0], b.max[1] - b.min[1]);
          const x0 = b.min[0] - pad, x1 = b.max[0] + pad, y0 = b.min[1] - pad, y1 = b.max[1] + pad;
          const e = [[x0, y0, z], [x1, y0, z], [x1, y1, z], [x0, y1, z]].map(sh);
          for (let k = 0; k < 4; k++) line(e[k], e[(k + 1) % 4]);
        }
      }
    }
  }
}
