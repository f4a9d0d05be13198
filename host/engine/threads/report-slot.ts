// Where a sandbox thread leaves a run's result the moment the driver ends the run, for the
// host thread to read only if it must. The driver ends the run from inside a call into its
// isolate; almost always that call returns at once and the result follows in the run's
// 'ended' message, so posting it right away as well (a wake-up of the host thread, a copy)
// would be wasted. When the call does not return (the driver's code goes on), the thread is
// stuck and can post nothing: the host, which looks at the slot on a slow timer while the
// thread has runs, finds the result here and answers after the grace (sandbox-thread.ts).
//
// One slot per thread holds the latest report: a thread stuck in a call is stuck in the one
// that reported last. A seqlock (odd while written) keeps the reader from a torn read.

const SEQ = 0;
const RUN = 1;
const LENGTH = 2;
const HEADER_BYTES = 16; // SEQ, RUN, LENGTH as Int32; then the report time as Float64
const TIME_BYTE = 16;
const DATA_BYTE = 24;

/** A clock both threads read alike (performance.now() alone counts from each thread's start). */
export const sharedClock = (): number => performance.timeOrigin + performance.now();

/** Results up to this many bytes (as JSON) go in the slot; larger ones are posted. */
export const REPORT_SLOT_BYTES = 256 * 1024;

export function createReportSlot(bytes = REPORT_SLOT_BYTES): SharedArrayBuffer {
  return new SharedArrayBuffer(DATA_BYTE + bytes);
}

export interface Report {
  seq: number;
  run: number;
  /** sharedClock() on the sandbox thread when the run was ended. */
  at: number;
  json: string;
}

export class ReportSlot {
  readonly #ints: Int32Array;
  readonly #time: Float64Array;
  readonly #data: Buffer;

  constructor(buffer: SharedArrayBuffer) {
    this.#ints = new Int32Array(buffer, 0, HEADER_BYTES / 4);
    this.#time = new Float64Array(buffer, TIME_BYTE, 1);
    this.#data = Buffer.from(buffer, DATA_BYTE);
  }

  /** Sandbox thread: leaves `json` (a RunResult) for `run`; false when it is too large to fit. */
  write(run: number, json: string): boolean {
    const length = Buffer.byteLength(json);
    if (length > this.#data.length) return false;
    Atomics.add(this.#ints, SEQ, 1); // odd: being written
    this.#data.write(json, 0, length, 'utf8');
    this.#ints[RUN] = run;
    this.#ints[LENGTH] = length;
    this.#time[0] = sharedClock();
    Atomics.add(this.#ints, SEQ, 1); // even: complete
    return true;
  }

  /** Host thread: the number of the latest report (0: none yet); odd while one is being written. */
  seq(): number {
    return Atomics.load(this.#ints, SEQ);
  }

  /** Host thread: the latest report, or null when there is none or it is being written. */
  read(): Report | null {
    const seq = Atomics.load(this.#ints, SEQ);
    if (seq === 0 || seq % 2 === 1) return null;
    const run = this.#ints[RUN]!;
    const at = this.#time[0]!;
    const json = this.#data.toString('utf8', 0, this.#ints[LENGTH]);
    return Atomics.load(this.#ints, SEQ) === seq ? { seq, run, at, json } : null;
  }
}
