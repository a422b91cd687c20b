// viewer3d.js - the 3D view with three.js: particles as one InstancedMesh of
// low-poly spheres whose instance matrices and colours are written straight
// from the frame's Float32Arrays (shaped particles: one InstancedMesh per
// template, posed by the frame's orientations), the job's geometry drawn transparent (meshes
// loaded from the document or, by id, from the daemon), and an orbit camera
// (z up). Renders only when something changed.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { LUT, quantity, range } from './colormap.js';
import { sceneBounds, unionBox, frameBounds } from './scene.js';
import { meshArrays, placement } from './stl.js';

export const kind = 'webgl';

export function webglAvailable() {
  try {
    const c = document.createElement('canvas');
    return !!c.getContext('webgl2');
  } catch { return false; }
}

const V = (a) => new THREE.Vector3(a[0], a[1], a[2]);

// Sphere impostors: one camera-facing quad per particle, ray-cast in the
// fragment shader (exact silhouettes and depth, 2 triangles a particle), for
// large counts. The instance matrix carries the centre and the radius.
function impostorMaterial() {
  return new THREE.ShaderMaterial({
    vertexShader: `
      varying vec3 vColor; varying vec3 vCenter; varying float vRadius; varying vec3 vPos;
      void main() {
        vec3 c = (modelViewMatrix * vec4(instanceMatrix[3].xyz, 1.0)).xyz;
        float r = instanceMatrix[0][0];
        // the quad on the sphere's front, a little larger than its silhouette
        vec3 p = c + normalize(-c) * r + vec3(position.xy * r * 1.25, 0.0);
        vColor = instanceColor; vCenter = c; vRadius = r; vPos = p;
        gl_Position = projectionMatrix * vec4(p, 1.0);
      }`,
    fragmentShader: `
      uniform vec3 lightDir; uniform mat4 projectionMatrix;
      varying vec3 vColor; varying vec3 vCenter; varying float vRadius; varying vec3 vPos;
      void main() {
        vec3 d = normalize(vPos);
        float b = dot(d, vCenter), q = dot(vCenter, vCenter) - vRadius * vRadius, disc = b * b - q;
        if (disc < 0.0) discard;
        vec3 hit = d * (b - sqrt(disc));
        vec3 n = (hit - vCenter) / vRadius;
        float diffuse = max(dot(n, lightDir), 0.0);
        float hemi = 0.5 + 0.5 * n.y;
        gl_FragColor = vec4(vColor * (0.35 + 0.25 * hemi + 0.75 * diffuse), 1.0);
        vec4 clip = projectionMatrix * vec4(hit, 1.0);
        gl_FragDepth = 0.5 * clip.z / clip.w + 0.5;
        #include <tonemapping_fragment>
        #include <colorspace_fragment>
      }`,
    uniforms: { lightDir: { value: new THREE.Vector3(0.4, 0.6, 0.7).normalize() } },
  });
}

// One shape template of the job resource's `shapes` (docs/shapes.md,
// "Output") at bounding radius 1, as a geometry drawn once for all its
// particles: a polyhedron's hull faces (fans, flat shaded), a clump's member
// spheres merged. null for anything else (such particles stay spheres).
export function templateGeometry(t) {
  const pos = [];
  if ((t?.type === 'polyhedron' || t?.type === 'compound') && Array.isArray(t.vertices) && Array.isArray(t.faces)) {
    for (const f of t.faces) for (let k = 1; k + 1 < f.length; k++) for (const i of [f[0], f[k], f[k + 1]]) pos.push(...t.vertices[i]);
  } else if (t?.type === 'clump' && Array.isArray(t.spheres)) {
    for (const [x, y, z, r] of t.spheres) {
      const g = new THREE.IcosahedronGeometry(r, 2).translate(x, y, z); // non-indexed
      pos.push(...g.attributes.position.array);
      g.dispose();
    }
  } else return null;
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.Float32BufferAttribute(pos, 3));
  g.computeVertexNormals(); // polyhedra: face normals (non-indexed); clumps: a little faceted
  return g;
}

export class Viewer3D {
  constructor(container) {
    this.container = container;
    this.renderer = new THREE.WebGLRenderer({ antialias: true, powerPreference: 'high-performance' });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.setClearColor(0x1d232b, 1);
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.001, 1000);
    this.camera.up.set(0, 0, 1);
    this.camera.position.set(1, -1.4, 0.8);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.enableDamping = true;
    this.controls.screenSpacePanning = true;
    this.controls.addEventListener('change', () => { this.dirty = true; });

    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x40444c, 1.6));
    this.sun = new THREE.DirectionalLight(0xffffff, 1.6);
    this.sun.position.set(0.6, -0.8, 1.2);
    this.scene.add(this.sun);
    this.scene.add(this.sun.target);

    this.material = new THREE.MeshLambertMaterial({ color: 0xffffff });
    this.impostor = impostorMaterial();
    this.sphereMode = 'auto'; // 'mesh', 'impostor' or 'auto': impostors above 5 000 particles
    this.mesh = null; this.capacity = 0; this.detail = -1;
    this.geometryGroup = new THREE.Group();
    this.geometryGroup.renderOrder = 1;
    this.scene.add(this.geometryGroup);
    this.shapes = [];
    this.meshLoads = new Map(); // geometry index -> promise of its mesh's arrays, per job
    // the bytes of an uploaded mesh (main.js sets it to the API's)
    this.fetchMesh = async (id) => (await fetch(`/api/v1/meshes/${encodeURIComponent(id)}?format=stl`)).arrayBuffer();
    this.onMeshError = null;
    this.job = null; this.frame = null; this.mode = 'speed';
    this.bounds = null; this.needFit = true;
    this.onLegend = null; this.onFps = null;
    this.dirty = true; this.frames = 0; this.lastFps = performance.now();

    this.resize();
    new ResizeObserver(() => this.resize()).observe(container);
    const loop = () => {
      this.raf = requestAnimationFrame(loop);
      this.controls.update();
      if (this.dirty) { this.dirty = false; this.renderer.render(this.scene, this.camera); this.frames++; }
      const now = performance.now();
      if (now - this.lastFps > 1000) {
        this.fps = (this.frames * 1000) / (now - this.lastFps);
        this.frames = 0; this.lastFps = now;
        this.onFps?.(this.fps);
      }
    };
    loop();
  }

  resize() {
    const w = this.container.clientWidth, h = this.container.clientHeight;
    if (!w || !h) return;
    this.renderer.setSize(w, h, false);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.dirty = true;
  }

  setJob(job, shapes = null) {
    this.job = job;
    this.setTemplates(shapes);
    this.frame = null;
    if (this.mesh) this.mesh.count = 0;
    this.bounds = sceneBounds(job);
    this.needFit = true;
    this.meshLoads = new Map();
    this.setChains(null);
    this.container.dataset.meshTriangles = '';
    this.buildGeometry();
    this.dirty = true;
  }

  buildGeometry() {
    for (const s of this.shapes) { this.geometryGroup.remove(s.pose || s.obj); s.obj.traverse((o) => { o.geometry?.dispose(); o.material?.dispose(); }); }
    this.shapes = [];
    const doc = this.job?.scene?.geometry || [];
    const b = this.bounds || { min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5] };
    const ext = Math.max(b.max[0] - b.min[0], b.max[1] - b.min[1], b.max[2] - b.min[2], 1e-3);
    const center = V(b.min).add(V(b.max)).multiplyScalar(0.5);
    const surf = (color, opacity) => new THREE.MeshLambertMaterial({ color, transparent: true, opacity, side: THREE.DoubleSide, depthWrite: false });
    const lines = (color, opacity = 0.6) => new THREE.LineBasicMaterial({ color, transparent: true, opacity });
    const meshes = [];
    for (const [k, g] of doc.entries()) {
      const obj = new THREE.Group();
      let spin = null, ref = null; // ref: the reference point a frame's pose places (docs/frames.md)
      if (g.type === 'plane' && g.point && g.normal) {
        const n = V(g.normal).normalize(), p = V(g.point);
        const size = ext * 3;
        const mesh = new THREE.Mesh(new THREE.PlaneGeometry(size, size), surf(0x8fa3b8, 0.22));
        const grid = new THREE.GridHelper(size, 16, 0x9fb0c2, 0x6b7b8c);
        grid.material.transparent = true; grid.material.opacity = 0.35;
        grid.rotation.x = Math.PI / 2; // GridHelper lies in xz; the plane geometry in xy
        const holder = new THREE.Group();
        holder.add(mesh, grid);
        holder.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), n);
        // centre the quad on the scene: the point of the plane nearest the scene centre
        holder.position.copy(center.clone().sub(n.clone().multiplyScalar(center.clone().sub(p).dot(n))));
        obj.add(holder);
        ref = p;
      } else if (g.type === 'box' && g.min && g.max) {
        const size = V(g.max).sub(V(g.min));
        const geo = new THREE.BoxGeometry(size.x, size.y, size.z);
        const faces = new THREE.Mesh(geo, surf(0x8fa3b8, g.inside ? 0.08 : 0.3));
        faces.userData.ndemBox = k;
        obj.add(faces);
        obj.add(new THREE.LineSegments(new THREE.EdgesGeometry(geo), lines(0xc6d2de)));
        obj.position.copy(V(g.min).add(V(g.max)).multiplyScalar(0.5));
        ref = obj.position.clone();
        obj.userData.boxSize = size; // a frame's extents (walls) scale it
      } else if (g.type === 'cylinder' && g.center && g.axis) {
        const r = g.radius, len = g.length;
        const inner = new THREE.Group();
        inner.add(new THREE.Mesh(new THREE.CylinderGeometry(r, r, len, 48, 1, false), surf(0x8fa3b8, g.inside ? 0.1 : 0.3)));
        // end circles and a few lines along the side, so that turning shows
        const pts = [];
        for (const y of [-len / 2, len / 2]) for (let k = 0; k < 64; k++) {
          const a0 = (k / 64) * 2 * Math.PI, a1 = ((k + 1) / 64) * 2 * Math.PI;
          pts.push(r * Math.cos(a0), y, r * Math.sin(a0), r * Math.cos(a1), y, r * Math.sin(a1));
        }
        for (let k = 0; k < 8; k++) {
          const a = (k / 8) * 2 * Math.PI;
          pts.push(r * Math.cos(a), -len / 2, r * Math.sin(a), r * Math.cos(a), len / 2, r * Math.sin(a));
        }
        const lg = new THREE.BufferGeometry();
        lg.setAttribute('position', new THREE.Float32BufferAttribute(pts, 3));
        inner.add(new THREE.LineSegments(lg, lines(0xc6d2de)));
        inner.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), V(g.axis).normalize());
        obj.add(inner);
        obj.position.copy(V(g.center));
        ref = V(g.center);
        spin = inner;
      } else if (g.type === 'mesh') {
        const holder = new THREE.Group();
        const at = placement(g);
        holder.position.fromArray(at.position);
        holder.quaternion.fromArray(at.quaternion);
        holder.scale.fromArray(at.scale);
        obj.add(holder);
        ref = V(at.position);
        if (!this.meshLoads.has(k)) this.meshLoads.set(k, meshArrays(g, this.fetchMesh));
        meshes.push(this.meshLoads.get(k).then((arrays) => this.addMesh(holder, arrays, surf, lines), (e) => {
          this.onMeshError?.(`geometry ${k}: ${e.message}`);
          return 'error';
        }));
      } else continue;
      // a frame's pose moves the whole shape as defined: pose = T(p) R(q) T(-ref)
      const pose = new THREE.Group();
      pose.add(obj);
      pose.userData.geometryIndex = k;
      this.geometryGroup.add(pose);
      this.shapes.push({ obj, pose, index: k, ref, spin, base: obj.position.clone(), baseQ: spin ? spin.quaternion.clone() : null,
        velocity: g.velocity ? V(g.velocity) : null, omega: Array.isArray(g.angular_velocity) ? V(g.angular_velocity)
          : typeof g.angular_velocity === 'number' && g.axis ? V(g.axis).normalize().multiplyScalar(g.angular_velocity) : null });
    }
    // emitters: where particles are inserted, as dashed amber boxes
    for (const e of this.job?.scene?.emitters || []) {
      if (!Array.isArray(e.min) || !Array.isArray(e.max)) continue;
      const size = V(e.max).sub(V(e.min)).max(new THREE.Vector3(1e-4, 1e-4, 1e-4));
      const box = new THREE.LineSegments(new THREE.EdgesGeometry(new THREE.BoxGeometry(size.x, size.y, size.z)),
        new THREE.LineDashedMaterial({ color: 0xf0b429, dashSize: ext / 100, gapSize: ext / 150, transparent: true, opacity: 0.8 }));
      box.computeLineDistances();
      box.position.copy(V(e.min).add(V(e.max)).multiplyScalar(0.5));
      this.geometryGroup.add(box);
      this.shapes.push({ obj: box, spin: null, base: box.position.clone(), velocity: null, omega: null });
    }
    this.placeGeometry(this.frame?.time || 0, this.frame?.geometry);
    // the triangles of each mesh once all are drawn, in document order (for the test)
    if (meshes.length) {
      const group = this.geometryGroup.children.slice();
      Promise.all(meshes).then((counts) => {
        if (group.every((o) => o.parent)) this.container.dataset.meshTriangles = counts.join(',');
      });
    }
  }

  // A loaded mesh into its placed group (unless the geometry was rebuilt
  // meanwhile): flat-shaded, transparent, with its feature edges. Returns
  // its triangle count.
  addMesh(holder, { positions, index, triangles }, surf, lines) {
    let geo = new THREE.BufferGeometry();
    geo.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
    if (index) { geo.setIndex(new THREE.Uint32BufferAttribute(index, 1)); geo = geo.toNonIndexed(); }
    geo.computeVertexNormals();
    if (!holder.parent?.parent?.parent) { geo.dispose(); return triangles; } // holder, shape, pose, group
    const mesh = new THREE.Mesh(geo, surf(0xb8a48f, 0.35));
    mesh.userData.ndemMesh = true;
    holder.add(mesh, new THREE.LineSegments(new THREE.EdgesGeometry(geo, 20), lines(0xe0d2c2)));
    // the camera takes in meshes too (their extent is known only now)
    const box = new THREE.Box3().setFromObject(holder);
    if (!box.isEmpty()) {
      this.bounds = unionBox(this.bounds, { min: box.min.toArray(), max: box.max.toArray() });
      if (!this.frame) this.fit(null);
    }
    this.dirty = true;
    return triangles;
  }

  // Moving shapes: at the poses the frame carries (every geometry, frames
  // of this version), else from the document's shorthand motion: position
  // + v t, cylinders turned by |w| t about w.
  placeGeometry(t, poses = null) {
    const byIndex = new Map((poses || []).map((p) => [p.index, p]));
    for (const s of this.shapes) {
      const p = s.pose && byIndex.get(s.index);
      if (p && s.obj.userData.boxSize && p.min && p.max) { // walls: the faces where the frame has them
        const size = s.obj.userData.boxSize;
        s.pose.position.set(0, 0, 0); s.pose.quaternion.identity();
        s.obj.position.fromArray(p.min).add(V(p.max)).multiplyScalar(0.5);
        s.obj.scale.set((p.max[0] - p.min[0]) / size.x, (p.max[1] - p.min[1]) / size.y, (p.max[2] - p.min[2]) / size.z);
        continue;
      }
      if (s.obj.userData.boxSize) s.obj.scale.set(1, 1, 1);
      if (p && s.ref) {
        s.obj.position.copy(s.base);
        if (s.spin) s.spin.quaternion.copy(s.baseQ);
        const q = new THREE.Quaternion(p.orientation[1], p.orientation[2], p.orientation[3], p.orientation[0]);
        s.pose.quaternion.copy(q);
        s.pose.position.fromArray(p.position).sub(s.ref.clone().applyQuaternion(q));
        continue;
      }
      if (s.velocity) s.obj.position.copy(s.base).addScaledVector(s.velocity, t);
      if (s.spin && s.omega && s.omega.lengthSq() > 0) {
        const w = s.omega.length();
        const q = new THREE.Quaternion().setFromAxisAngle(s.omega.clone().divideScalar(w), w * t);
        s.spin.quaternion.copy(q).multiply(s.baseQ);
      }
    }
  }

  ensureCapacity(n) {
    const big = n > 5000;
    const detail = (this.sphereMode === 'auto' ? big : this.sphereMode === 'impostor') ? -1 : big ? 1 : 2; // -1: impostors; 80 or 320 triangles a sphere
    if (this.mesh && n <= this.capacity && detail === this.detail) return;
    let cap = Math.max(1024, this.capacity);
    while (cap < n) cap *= 2;
    if (this.mesh) { this.scene.remove(this.mesh); this.mesh.geometry.dispose(); this.mesh.dispose(); }
    const geo = detail < 0 ? new THREE.PlaneGeometry(2, 2) : new THREE.IcosahedronGeometry(1, detail);
    this.mesh = new THREE.InstancedMesh(geo, detail < 0 ? this.impostor : this.material, cap);
    this.mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    this.mesh.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(3 * cap), 3);
    this.mesh.instanceColor.setUsage(THREE.DynamicDrawUsage);
    this.mesh.frustumCulled = false;
    this.mesh.visible = this.particlesVisible !== false;
    this.mesh.instanceMatrix.array.fill(0);
    this.mesh.count = 0;
    this.scene.add(this.mesh);
    this.capacity = cap; this.detail = detail;
  }

  // The job's shape templates: one InstancedMesh each, built once.
  setTemplates(shapes) {
    for (const t of this.templateMeshes || []) if (t) { this.scene.remove(t.mesh); t.mesh.geometry.dispose(); t.mesh.dispose(); }
    this.templateMeshes = (Array.isArray(shapes) ? shapes : []).map((t) => {
      const geo = templateGeometry(t);
      return geo ? { geo, mesh: null, capacity: 0, particles: new Int32Array(0) } : null;
    });
    this.container.dataset.shapeInstances = '';
  }

  // Shaped particles (the frame's shapes, bit 8) into their template's
  // mesh at position, orientation (bit 7) and radius; returns a mask of the
  // particles drawn there (the sphere mesh leaves them out), or null.
  placeShapes(frame) {
    const tm = this.templateMeshes || [], sh = frame.shapes;
    const counts = tm.map(() => 0);
    if (sh) for (let i = 0; i < frame.n; i++) if (tm[sh[i]]) counts[sh[i]]++;
    const mask = sh && counts.some((c) => c) ? new Uint8Array(frame.n) : null;
    const p = frame.positions, r = frame.radii, q = frame.orientations;
    const m4 = new THREE.Matrix4(), at = new THREE.Vector3(), turn = new THREE.Quaternion(), scale = new THREE.Vector3();
    tm.forEach((t, k) => {
      if (!t) return;
      if (!t.mesh || counts[k] > t.capacity) {
        if (t.mesh) { this.scene.remove(t.mesh); t.mesh.dispose(); }
        t.capacity = Math.max(64, 2 * counts[k]);
        t.mesh = new THREE.InstancedMesh(t.geo, this.material, t.capacity);
        t.mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
        t.mesh.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(3 * t.capacity), 3);
        t.mesh.frustumCulled = false;
        t.mesh.userData.ndemTemplate = k;
        this.scene.add(t.mesh);
      }
      t.particles = new Int32Array(counts[k]);
      let j = 0;
      for (let i = 0; mask && i < frame.n; i++) {
        if (sh[i] !== k) continue;
        mask[i] = 1;
        at.set(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
        if (q) turn.set(q[4 * i + 1], q[4 * i + 2], q[4 * i + 3], q[4 * i]).normalize(); else turn.identity();
        scale.setScalar(r[i]);
        t.mesh.setMatrixAt(j, m4.compose(at, turn, scale));
        t.particles[j++] = i;
      }
      t.mesh.count = j;
      t.mesh.visible = this.particlesVisible !== false;
      t.mesh.instanceMatrix.needsUpdate = true;
    });
    this.container.dataset.shapeInstances = counts.join(',');
    return mask;
  }

  setFrame(frame) {
    this.frame = frame;
    const n = frame.n;
    this.ensureCapacity(n);
    const mask = this.placeShapes(frame);
    const m = this.mesh.instanceMatrix.array, p = frame.positions, r = frame.radii;
    for (let i = 0, o = 0; i < n; i++, o += 16) {
      const ri = mask?.[i] ? 0 : r[i]; // drawn by its template instead
      m[o] = ri; m[o + 5] = ri; m[o + 10] = ri;
      m[o + 12] = p[3 * i]; m[o + 13] = p[3 * i + 1]; m[o + 14] = p[3 * i + 2]; m[o + 15] = 1;
    }
    this.mesh.count = n;
    this.mesh.instanceMatrix.clearUpdateRanges();
    this.mesh.instanceMatrix.addUpdateRange(0, 16 * n);
    this.mesh.instanceMatrix.needsUpdate = true;
    this.recolour();
    this.placeGeometry(frame.time, frame.geometry);
    if (this.needFit && n > 0) {
      // the first frame tells how far the particles reach: planes are sized to it
      this.needFit = false;
      this.bounds = unionBox(this.bounds, frameBounds(frame));
      this.buildGeometry();
      this.fit(frame);
    }
    this.container.dataset.frameIndex = String(frame.index);
    this.container.dataset.particles = String(n);
    this.dirty = true;
  }

  recolour() {
    const f = this.frame;
    if (!f || !this.mesh) return;
    const [values, label, unit] = quantity(f, this.mode);
    const [lo, hi] = this.rangeLock || range(values, this.mode, this.job?.scene?.materials?.length || 0);
    this.lastRange = [lo, hi];
    const c = this.mesh.instanceColor.array, k = 255 / (hi - lo);
    for (let i = 0; i < f.n; i++) {
      let j = ((values[i] - lo) * k) | 0;
      j = j < 0 ? 0 : j > 255 ? 255 : j;
      c[3 * i] = LUT[3 * j]; c[3 * i + 1] = LUT[3 * j + 1]; c[3 * i + 2] = LUT[3 * j + 2];
    }
    this.mesh.instanceColor.clearUpdateRanges();
    this.mesh.instanceColor.addUpdateRange(0, 3 * f.n);
    this.mesh.instanceColor.needsUpdate = true;
    for (const t of this.templateMeshes || []) { // shaped particles: the colour of their particle
      if (!t?.mesh) continue;
      const tc = t.mesh.instanceColor.array;
      t.particles.forEach((i, j) => { tc[3 * j] = c[3 * i]; tc[3 * j + 1] = c[3 * i + 1]; tc[3 * j + 2] = c[3 * i + 2]; });
      t.mesh.instanceColor.needsUpdate = true;
    }
    this.onLegend?.(label, unit, lo, hi);
    this.dirty = true;
  }

  setSphereMode(mode) {
    this.sphereMode = mode;
    if (this.frame) this.setFrame(this.frame);
  }
  get sphereKind() { return this.detail < 0 ? 'impostor' : 'mesh'; }

  setColourMode(mode) { this.mode = mode; this.rangeLock = null; this.recolour(); }
  lockRange(on) { this.rangeLock = on && this.lastRange ? [...this.lastRange] : null; this.recolour(); }
  setParticlesVisible(v) {
    this.particlesVisible = v;
    if (this.mesh) this.mesh.visible = v;
    for (const t of this.templateMeshes || []) if (t?.mesh) t.mesh.visible = v;
    this.dirty = true;
  }
  setGeometryVisible(v) { this.geometryGroup.visible = v; this.dirty = true; }

  // Force chains (chains.js): line segments drawn over the particles (the
  // segments join centres, inside the spheres), or none for null.
  setChains(seg) {
    if (this.chains) {
      this.scene.remove(this.chains);
      this.chains.geometry.dispose(); this.chains.material.dispose();
      this.chains = null;
    }
    if (seg?.count) {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(seg.positions, 3));
      g.setAttribute('color', new THREE.BufferAttribute(seg.colors, 3));
      this.chains = new THREE.LineSegments(g, new THREE.LineBasicMaterial({ vertexColors: true, depthTest: false, transparent: true }));
      this.chains.renderOrder = 3;
      this.chains.frustumCulled = false;
      this.scene.add(this.chains);
    }
    this.container.dataset.chainSegments = String(seg?.count || 0);
    this.dirty = true;
  }

  fit(frame) {
    let b = this.bounds;
    if (frame) b = unionBox(b, frameBounds(frame));
    if (!b) b = { min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5] };
    const c = V(b.min).add(V(b.max)).multiplyScalar(0.5);
    const R = Math.max(V(b.max).sub(V(b.min)).length() / 2, 1e-3);
    const dist = (R / Math.sin(THREE.MathUtils.degToRad(this.camera.fov / 2))) * 1.05;
    const dir = new THREE.Vector3(0.9, -1.5, 0.75).normalize();
    this.camera.position.copy(c).addScaledVector(dir, dist);
    this.camera.near = dist / 200; this.camera.far = dist * 50;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(c);
    this.controls.update();
    this.sun.position.copy(c).add(new THREE.Vector3(0.6, -0.8, 1.2).multiplyScalar(dist));
    this.sun.target.position.copy(c);
    this.dirty = true;
  }

  resetCamera() { this.fit(this.frame); }
}
