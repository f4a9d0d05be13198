// JSON's functions as they were when the runtime bundle ran, before any driver code: what D
// sends to the host and reads back goes through these, so a driver that replaces
// JSON.stringify / JSON.parse changes its own calls only. (The host checks what arrives anyway:
// host/sandbox/check-report.ts.)
export const stringify = JSON.stringify;
export const parse = JSON.parse;
/** Object.hasOwn as it was: no Function.prototype.call a driver may have replaced. */
export const hasOwn = Object.hasOwn;
