// In-sandbox side of the host bridge. The host hands us one function (hostCall, an
// isolated-vm Callback: its arguments and result are copied); we keep it in this closure
// only, so driver code can never reach it.
import type { DispatchKind, HostOp, QueuedOp } from './protocol';
import { mapDelete, mapGet, mapSet, parse, stringify } from './intrinsics';

/** The host's one entry point: an operation and its JSON text in, JSON text (or nothing) out. */
export type HostCall = (op: HostOp, json: string) => unknown;

type Pending = (payload: unknown) => void;

export interface Bridge {
  /** Synchronous host call; returns the host's answer parsed from JSON (or undefined). */
  call(op: HostOp, payload: unknown): unknown;
  /** The same with the payload's JSON text made by the caller (no toJSON of the driver's can reach it). */
  callText(op: HostOp, json: string): void;
  /**
   * Starts async host work; `onDone` runs with the host's answer. `fields` is the payload as
   * JSON text of an object's members without the braces (`"ms":5`): the bridge adds the id.
   */
  start(op: QueuedOp, fields: string, onDone: Pending): number;
  cancel(id: number): void;
  /**
   * The function the host calls to run the driver and deliver answers; it answers the operations
   * queued meanwhile, as text. It never throws: whatever the driver throws is described here.
   */
  dispatch(kind: DispatchKind, id: number, json: string): string;
  /** What dispatch('run') does: the driver's top level, then its entry point. */
  onRun(handler: () => void): void;
  /** Runs driver code; an uncaught throw ends the run through `onUncaught`. */
  guard(fn: () => void): void;
  onUncaught(handler: (error: unknown) => void): void;
}

export function createBridge(hostCall: HostCall): Bridge {
  const pending = new Map<number, Pending>(); // used through the saved Map methods only
  let nextId = 1;
  let runHandler: () => void = () => {};
  let uncaughtHandler: (error: unknown) => void = () => {};
  // While a dispatch runs, async operations are queued as JSON text of [op, payload] pairs
  // and go back as its answer; at other times (the driver's top level, promise jobs that run
  // after a dispatch returned) they go to the host at once. Payloads are serialised when
  // queued, so a driver changing its options object afterwards changes nothing.
  let queued: string[] = [];
  let dispatching = false;

  const call = (op: HostOp, payload: unknown): unknown => {
    const answer = hostCall(op, stringify(payload ?? null));
    return typeof answer === 'string' ? parse(answer) : undefined;
  };
  // Payload text is built once, by hand: this runs for every request, in a context whose
  // code is always cold (a fresh context per run), where every extra step shows.
  const enqueue = (op: QueuedOp, json: string) => {
    if (dispatching) queued[queued.length] = '["' + op + '",' + json + ']';
    else hostCall(op, json);
  };

  const guard = (fn: () => void): void => {
    try {
      fn();
    } catch (error) {
      try {
        uncaughtHandler(error);
      } catch {
        // describing it failed too (the handler itself describes with saved built-ins, so
        // only a limit gets here): nothing of the driver's may leave this function
      }
    }
  };

  return {
    call,
    callText(op, json) {
      hostCall(op, json);
    },
    start(op, fields, onDone) {
      const id = nextId++;
      mapSet(pending, id, onDone);
      enqueue(op, fields === '' ? '{"id":' + id + '}' : '{"id":' + id + ',' + fields + '}');
      return id;
    },
    cancel(id) {
      if (mapDelete(pending, id)) enqueue('cancel', '{"id":' + id + '}');
    },
    dispatch(kind, id, json) {
      dispatching = true;
      try {
        if (kind === 'run') {
          guard(runHandler);
        } else {
          const done = mapGet(pending, id);
          if (done) {
            // else cancelled, or answered twice: nothing to do
            mapDelete(pending, id);
            guard(() => done(parse(json)));
          }
        }
      } catch {
        // parse() of the host's own answer: cannot fail; but nothing may leave this function
      }
      dispatching = false;
      // By hand, not queued.join(): a driver may have replaced Array.prototype.join.
      let answer = '[';
      for (let i = 0; i < queued.length; i++) answer += i === 0 ? queued[i] : ',' + queued[i];
      queued = [];
      return answer + ']';
    },
    onRun(handler) {
      runHandler = handler;
    },
    guard,
    onUncaught(handler) {
      uncaughtHandler = handler;
    },
  };
}
