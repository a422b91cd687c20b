// tar.js - a POSIX ustar archive in memory, for downloading all of a job's
// frames as one file. entries: [{name, data: Uint8Array}].
export function makeTar(entries) {
  const enc = new TextEncoder();
  const parts = [];
  const mtime = Math.floor(Date.now() / 1000);
  for (const { name, data } of entries) {
    const h = new Uint8Array(512);
    const put = (s, off, len) => { const b = enc.encode(s); h.set(b.subarray(0, len), off); };
    const oct = (v, len) => v.toString(8).padStart(len - 1, '0') + '\0';
    put(name, 0, 100);
    put(oct(0o644, 8), 100, 8); put(oct(0, 8), 108, 8); put(oct(0, 8), 116, 8);
    put(oct(data.length, 12), 124, 12); put(oct(mtime, 12), 136, 12);
    put('        ', 148, 8); // checksum field counts as spaces
    h[156] = 0x30; // regular file
    put('ustar\0', 257, 6); put('00', 263, 2);
    let sum = 0;
    for (const b of h) sum += b;
    put(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8);
    parts.push(h, data);
    const pad = (512 - (data.length % 512)) % 512;
    if (pad) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(1024));
  return new Blob(parts, { type: 'application/x-tar' });
}
