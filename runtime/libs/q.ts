// The lazily loaded q library of the sandbox (D.q): q's own exports, bundled on their own.
import { exportLib } from './export';

// require(), not `import Q from`: no per-run copy of q's exports (see lodash.ts).
declare const require: (name: string) => unknown;
const Q = require('q') as { makePromise: { prototype: object } };

// q's promises say "[object Promise]" from toString(); the tag makes Object.prototype.toString
// agree, and makes them what the declarations say they are (types/lib/q.d.ts: a Promise).
Object.defineProperty(Q.makePromise.prototype, Symbol.toStringTag, { value: 'Promise', configurable: true });

exportLib(Q);
