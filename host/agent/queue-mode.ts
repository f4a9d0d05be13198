// The agent's scale-out mode: runs come from the Redis queue several agents share (QueueRuns)
// instead of this process's scheduler. Each slot runs as an embedded job would: skipped while
// its association backs off (the shared store says), named driver@device once the run reads
// them, counted and told through the agent's tally, its limit hits noted in the shared store.
import type { RunExecutor } from '../contract/run-executor.js';
import type { AssociationSchedule } from '../store/drivers/associations.js';
import type { StoreDeviceStates } from '../store/runs/device-states.js';
import type { Store } from '../store/store.js';
import type { AgentRunSkipped, PlannedJob } from './agent-types.js';
import { runAssociation, type ActionRun, type AssociationRunContext } from './association-run.js';
import type { BackoffTracker } from './backoff-tracker.js';
import type { AgentMetrics } from './metrics.js';
import { QueueRuns, type AgentQueueOptions } from './queue-runs.js';
import type { RunTally } from './run-tally.js';

/** What the queue mode takes of its agent. */
export interface QueueModeAgent {
  store: Store;
  agentId: number;
  executor: RunExecutor;
  /** The run timeout: the default deadline D of an association's run is twice it, at least 10 s. */
  timeoutMs: number;
  maxConcurrent: number;
  maxPerDevice: number;
  actionsOf(associationId: number): string[];
  runContext(executor: RunExecutor): AssociationRunContext;
  tally: RunTally;
  backoffs: BackoffTracker;
  metrics: AgentMetrics;
  skipped(event: AgentRunSkipped): void;
  report(error: Error): void;
}

/** The agent's share of the queue (its reconciler, worker and schedule reader), to start(). */
export function queueMode(options: AgentQueueOptions, agent: QueueModeAgent): QueueRuns {
  const queue = new QueueRuns(
    agent.store,
    agent.agentId,
    agent.executor,
    {
      ...options,
      deadlineMs: options.deadlineMs ?? Math.max(10_000, 2 * agent.timeoutMs),
      concurrency: agent.maxConcurrent,
      maxPerDevice: agent.maxPerDevice,
    },
    {
      actionsOf: (id) => agent.actionsOf(id),
      run: (id, actions, signal, executor, slot, deviceStates) => runSlot(agent, id, actions, signal, executor, slot, deviceStates),
      report: (error) => agent.report(error),
    },
  );
  queue.reconciler.on('reconciled', (result) => {
    for (const refused of result.refused) agent.report(new Error(`agent: association ${refused.associationId ?? '?'} is not scheduled: ${refused.message}`));
  });
  queue.worker.on('runSkipped', (event) => {
    agent.metrics.recordSkipped();
    agent.skipped({ associationId: event.associationId, name: `association ${event.associationId}`, dueAt: event.slotMs, reason: 'missed', count: 1 });
  });
  agent.metrics.observeQueue(() => queue.figures());
  return queue;
}

async function runSlot(agent: QueueModeAgent, associationId: number, actions: string[], signal: AbortSignal, executor: RunExecutor, slot: { slotMs: number; runner: string }, deviceStates: StoreDeviceStates): Promise<ActionRun[]> {
  // Backing off after repeated limit hits (the store says, for every agent of the cluster): this slot is skipped.
  const backoff = await agent.backoffs.readSlot(associationId);
  if (backoff?.backoffUntil && backoff.backoffUntil > slot.slotMs) {
    agent.metrics.recordSkipped();
    agent.skipped({ associationId, name: `association ${associationId}`, dueAt: slot.slotMs, reason: 'backoff', count: 1 });
    return [];
  }
  const startedAt = Date.now();
  const key = `queue-${associationId}-${slot.slotMs}`;
  // A queue job carries only the association's id: its names come from the store as the run
  // reads it, so events and lines name a run as the embedded mode does (driver@device).
  const job: PlannedJob = { schedule: { id: associationId } as AssociationSchedule, name: `association ${associationId}`, actions };
  try {
    const context = agent.runContext(executor);
    // The slot's lateness (start − slot) goes with each result into the association's health.
    const write = { ...context.write, latenessMs: startedAt - slot.slotMs };
    const runs = await runAssociation({ ...context, write, slot, deviceStates }, associationId, actions, signal, {
      ...agent.tally.hooks(key, job),
      identified: (who) => {
        job.name = `${who.driverName}@${who.deviceName}`;
        job.schedule = { ...job.schedule, customDriverId: who.driverId, deviceId: who.deviceId };
        const dueAt = slot.slotMs;
        agent.tally.started(key, { associationId, name: job.name, driverId: who.driverId, deviceId: who.deviceId, dueAt, startedAt, latenessMs: startedAt - dueAt });
      },
    });
    await agent.backoffs.noteSlot(associationId, job.name, runs, backoff);
    return runs;
  } finally {
    agent.tally.ended(key);
  }
}
