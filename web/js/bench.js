// bench.js - ?bench=N: N synthetic particles in a box, moved every animation
// frame (a full update of instance matrices and colours each time, as a live
// stream at full rate would do), to measure the view's frame rate.
export function run(viewer, n) {
  n = Math.max(1, Math.min(5e6, n | 0));
  const side = Math.ceil(Math.cbrt(n)), r = 0.5 / side;
  const base = new Float32Array(3 * n), radii = new Float32Array(n).fill(r * 0.9);
  for (let i = 0; i < n; i++) {
    base[3 * i] = ((i % side) + 0.5) / side - 0.5;
    base[3 * i + 1] = ((Math.floor(i / side) % side) + 0.5) / side - 0.5;
    base[3 * i + 2] = (Math.floor(i / side / side) + 0.5) / side;
  }
  viewer.setJob({ scene: { geometry: [{ type: 'plane', point: [0, 0, 0], normal: [0, 0, 1] }],
    particles: [{ type: 'lattice', min: [-0.5, -0.5, 0], max: [0.5, 0.5, 1], radius: r }] } });
  const positions = new Float32Array(3 * n), scalar = new Float32Array(n);
  let frames = 0, t0 = performance.now(), index = 0, updateMs = 0;
  const result = { n, fps: 0, samples: [] };
  window.ndemBench = result;
  const step = (now) => {
    const t = now / 1000;
    for (let i = 0; i < n; i++) {
      const w = Math.sin(t * 2 + base[3 * i] * 6) * r;
      positions[3 * i] = base[3 * i]; positions[3 * i + 1] = base[3 * i + 1]; positions[3 * i + 2] = base[3 * i + 2] + w;
      scalar[i] = Math.abs(w) / r;
    }
    const u0 = performance.now();
    viewer.setFrame({ index: index++, n, step: index, time: t, positions, radii, scalar });
    updateMs += performance.now() - u0;
    frames++;
    if (now - t0 >= 2000) {
      result.fps = (frames * 1000) / (now - t0);
      result.samples.push(result.fps);
      result.updateMs = updateMs / frames;
      updateMs = 0;
      document.getElementById('frame-label').textContent = `bench: ${n.toLocaleString('en')} particles, ${result.fps.toFixed(1)} fps (updates + renders), update ${result.updateMs.toFixed(1)} ms`;
      frames = 0; t0 = now;
    }
    requestAnimationFrame(step);
  };
  document.getElementById('detail-empty').hidden = true;
  document.getElementById('d-name').textContent = `Benchmark: ${n.toLocaleString('en')} synthetic particles`;
  for (const id of ['d-cancel', 'd-delete', 'd-status']) document.getElementById(id).hidden = true;
  document.getElementById('detail-body').hidden = false;
  requestAnimationFrame(step);
}
