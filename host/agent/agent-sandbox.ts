// The agent's default executor: a supervised sandbox process sized for scheduled runs (an
// isolate for each run the scheduler lets go at once, a few kept warm, at least two threads),
// its restarts, kills and resident memory counted in the agent's metrics.
import { availableParallelism } from 'node:os';
import { startSandboxProcess, type SandboxProcess, type SandboxProcessOptions } from '../engine/process/index.js';
import type { AgentMetrics } from './metrics.js';

/**
 * Isolates the agent's sandbox child keeps warm at most. Runs at once beyond it first wait for one
 * (host/engine/isolate/pool.ts): 4 served bench:agent's 10,000 devices / 60 s with 8's lateness and
 * ~50 MB less (each holds its runs' garbage, ~12 MB).
 */
export const AGENT_WARM_ISOLATES = 4;
/**
 * How long the child keeps an isolate nobody used, ms: the warm set follows the runs at once of
 * the last seconds, not the largest burst since start (~12 MB each at bench:agent's load; making
 * one again costs ~5-10 ms of CPU).
 */
export const AGENT_WARM_IDLE_MS = 5_000;
/**
 * The least sandbox threads the agent's sandbox process gets, whatever the cores: a driver that
 * spins until its deadline holds one thread (host/engine/threads/placement.ts places other runs elsewhere).
 */
export const AGENT_MIN_SANDBOX_THREADS = 2;

/** Starts the sandbox process for `maxConcurrent` runs at once; `report` is told when it dies. */
export async function startAgentSandbox(
  sandboxOptions: SandboxProcessOptions,
  maxConcurrent: number,
  metrics: AgentMetrics,
  report: (error: Error) => void,
): Promise<SandboxProcess> {
  const sandbox = await startSandboxProcess({
    ...sandboxOptions,
    // The scheduler already bounds runs; the child gets an isolate for each so none queues there.
    // Up to AGENT_WARM_ISOLATES are kept warm, each until AGENT_WARM_IDLE_MS unused. Not one per
    // slot: an isolate kept warm holds the garbage of its runs, and a run at once past the warm
    // set waits for one to come back before one is made (host/engine/isolate/pool.ts).
    // At least AGENT_MIN_SANDBOX_THREADS threads, even on 2 cores: a run spinning to its deadline holds one.
    host: {
      maxIsolates: maxConcurrent,
      warmIsolates: Math.min(maxConcurrent, AGENT_WARM_ISOLATES),
      warmIsolateIdleMs: AGENT_WARM_IDLE_MS,
      threads: Math.min(maxConcurrent, Math.max(AGENT_MIN_SANDBOX_THREADS, availableParallelism() - 1)),
      ...sandboxOptions.host,
    },
    // stop() waits for the grace itself: what is left then is ended at once.
    closeGraceMs: sandboxOptions.closeGraceMs ?? 0,
  });
  sandbox.on('restart', () => metrics.recordRestart());
  metrics.observeSandboxMemory(() => {
    const { pid, rssBytes } = sandbox.stats();
    return pid !== null && rssBytes !== null ? { pid, bytes: rssBytes } : null;
  });
  sandbox.on('exit', (event) => {
    if (event.expected) return;
    if (event.overstay) metrics.recordOverstayKill();
    const how = event.killedBecause ? `killed because ${event.killedBecause}` : event.signal ? `signal ${event.signal}` : `exit code ${event.code}`;
    report(new Error(`agent: the sandbox process (pid ${event.pid}) died (${how}); ${event.lostRuns} run(s) in flight ended as failed; it is being restarted`));
  });
  return sandbox;
}
