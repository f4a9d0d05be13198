// OID order for walks: each OID a walk returns must come strictly after the one before it,
// or the walk would go round (net-snmp's own check lets an OID equal to the last one through,
// and skips error varbinds). Compared arc by arc in one pass, no arrays made.

/** Is `next` strictly after `prev` in OID order (arc by arc; a longer OID after its prefix)? */
export function oidAfter(prev: string, next: string): boolean {
  let i = 0;
  let j = 0;
  while (i < prev.length || j < next.length) {
    if (i >= prev.length) return true; // prev is a prefix of next
    if (j >= next.length) return false; // next is a prefix of prev
    // One arc of each: compare by digit count, then digit by digit (arcs can pass 2^53).
    const ie = arcEnd(prev, i);
    const je = arcEnd(next, j);
    const a = stripZeros(prev, i, ie);
    const b = stripZeros(next, j, je);
    if (ie - a !== je - b) return je - b > ie - a;
    for (let k = 0; k < ie - a; k++) {
      const d = next.charCodeAt(b + k) - prev.charCodeAt(a + k);
      if (d !== 0) return d > 0;
    }
    i = ie + 1;
    j = je + 1;
  }
  return false; // equal
}

function arcEnd(oid: string, from: number): number {
  const dot = oid.indexOf('.', from);
  return dot < 0 ? oid.length : dot;
}

function stripZeros(oid: string, from: number, end: number): number {
  while (from < end - 1 && oid.charCodeAt(from) === 48) from++;
  return from;
}
