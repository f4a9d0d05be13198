// What a fresh isolated-vm context offers that a driver must not have: removed before any
// driver code runs, in every run's context. Each was probed in a child process (see
// test/security/sandbox-globals.test.ts); what stays was found harmless under the run's limits.
//
// Removed:
// - WebAssembly: its memory lives outside the isolate's heap and its memory limit.
// - gc (a host started with --expose-gc): a full collection of the whole isolate on demand.
// - Atomics.waitAsync: with a timeout it aborts the whole process (SIGABRT inside isolated-vm 5).
// - Atomics.wait: blocks the sandbox thread (every run on it) without using CPU, until the
//   call's time limit; a driver has no other thread to wait for.
// - SharedArrayBuffer: nothing to share it with, and a growable one (grow()) takes memory past
//   the isolate's memory limit.
// - ArrayBuffer.prototype.resize and the maxByteLength option: a resizable buffer grows past
//   the memory limit too (and reserves its maximum in the host's address space).
// - FinalizationRegistry: its callbacks run when V8 collects garbage, outside any call into the
//   isolate, so outside the run's time limit (and possibly after the run).
// Kept: Atomics' other functions on ordinary typed arrays, WeakRef (no callback), Intl (its
// errors are thrown as usual and its work is interrupted by the time limit), eval/Function
// (the same isolate and limits), Error.captureStackTrace / Error.prepareStackTrace (driver code
// run under the call's limits; every context is fresh).
export function removeUnsupported(g: Record<string, unknown>): void {
  delete g.WebAssembly;
  // V8 makes gc undeletable, but writable.
  if (typeof g.gc === 'function') g.gc = undefined;
  const atomics = g.Atomics as Record<string, unknown> | undefined;
  if (atomics) {
    delete atomics.waitAsync;
    delete atomics.wait;
  }
  delete g.SharedArrayBuffer;
  delete g.FinalizationRegistry;
  const Native = g.ArrayBuffer as ArrayBufferConstructor;
  const proto = Native.prototype as unknown as Record<string, unknown>;
  delete proto.resize;
  // The same constructor without its options argument (maxByteLength): every buffer is fixed-size.
  // Plain assignments (each property exists and is writable): this runs in every run's context.
  const ArrayBuffer = function ArrayBuffer(this: unknown, length?: unknown) {
    if (new.target === undefined) throw new TypeError("Constructor ArrayBuffer requires 'new'");
    return Reflect.construct(Native, [length], new.target) as object;
  } as unknown as ArrayBufferConstructor & Record<string, unknown>;
  (ArrayBuffer as { prototype: unknown }).prototype = proto;
  ArrayBuffer.isView = Native.isView;
  proto.constructor = ArrayBuffer;
  g.ArrayBuffer = ArrayBuffer;
}
