// The one dispatch of a driver's network call to its run's RunNetwork, wherever that network is:
// on the run's sandbox thread (thread-network.ts), or on the host thread for a record, replay or
// deviceState run (sandbox-thread.ts). A call the bridge refuses by throwing gets an error answer
// and the run goes on; an answer that cannot be written as JSON becomes an error answer too.
import type { HttpCall, ProtocolCall, TlsCall } from '../../../runtime/protocol.js';
import type { RunNetwork } from '../../bridges/run-network.js';
import type { NetworkCall, NetworkOp } from '../isolate/run-plan.js';

/** The answer's JSON text for the isolate; an answer that cannot be written becomes an error answer. */
export function answerText(payload: unknown): string {
  try {
    return JSON.stringify(payload);
  } catch (error) {
    return JSON.stringify({ error: { code: 'GENERIC_ERROR', message: `the answer could not be passed on (${error instanceof Error ? error.message : 'unknown'})` }, response: null });
  }
}

/** Starts `call` on `network`; `reply` gets its answer (once), or the refusal's error answer. */
export function dispatchNetworkCall(network: RunNetwork, op: NetworkOp, call: NetworkCall, reply: (payload: unknown) => void): void {
  try {
    if (op === 'http') network.http(call as HttpCall, reply);
    else if (op === 'proto') network.protocol(call as ProtocolCall, reply);
    else network.tls(call as TlsCall, reply);
  } catch (error) {
    // The bridge refused the call by throwing: the driver gets an error answer, the run goes on.
    reply({ error: { code: 'GENERIC_ERROR', message: error instanceof Error ? error.message : 'the request failed' }, response: null });
  }
}
