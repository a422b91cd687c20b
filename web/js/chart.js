// chart.js - a small line chart on a canvas: x is simulated time (s), one or
// more series, linear or log y axis, axis labels with units, a legend.

const COLORS = ['#2f6fd6', '#d6572f', '#1f8a4c', '#8e44ad', '#b7791f'];

function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

export function fmt(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) return v.toExponential(1).replace('.0e', 'e').replace('e+', 'e');
  if (a >= 100) return v.toFixed(0);
  return String(Number(v.toPrecision(3)));
}

// The y axis of a linear chart over data in [y0, y1]: ticks from lo to hi
// by step. Data that reaches a tick at the top (a constant iteration cap, say)
// gets one more step above, so that its line is never drawn on the border.
export function axisRange(y0, y1) {
  if (y0 > 0 && (y0 < 0.5 * y1 || y0 === y1)) y0 = 0;
  if (y1 === y0) y1 = y0 + Math.max(1, Math.abs(y0) * 0.1);
  const step = niceStep(y1 - y0, 4);
  const lo = Math.floor(y0 / step) * step;
  let hi = Math.ceil(y1 / step) * step;
  if (hi - y1 < 0.05 * (hi - lo)) hi += step;
  return { lo, hi, step };
}

// One sentence for screen readers: what the chart shows, its time span and
// the latest values (the canvas's aria-label).
export function summary(title, unit, series) {
  const withData = series.filter((s) => s.x.length);
  if (!withData.length) return `${title}: no data yet.`;
  const t0 = Math.min(...withData.map((s) => s.x[0])), t1 = Math.max(...withData.map((s) => s.x[s.x.length - 1]));
  const last = withData.map((s) => `${s.label} ${fmt(s.y[s.y.length - 1])}${unit ? ' ' + unit : ''}`).join(', ');
  const n = withData[0].x.length;
  return `${title}: ${n} point${n === 1 ? '' : 's'} from t = ${fmt(t0)} s to ${fmt(t1)} s; latest: ${last}.`;
}

export class Chart {
  constructor(canvas, { title, yLabel, unit = '', xLabel = 'simulated time (s)', log = false, series }) {
    this.canvas = canvas;
    this.title = title; this.yLabel = yLabel; this.unit = unit; this.xLabel = xLabel; this.log = log;
    canvas.setAttribute('role', 'img');
    this.series = series.map((s, k) => ({ color: COLORS[k % COLORS.length], ...s, x: [], y: [] }));
    this.marker = null; this.hover = null;
    new ResizeObserver(() => this.draw()).observe(canvas);
    canvas.addEventListener('mousemove', (e) => { this.hover = e.offsetX; this.draw(); });
    canvas.addEventListener('mouseleave', () => { this.hover = null; this.draw(); });
  }
  clear() { for (const s of this.series) { s.x = []; s.y = []; } this.marker = null; this.draw(); }
  // replaces the lines (a chart whose lines depend on the job: the force chart)
  define(series) { this.series = series.map((s, k) => ({ color: COLORS[k % COLORS.length], ...s, x: [], y: [] })); }
  set(name, x, y) { const s = this.series.find((q) => q.name === name); if (s) { s.x = x; s.y = y; } }
  points() { return this.series.reduce((n, s) => n + s.x.length, 0); }
  setMarker(t) { this.marker = t; this.draw(); }

  draw() {
    const c = this.canvas, dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth, h = c.clientHeight;
    if (!w || !h) return;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    c.dataset.points = String(this.points());
    c.setAttribute('aria-label', summary(this.title, this.unit, this.series));
    g.font = '12px system-ui, sans-serif';
    // the legend goes right of the title, or on a second line when they would meet
    const L = 64, R = 10, B = 34;
    const titleEnd = L + g.measureText(this.title).width;
    const legendW = this.series.length > 1 ? this.series.reduce((a, s) => a + g.measureText(s.label).width + 22, 0) : 0;
    const legendRow = legendW && titleEnd + 12 > w - R - legendW ? 1 : 0;
    const T = 24 + 16 * legendRow;
    const pw = w - L - R, ph = h - T - B;
    this.layout = { title: [L, titleEnd, 15], legend: legendW ? [L + pw - legendW, L + pw, 15 + 16 * legendRow] : null };
    c.dataset.legendRow = String(legendRow);
    g.fillStyle = '#1c2430';
    g.textBaseline = 'alphabetic';
    g.textAlign = 'left';
    g.fillText(this.title, L, 15);

    // ranges
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const s of this.series) for (let k = 0; k < s.x.length; k++) {
      const y = s.y[k];
      if (!Number.isFinite(y) || (this.log && y <= 0)) continue;
      x0 = Math.min(x0, s.x[k]); x1 = Math.max(x1, s.x[k]);
      y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
    const empty = !(x1 >= x0);
    if (empty) { x0 = 0; x1 = 1; y0 = this.log ? 1e-6 : 0; y1 = this.log ? 1 : 1; }
    if (x1 === x0) x1 = x0 + 1;
    let ty0, ty1, tstep;
    if (this.log) {
      ty0 = Math.floor(Math.log10(y0)); ty1 = Math.ceil(Math.log10(y1));
      if (ty1 === ty0) ty1 = ty0 + 1;
    } else {
      ({ lo: ty0, hi: ty1, step: tstep } = axisRange(y0, y1));
    }
    this.range = { lo: this.log ? 10 ** ty0 : ty0, hi: this.log ? 10 ** ty1 : ty1 };
    const X = (x) => L + ((x - x0) / (x1 - x0)) * pw;
    const Y = (y) => this.log
      ? T + ph - ((Math.log10(y) - ty0) / (ty1 - ty0)) * ph
      : T + ph - ((y - ty0) / (ty1 - ty0)) * ph;

    // grid and ticks
    g.strokeStyle = '#e6e9ee'; g.lineWidth = 1; g.fillStyle = '#6b7482';
    g.textAlign = 'right'; g.textBaseline = 'middle';
    const yt = [];
    if (this.log) {
      const every = Math.max(1, Math.ceil((ty1 - ty0) / 6));
      for (let e = ty0; e <= ty1; e += every) yt.push([10 ** e, `1e${e}`]);
    } else {
      const st = tstep;
      for (let v = ty0; v <= ty1 + st * 1e-9; v += st) yt.push([v, fmt(Math.abs(v) < st * 1e-9 ? 0 : v)]);
    }
    for (const [v, label] of yt) {
      const y = Math.round(Y(v)) + 0.5;
      g.beginPath(); g.moveTo(L, y); g.lineTo(L + pw, y); g.stroke();
      g.fillText(label, L - 5, y);
    }
    g.textAlign = 'center'; g.textBaseline = 'top';
    const xs = niceStep(x1 - x0, Math.max(2, Math.floor(pw / 80)));
    for (let v = Math.ceil(x0 / xs) * xs; v <= x1 + xs * 1e-9; v += xs) {
      const x = Math.round(X(v)) + 0.5;
      g.beginPath(); g.moveTo(x, T); g.lineTo(x, T + ph); g.stroke();
      g.fillText(fmt(Math.abs(v) < xs * 1e-9 ? 0 : v), x, T + ph + 4);
    }
    g.strokeStyle = '#9aa3ae';
    g.strokeRect(L + 0.5, T + 0.5, pw, ph);
    g.fillStyle = '#1c2430';
    g.fillText(this.xLabel, L + pw / 2, T + ph + 18);
    g.save(); g.translate(12, T + ph / 2); g.rotate(-Math.PI / 2); g.textBaseline = 'middle';
    g.fillText(this.yLabel, 0, 0); g.restore();

    if (empty) {
      g.fillStyle = '#9aa3ae'; g.textBaseline = 'middle';
      g.fillText('no data yet', L + pw / 2, T + ph / 2);
    }
    // lines
    g.save();
    g.beginPath(); g.rect(L, T, pw, ph); g.clip();
    for (const s of this.series) {
      g.strokeStyle = s.color; g.lineWidth = 1.5; g.beginPath();
      let pen = false;
      for (let k = 0; k < s.x.length; k++) {
        const y = s.y[k];
        if (!Number.isFinite(y) || (this.log && y <= 0)) { pen = false; continue; }
        const px = X(s.x[k]), py = Y(y);
        if (pen) g.lineTo(px, py); else g.moveTo(px, py);
        pen = true;
      }
      g.stroke();
      if (s.x.length === 1) { g.fillStyle = s.color; g.fillRect(X(s.x[0]) - 2, Y(s.y[0]) - 2, 4, 4); }
    }
    if (this.marker !== null && this.marker >= x0 && this.marker <= x1) {
      g.strokeStyle = 'rgba(28,36,48,.45)'; g.setLineDash([4, 3]);
      g.beginPath(); g.moveTo(X(this.marker), T); g.lineTo(X(this.marker), T + ph); g.stroke();
    }
    g.restore();
    // the values under the mouse
    if (this.hover !== null && !empty && this.hover >= L && this.hover <= L + pw) {
      const xv = x0 + ((this.hover - L) / pw) * (x1 - x0);
      const lines = [`t = ${fmt(xv)} s`];
      for (const s of this.series) {
        if (!s.x.length) continue;
        let lo = 0, hi = s.x.length - 1;
        while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (s.x[mid] <= xv) lo = mid; else hi = mid; }
        const k = Math.abs(s.x[hi] - xv) < Math.abs(s.x[lo] - xv) ? hi : lo;
        lines.push(`${s.label}: ${fmt(s.y[k])}`);
      }
      g.strokeStyle = 'rgba(28,36,48,.3)'; g.setLineDash([]);
      g.beginPath(); g.moveTo(this.hover + 0.5, T); g.lineTo(this.hover + 0.5, T + ph); g.stroke();
      g.textAlign = 'left'; g.textBaseline = 'top';
      const bw = Math.max(...lines.map((l) => g.measureText(l).width)) + 10, bh = lines.length * 15 + 6;
      const bx = this.hover + bw + 8 > L + pw ? this.hover - bw - 8 : this.hover + 8;
      g.fillStyle = 'rgba(255,255,255,.92)'; g.fillRect(bx, T + 4, bw, bh);
      g.strokeRect(bx + 0.5, T + 4.5, bw, bh);
      g.fillStyle = '#1c2430';
      lines.forEach((l, k) => g.fillText(l, bx + 5, T + 8 + 15 * k));
    }
    // legend
    if (this.series.length > 1) {
      g.textAlign = 'left'; g.textBaseline = 'alphabetic';
      let lx = L + pw;
      const ly = this.layout.legend[2];
      for (let k = this.series.length - 1; k >= 0; k--) {
        const s = this.series[k], tw = g.measureText(s.label).width;
        lx -= tw + 22;
        g.fillStyle = s.color; g.fillRect(lx, ly - 7, 12, 3);
        g.fillStyle = '#1c2430'; g.fillText(s.label, lx + 15, ly);
      }
    }
  }
}
