// forces.js - the force chart's data: the named geometry of a series (its
// NAME_fx, NAME_fy, NAME_fz columns, docs/cli.md) and the magnitude |F| of
// each one's force, from the series route or from a progress message's
// `geometry` object (docs/protocol.md).

// Names in column order: every NAME with all three of NAME_fx, _fy, _fz.
export function namedGeometry(columns) {
  const have = new Set(columns);
  return columns.filter((c) => c.endsWith('_fx')).map((c) => c.slice(0, -3))
    .filter((n) => n && have.has(`${n}_fy`) && have.has(`${n}_fz`));
}

export function magnitude(f) {
  return f.every((v) => typeof v === 'number') ? Math.hypot(f[0], f[1], f[2]) : NaN;
}

// |F| per step of geometry `name` from the series route's columns.
export function seriesMagnitude(series, name) {
  const x = series[`${name}_fx`] || [], y = series[`${name}_fy`] || [], z = series[`${name}_fz`] || [];
  return x.map((v, k) => magnitude([v, y[k], z[k]]));
}
