// A run handed to a sandbox thread, as the host thread holds it until it is answered: where its
// network is, its deadline and how its caller is answered, and the results the host answers
// with itself (the thread's report, a failure, the watchdog's timeout).
import type { RunNetwork } from '../../bridges/run-network.js';
import type { RunResult } from '../../contract/run-result.js';
import { maskRunText } from '../../secrets/secret-mask.js';
import { sharedClock as clock } from './report-slot.js';
import type { PolicyKind, ThreadReport } from './thread-protocol.js';

/** The caller's policy for a run whose network is on its thread (the thread asks: 'policy'). */
export type NetworkPolicy = Record<PolicyKind, (host: string) => boolean>;

export interface ActiveRun {
  /** The run's network when it is on this (the host) thread; null when it is on the sandbox thread. */
  network: RunNetwork | null;
  policy: NetworkPolicy | null;
  /** The run's deadline, on the clock both threads share (sharedClock). */
  deadline: number;
  /** The entry point run, for the result the watchdog answers with. */
  action: string;
  timeoutMs: number;
  startedAt: number;
  resolve: (result: RunResult) => void;
  reject: (error: Error) => void;
  /** Answered early (see 'reported'); the thread still holds the run until it ends. */
  answered?: boolean;
  grace?: NodeJS.Timeout;
}

/**
 * The run's HTTP exchanges as its network here ends; none when ending it fails (the run is answered
 * all the same), nor when the network was on the sandbox thread and did not report (the thread is stuck).
 */
export function closeNetwork(run: ActiveRun): RunResult['http'] {
  try {
    return run.network?.close() ?? [];
  } catch {
    return [];
  }
}

/** The run's result as the thread reported it: with this thread's transcript, or masked with the thread's secrets. */
export function finalResult(run: ActiveRun, { result, secrets }: ThreadReport): RunResult {
  return run.network ? { ...result, http: closeNetwork(run) } : maskRunText(result, secrets ?? []);
}

/** A failed result the host answers the run with, without the thread's word. */
export function failedResult(run: ActiveRun, errorType: string, message: string, limit: RunResult['limitExceeded']): RunResult {
  return {
    status: 'failure',
    errorType,
    message,
    variables: [],
    tables: [],
    logs: [],
    warnings: [],
    http: closeNetwork(run),
    action: run.action,
    limitExceeded: limit,
    durationMs: Math.round((clock() - run.startedAt) * 100) / 100,
  };
}
