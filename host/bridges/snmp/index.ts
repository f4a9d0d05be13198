// D.device.createSNMPSession's get / walk / set on net-snmp: one call is one exchange in the
// transcript, over a session (UDP socket) opened for it and closed when it ends or the run does.
// Bounds: each request sent counts against the run's commands; each distinct session setup
// (settings, port, timeout, maxRepetitions) once against its sessions; a walk stops at the
// run's output bound or MAX_WALK_VARBINDS, answering what it had with OUTPUT_TOO_LARGE, and at
// an OID that does not increase. The agent's answers reach net-snmp through SnmpSocketGuard
// (guarded-socket.ts): a malformed answer or a throw in net-snmp ends the call, never the host.
import snmp from 'net-snmp';
import type { ProtocolAnswer, ProtocolContext, ProtocolHandler } from '../core/protocol-handler.js';
import { hostError, snmpError } from './errors.js';
import { SnmpSocketGuard, type SnmpFault } from './guarded-socket.js';
import { oidAfter } from './oid-order.js';
import { parseSnmpCall, type SnmpCall } from './options.js';
import { SnmpOptionError } from './errors.js';
import { snmpSecrets } from '../../snmp-settings.js';
import { DEFAULT_SNMP_SETTINGS, describeSettings, openSession } from './session.js';
import { outputText, outputValue, type OutputValue } from './values.js';

/** Varbinds one walk may collect (besides the output bound): a runaway agent ends here. */
export const MAX_WALK_VARBINDS = 50_000;

/** The session setups each run has counted, found by the run's abort signal (one per run). */
const runSessions = new WeakMap<AbortSignal, Set<string>>();

function takeSession(ctx: ProtocolContext, key: string): boolean {
  let seen = runSessions.get(ctx.signal);
  if (!seen) runSessions.set(ctx.signal, (seen = new Set()));
  if (seen.has(key)) return true;
  if (!ctx.takeSession()) return false;
  seen.add(key);
  return true;
}

/** The request as the transcript shows it: "GET 1.3.6.1.2.1.1.1.0 1.3.6.1.2.1.1.3.0". */
function requestText(call: SnmpCall): string {
  if (call.op === 'set') return `SET ${call.oids[0]} ${call.value!.type} ${JSON.stringify(call.value!.value)}`;
  return `${call.op.toUpperCase()} ${call.oids.join(' ')}`;
}

export const snmpRequest: ProtocolHandler = async (ctx, options) => {
  let call: SnmpCall;
  try {
    call = parseSnmpCall(options);
  } catch (error) {
    if (error instanceof SnmpOptionError) return { error: hostError('INVALID_OPTIONS', error.message), result: options.op === 'walk' ? {} : undefined };
    throw error;
  }
  const empty = call.op === 'get' ? null : {};
  const settings = ctx.target.snmp ?? DEFAULT_SNMP_SETTINGS;
  // Before anything is logged or recorded: the communities and keys this call may use.
  for (const secret of snmpSecrets(ctx.target.snmp)) ctx.addSecret(secret);
  const endpoint = ctx.endpoint(call.port);
  if (!endpoint) return { error: hostError('NO_ADDRESS', 'the device has no IP address or host name to send SNMP requests to'), result: empty };
  if ('refused' in endpoint) return { error: hostError(endpoint.refused.code, endpoint.refused.message), result: empty };
  const exchange = ctx.exchange(`snmp://${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`, `${requestText(call)} (${describeSettings(settings)})`);
  const finish = (answer: ProtocolAnswer): ProtocolAnswer => {
    exchange.finish({ error: answer.error, response: answer.result ? outputText(answer.result as Record<string, OutputValue>) : null });
    return answer;
  };
  if (!takeSession(ctx, JSON.stringify([endpoint, settings, call.timeoutMs, call.maxRepetitions, call.op === 'set']))) {
    return finish({ error: hostError('TOO_MANY_SESSIONS', 'the run opened as many device sessions as it may (maxProtocolSessions)'), result: empty });
  }
  if (!ctx.takeCommand()) return finish({ error: hostError('TOO_MANY_COMMANDS', 'the run sent as many device commands and SNMP requests as it may (maxProtocolCommands)'), result: empty });
  if (ctx.signal.aborted) return finish({ error: hostError('ABORTED', 'the run ended'), result: empty });

  let session: snmp.Session;
  // Until the promise below exists, a fault has nowhere to go: none can come before a request is sent.
  let onFault: (fault: SnmpFault) => void = () => {};
  const guard = new SnmpSocketGuard(endpoint, (fault) => onFault(fault));
  try {
    session = openSession(endpoint, settings, call, call.op === 'set', guard);
  } catch (error) {
    return finish({ error: snmpError(error), result: empty });
  }
  return new Promise<ProtocolAnswer>((resolve) => {
    let done = false;
    // A walk keeps what it had collected; get and set answer nothing.
    let partial: unknown = empty;
    onFault = (fault) => end({ error: hostError(fault.code, fault.message), result: partial });
    const end = (answer: ProtocolAnswer) => {
      if (done) return;
      done = true;
      ctx.signal.removeEventListener('abort', onAbort);
      clearTimeout(guard);
      try {
        session.close();
      } catch {
        // already closed
      }
      resolve(finish(answer));
    };
    const onAbort = () => end({ error: hostError('ABORTED', 'the run ended before the agent answered'), result: empty });
    ctx.signal.addEventListener('abort', onAbort);
    // The run's end aborts the call; this only makes sure it ends even if that never comes.
    const guard = setTimeout(() => end({ error: hostError('TIMEOUT', 'the run\'s time ran out before the agent answered'), result: empty }), Math.max(0, ctx.timeLeftMs()) + 1_000);
    guard.unref();
    try {
      if (call.op === 'walk') partial = walk(ctx, session, call, end);
      else if (call.op === 'get') get(ctx, session, call, end);
      else set(ctx, session, call, end);
    } catch (error) {
      end({ error: snmpError(error), result: empty });
    }
  });
};

function outputOf(ctx: ProtocolContext, varbinds: snmp.Varbind[] | undefined): { output: Record<string, OutputValue>; tooLarge: boolean } {
  const output: Record<string, OutputValue> = {};
  let bytes = 2;
  for (const varbind of varbinds ?? []) {
    const value = outputValue(varbind);
    output[varbind.oid] = value;
    bytes += varbind.oid.length + 4 + Buffer.byteLength(JSON.stringify(value) ?? 'null');
  }
  return { output, tooLarge: bytes > ctx.maxOutputBytes };
}

function tooLarge(ctx: ProtocolContext): NonNullable<ProtocolAnswer['error']> {
  return hostError('OUTPUT_TOO_LARGE', `the SNMP output is larger than the run allows (maxOutputBytes ${ctx.maxOutputBytes})`);
}

function get(ctx: ProtocolContext, session: snmp.Session, call: SnmpCall, end: (answer: ProtocolAnswer) => void): void {
  session.get(call.oids, (error, varbinds) => {
    if (error) return end({ error: snmpError(error), result: null });
    const { output, tooLarge: over } = outputOf(ctx, varbinds);
    end(over ? { error: tooLarge(ctx), result: null } : { error: null, result: output });
  });
}

function set(ctx: ProtocolContext, session: snmp.Session, call: SnmpCall, end: (answer: ProtocolAnswer) => void): void {
  const { type, value } = call.value!;
  session.set([{ oid: call.oids[0]!, type: snmp.ObjectType[type]!, value }], (error, varbinds) => {
    if (error) return end({ error: snmpError(error), result: {} });
    end({ error: null, result: outputOf(ctx, varbinds).output });
  });
}

/** The subtree under the OID, keys in walk order; on an error, what was collected so far. */
function walk(ctx: ProtocolContext, session: snmp.Session, call: SnmpCall, end: (answer: ProtocolAnswer) => void): Record<string, OutputValue> {
  const base = call.oids[0]!;
  const output: Record<string, OutputValue> = {};
  let count = 0;
  let bytes = 2;
  let stop: NonNullable<ProtocolAnswer['error']> | null = null;
  const inSubtree = (oid: string) => oid.startsWith(`${base}.`);
  let last = base;
  const feed = (varbinds: snmp.Varbind[]): boolean => {
    for (const varbind of varbinds) {
      if (!inSubtree(varbind.oid)) return true; // past the subtree: done
      if (!oidAfter(last, varbind.oid)) {
        stop = hostError('OID_NOT_INCREASING', `the agent's walk did not move forward: ${varbind.oid.slice(0, 200)} came after ${last.slice(0, 200)}`);
        return true;
      }
      last = varbind.oid;
      const value = outputValue(varbind);
      bytes += varbind.oid.length + 4 + Buffer.byteLength(JSON.stringify(value) ?? 'null');
      if (bytes > ctx.maxOutputBytes || ++count > MAX_WALK_VARBINDS) {
        stop = bytes > ctx.maxOutputBytes ? tooLarge(ctx) : hostError('OUTPUT_TOO_LARGE', `the walk returned more than ${MAX_WALK_VARBINDS} values`);
        return true;
      }
      output[varbind.oid] = value;
    }
    // The next page is another request: counted before net-snmp sends it.
    if (!ctx.takeCommand()) {
      stop = hostError('TOO_MANY_COMMANDS', 'the run sent as many device commands and SNMP requests as it may (maxProtocolCommands)');
      return true;
    }
    return false;
  };
  session.walk(base, call.maxRepetitions, feed, (error) => {
    if (error) return end({ error: snmpError(error), result: output });
    end({ error: stop, result: output });
  });
  return output;
}
