// @ts-expect-error q ships no types here; the bundle only needs the value
import Q from 'q';
import { exportLib } from './export';

// q's promises say "[object Promise]" from toString(); the tag makes Object.prototype.toString
// agree, and makes them what the declarations say they are (types/lib/q.d.ts: a Promise).
Object.defineProperty((Q as { makePromise: { prototype: object } }).makePromise.prototype, Symbol.toStringTag, { value: 'Promise', configurable: true });

exportLib(Q);
