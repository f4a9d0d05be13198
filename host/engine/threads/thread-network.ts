// A run's network on its own sandbox thread: the thread keeps the device sessions (undici
// dispatchers, cookie jars) of the devices pinned to it (placement.ts) and a trust store, and each
// run's RunNetwork answers the driver's calls here, with no hand-off to the host thread and back.
// Only the caller's policy (D.createExternalDevice, a redirect to another host), which may be a
// function, is asked of the host thread; the answer-bytes bound is shared memory.
import { ByteBudget } from '../../bridges/core/buffer-budget.js';
import { DeviceSessions } from '../../bridges/http/sessions.js';
import { RunNetwork } from '../../bridges/run-network.js';
import { createTrustStore, type TrustStore } from '../../bridges/tls/trust.js';
import type { RunResult } from '../../contract/run-result.js';
import type { NetworkCall, NetworkOp, RunPlan, SandboxNetwork } from '../isolate/run-plan.js';
import { answerText, dispatchNetworkCall } from './network-dispatch.js';
import type { PolicyKind, ThreadNetworkConfig, ThreadReport } from './thread-protocol.js';

/** A run's SandboxNetwork over a RunNetwork of its own thread; `report` gives what the run ends with. */
export interface LocalNetwork extends SandboxNetwork {
  report(result: RunResult): ThreadReport;
}

export class ThreadNetworks {
  readonly #config: ThreadNetworkConfig;
  readonly #ask: (run: number, kind: PolicyKind, host: string) => boolean;
  #sessions: DeviceSessions | null = null;
  #trust: TrustStore | null = null;
  #buffers: ByteBudget | null = null;
  /** Answers waiting for the next turn of the loop, for all runs: delivered together (see #deliver). */
  #due: Array<() => void> = [];

  /**
   * Answers reach the isolates once per loop turn, together, after the network work of that
   * turn: calls into isolates back to back cost less than each between undici's callbacks, and
   * the driver's callback never runs inside the dispatch that asked (as with the host's messages).
   */
  #deliver(answer: () => void): void {
    if (this.#due.push(answer) === 1) {
      setImmediate(() => {
        const due = this.#due;
        this.#due = [];
        for (const one of due) one();
      });
    }
  }

  /** `ask`: the host's answer to a policy question, synchronously (the thread waits). */
  constructor(config: ThreadNetworkConfig, ask: (run: number, kind: PolicyKind, host: string) => boolean) {
    this.#config = config;
    this.#ask = ask;
  }

  /** The thread's device sessions, made on first use (a thread may never do a run's network). */
  get sessions(): DeviceSessions {
    this.#trust ??= createTrustStore(this.#config.trustedCAs);
    this.#sessions ??= new DeviceSessions(this.#trust, { maxSessions: this.#config.maxDeviceSessions, sessionIdleMs: this.#config.deviceSessionIdleMs, tlsSessionReuse: this.#config.tlsSessionReuse });
    return this.#sessions;
  }

  /** The network of run `run`, whose plan carries `network`. */
  open(run: number, plan: RunPlan & { network: NonNullable<RunPlan['network']> }, reported: (report: ThreadReport) => void): LocalNetwork {
    const sessions = this.sessions;
    this.#buffers ??= new ByteBudget(this.#config.maxBufferedBytes, this.#config.buffers);
    const network = new RunNetwork({
      device: plan.device,
      limits: plan.limits,
      sessions,
      trust: this.#trust!,
      transcript: plan.network.transcript,
      allowExternal: (host) => this.#ask(run, 'reach', host),
      allowRedirect: (host) => this.#ask(run, 'redirect', host),
      resolve: plan.network.resolve,
      driver: plan.driver,
      buffers: this.#buffers,
      secrets: plan.network.secrets,
      startedAt: plan.startedAt,
    });
    let transcript: RunResult['http'] | null = null;
    const deliver = (answer: () => void) => this.#deliver(answer);
    return {
      start(op: NetworkOp, call: NetworkCall, answer: (json: string) => void): void {
        dispatchNetworkCall(network, op, call, (payload) => {
          if (transcript) return; // the run is over
          const json = answerText(payload);
          deliver(() => answer(json));
        });
      },
      external: (call) => network.external(call),
      close() {
        transcript ??= network.close();
      },
      reported(result) {
        // The thread may stay busy in the call that ended the run: the transcript goes with it now.
        reported({ result: { ...result, http: network.transcript() }, secrets: network.secrets() });
      },
      report(result) {
        transcript ??= network.close();
        return { result: { ...result, http: transcript }, secrets: network.secrets() };
      },
    };
  }
}
